// The log sweep itself (test/fixtures/log-sweep.ts) finds what it is there to find: a
// recorded secret, the same without its prefix, or anything secret-shaped.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { sweepLogs } from '../fixtures/log-sweep.js'

t.test('the sweep finds a recorded secret, its body without the prefix, and secret-shaped strings', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'seller-api-sweep-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const key = `service_sk_${'A1b2C3d4E5'.repeat(4)}`
  const token = 'test-internal-token-0123456789abcdef'
  writeFileSync(join(dir, 'secrets.txt'), `${key}\n${token}\n`)
  writeFileSync(join(dir, 'app-1.log'), '{"msg":"fine","url":"/v1/x?api_key=[redacted]"}\n{"msg":"leak","token":"' + token + '"}\n')
  writeFileSync(join(dir, 'app-2.log'), `{"msg":"${key.slice(11)}"}\n{"msg":"whsec_${'x'.repeat(43)}="}\n`)
  const { files, secrets, findings } = sweepLogs(dir)
  t.equal(files, 2)
  t.equal(secrets, 2)
  t.same(findings.map((f) => `${f.file}:${f.line}`).sort(), ['app-1.log:2', 'app-2.log:1', 'app-2.log:2'])
})

t.test('clean logs pass', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'seller-api-sweep-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'secrets.txt'), `service_sk_${'Z'.repeat(40)}\n`)
  writeFileSync(join(dir, 'app-1.log'), '{"msg":"incoming request","req":{"url":"/v1/categories"}}\n')
  t.same(sweepLogs(dir).findings, [])
})
