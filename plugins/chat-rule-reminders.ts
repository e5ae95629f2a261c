// The chat rules' reminder scheduler (docs/chat-rules.md) in every instance:
// every CHAT_RULE_SWEEP_INTERVAL_MS the instance posts the `order.unconfirmed`
// reminders that are due (db/chat-rules/reminders.ts), so each is posted once, by
// whichever instance gets there first, within one interval of its due time —
// also while instances restart. No timer per order: the rows are the schedule.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { runPeriodicSweep } from '../lib/periodic-sweep.js'
import { remindDue } from '../db/chat-rules/reminders.js'

/** Reminders taken per sweep at most; the next sweep goes on. */
const MAX_PER_SWEEP = 10_000

async function chatRuleRemindersPlugin (fastify: FastifyInstance) {
  const log = fastify.log.child({ module: 'chat-rules' })
  runPeriodicSweep(fastify, {
    intervalMs: fastify.config.CHAT_RULE_SWEEP_INTERVAL_MS,
    log,
    name: 'chat rule reminder sweep',
    sweep: () => remindDue(fastify.db, MAX_PER_SWEEP, (taken) => {
      log.info({ taken }, 'chat rule reminders due were taken')
    })
  })
}

export default fp(chatRuleRemindersPlugin, { name: 'chat-rule-reminders', dependencies: ['config', 'db'] })
