// The claims' deadline (docs/claims.md) in every instance: every
// CLAIM_SWEEP_INTERVAL_MS the instance refunds the open claims whose
// `respondBy` passed (services/claims/deadline.ts takes each with FOR UPDATE SKIP
// LOCKED in its own transaction), so a due claim is refunded once, by whichever
// instance gets there first, within one interval — also while instances restart.
// No timer per claim: a restart loses nothing, the rows are the schedule.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { runPeriodicSweep } from '../lib/periodic-sweep.js'
import { refundDueClaims } from '../services/claims/deadline.js'

/** Claims refunded per sweep at most; the next sweep goes on. */
const BATCH = 100

async function claimDeadlinesPlugin (fastify: FastifyInstance) {
  const log = fastify.log.child({ module: 'claims' })
  runPeriodicSweep(fastify, {
    intervalMs: fastify.config.CLAIM_SWEEP_INTERVAL_MS,
    log,
    name: 'claim deadline sweep',
    sweep: async () => {
      const refunded = await refundDueClaims(fastify.db, BATCH)
      if (refunded > 0) log.info({ refunded }, 'claims past their deadline refunded')
    }
  })
}

export default fp(claimDeadlinesPlugin, { name: 'claim-deadlines', dependencies: ['config', 'db'] })
