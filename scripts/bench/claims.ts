// The claims scenario of `npm run bench` (docs/performance/claims.md, "Claims: replaced
// from stock"), over HTTP against the stock service (VALUES_ENCRYPTION_KEY set)
// and the stock baseline (scripts/bench/baseline.ts, POST /v1/claims/{id}/replace
// doing the same row work in one transaction): the seller's replace from stock,
// each request on an open claim of its own (seeded by scripts/bench/seed.ts:
// an order delivered from stock, its one value reported), spread over
// CLAIM_SHOPS shops per side, with an Idempotency-Key as a bot sends it. The two
// sides take turns in slices; target ≥ 0.9× the baseline's replacements a second.
import type { Measure, Workload } from './load.js'
import { call, log, type Server } from './processes.js'
import { seedClaims, type ClaimTarget } from './seed-stock.js'

/** Shops (one stock product each) the claims spread over, per side. */
export const CLAIM_SHOPS = 64
/** Claims per side and run: more than a run's replacements at a few thousand a second. */
const CLAIMS_PER_RUN = 8000

/** Per side: one claim for the preflight, then one set per run. */
interface SideClaims { preflight: ClaimTarget, runs: ClaimTarget[][] }
export interface ClaimsFixtures { service: SideClaims, baseline: SideClaims }
export interface ClaimsResult { replace: { baseline: Measure, service: Measure } }

/** Seeds the claims of both sides into the stock database (migrated). */
export async function seedClaimsBench (url: string, stockKey: Buffer, runs: number): Promise<ClaimsFixtures> {
  const perShop = Math.ceil((1 + runs * CLAIMS_PER_RUN) / CLAIM_SHOPS)
  const side = async (name: string): Promise<SideClaims> => {
    const targets = await seedClaims(url, stockKey, Array.from({ length: CLAIM_SHOPS }, (_, i) => `claims ${name} ${i}`), perShop)
    return { preflight: targets[0], runs: Array.from({ length: runs }, (_, r) => targets.slice(1 + r * CLAIMS_PER_RUN, 1 + (r + 1) * CLAIMS_PER_RUN)) }
  }
  return { service: await side('service'), baseline: await side('baseline') }
}

const path = (claim: ClaimTarget) => `/v1/claims/${claim.claimId}/replace`

/** Each request replaces its own claim from stock, with a fresh Idempotency-Key. */
function replacements (claims: ClaimTarget[], keyPrefix: string): Workload {
  let next = 0
  return {
    name: 'claim replaced from stock',
    capacity: claims.length,
    next () {
      const n = next++
      const claim = claims[n % claims.length]
      const headers = { authorization: `Bearer ${claim.secret}`, 'content-type': 'application/json', 'idempotency-key': `${keyPrefix}:${n}` }
      return { method: 'POST', path: path(claim), headers, body: '{}' }
    }
  }
}

/** One replacement on each side: the claim replaced, the order's value from stock, the same shapes. */
export async function preflightClaims (service: Server, baseline: Server, fixtures: ClaimsFixtures) {
  const shapes = []
  for (const [server, claim] of [[service, fixtures.service.preflight], [baseline, fixtures.baseline.preflight]] as const) {
    const { claim: settled, order } = await call(server, 'POST', path(claim), claim.secret, '{}')
    if (settled.status !== 'replaced' || !String(order.deliveredValues[0]).startsWith('SEED-')) {
      throw new Error(`preflight claims on ${server.name}: not replaced from stock: ${JSON.stringify({ settled, order }).slice(0, 400)}`)
    }
    shapes.push(`${Object.keys(settled).join(',')} / ${Object.keys(order).join(',')}`)
  }
  if (shapes[0] !== shapes[1]) throw new Error(`preflight claims: the answers differ in shape: ${shapes.join(' vs ')}`)
  log('preflight claims: both replace from stock, same claim and order shape')
}

/** One run (1-based `index`) of the claims scenario; `pair` measures baseline against service in slices taken in turns. */
export async function claimsRun (
  service: Server, baseline: Server, fixtures: ClaimsFixtures, index: number,
  pair: (b: { server: Server, workload: Workload }, s: { server: Server, workload: Workload }) => Promise<{ baseline: Measure, service: Measure }>
): Promise<ClaimsResult> {
  const replace = await pair(
    { server: baseline, workload: replacements(fixtures.baseline.runs[index - 1], `claims:baseline:${index}`) },
    { server: service, workload: replacements(fixtures.service.runs[index - 1], `claims:service:${index}`) })
  return { replace }
}
