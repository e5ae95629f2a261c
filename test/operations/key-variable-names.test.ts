// The project's own scripts, docs, examples, CI and tests name the values key by its
// name, VALUES_ENCRYPTION_KEY: the old STOCK_ENCRYPTION_KEY appears only where the
// deprecated name is read, tested or documented as such (docs/configuration.md).
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { repoRoot } from '../fixtures/cli.js'

const deprecatedNameHandledIn = new Set([
  'plugins/config.ts', 'lib/embedded/stock-key.ts', 'domain/stock-cipher.ts',
  'test/encryption/rotation.test.ts', 'test/plugins/config.test.ts', 'test/operations/key-variable-names.test.ts',
  'docs/configuration.md', 'docs/security.md', 'docs/stock.md', 'CHANGELOG.md'
])

t.test('STOCK_ENCRYPTION_KEY appears only where the deprecated name is handled', async (t) => {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: repoRoot, encoding: 'utf8' }).split('\0').filter(Boolean)
  t.ok(files.length > 100, 'the tracked files')
  const naming = files.filter((file) => !deprecatedNameHandledIn.has(file) &&
    /\.(ts|mjs|js|sh|md|ya?ml|json|eta)$|(^|\/)(run|Dockerfile)$/.test(file) &&
    readFileSync(join(repoRoot, file), 'utf8').includes('STOCK_ENCRYPTION_KEY'))
  t.same(naming, [], 'no other file names the old variable')
})
