// The chat rules' reminder scheduler (docs/chat-rules.md) in every instance:
// every CHAT_RULE_SWEEP_INTERVAL_MS the instance posts the `order.unconfirmed`
// reminders that are due (db/chat-rules/reminders.ts), so each is posted once, by
// whichever instance gets there first, within one interval of its due time —
// also while instances restart. No timer per order: the rows are the schedule.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { remindDue } from '../db/chat-rules/reminders.js'

/** Reminders taken per sweep at most; the next sweep goes on. */
const MAX_PER_SWEEP = 10_000

async function chatRuleRemindersPlugin (fastify: FastifyInstance) {
  const log = fastify.log.child({ module: 'chat-rules' })
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let closing = false

  async function sweep () {
    try {
      await remindDue(fastify.db, MAX_PER_SWEEP, (taken) => {
        log.info({ taken }, 'chat rule reminders due were taken')
      })
    } catch (err) {
      // The database may be away for a moment; the next sweep tries again.
      if (!closing) log.warn({ err }, 'chat rule reminder sweep failed')
    }
  }

  function schedule () {
    if (closing) return
    timer = setTimeout(() => {
      running = sweep().finally(() => { running = undefined; schedule() })
    }, fastify.config.CHAT_RULE_SWEEP_INTERVAL_MS)
    timer.unref()
  }

  fastify.addHook('onReady', async () => { schedule() })
  fastify.addHook('onClose', async () => {
    closing = true
    clearTimeout(timer)
    await running
  })
}

export default fp(chatRuleRemindersPlugin, { name: 'chat-rule-reminders', dependencies: ['config', 'db'] })
