// `npm run lint:api`: writes the OpenAPI documents the service serves
// (scripts/openapi-documents.ts) to openapi/ and lints each with Redocly's
// recommended ruleset (redocly.yaml; .redocly.lint-ignore.yaml lists the two
// accepted exceptions, with why in docs/api-document.md) and Spectral's
// spectral:oas (.spectral.yaml). Any error or warning of either fails.
import { execFileSync, spawnSync } from 'node:child_process'

const files = ['openapi/seller-api.json', 'openapi/operator-api.json']
const bin = (name) => `node_modules/.bin/${name}`
execFileSync(bin('tsx'), ['scripts/openapi-documents.ts', 'openapi'], { stdio: 'inherit' })

let problems = 0
for (const file of files) {
  const redocly = spawnSync(bin('redocly'), ['lint', file, '--format=json'], { encoding: 'utf8' })
  const { totals } = JSON.parse(redocly.stdout)
  console.log(`redocly (recommended) ${file}: ${totals.errors} errors, ${totals.warnings} warnings, ` +
    `${totals.ignored} ignored`)
  if (totals.errors || totals.warnings) {
    console.log(spawnSync(bin('redocly'), ['lint', file, '--format=stylish'],
      { encoding: 'utf8' }).stdout)
  }
  problems += totals.errors + totals.warnings
}
const spectral = spawnSync(bin('spectral'), ['lint', ...files, '--format=json', '--quiet'], { encoding: 'utf8' })
const results = JSON.parse(spectral.stdout || '[]')
// Spectral severities: 0 error, 1 warning, 2 info, 3 hint.
const errors = results.filter((r) => r.severity === 0).length
const warnings = results.filter((r) => r.severity === 1).length
console.log(`spectral (spectral:oas) ${files.join(', ')}: ${errors} errors, ${warnings} warnings`)
for (const r of results.filter((r) => r.severity <= 1)) {
  console.log(`  ${r.source}: ${r.code} ${r.message} at ${r.path.join('.')}`)
}
problems += errors + warnings
if (problems > 0) {
  console.error(`lint:api: ${problems} problems`)
  process.exit(1)
}
console.log('lint:api: no errors, no warnings')
