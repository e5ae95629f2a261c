// A sweep that every instance runs on a timer (the claims' deadline, the chat rules'
// reminders): the rows are the schedule, so a restart loses nothing. One sweep at a
// time; it starts when the app is ready and the close waits for the one running.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'

export function runPeriodicSweep (fastify: FastifyInstance, options: {
  intervalMs: number
  log: FastifyBaseLogger
  /** Named in the warning when a sweep fails. */
  name: string
  sweep: () => Promise<unknown>
}) {
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let closing = false

  async function sweepOnce () {
    try {
      await options.sweep()
    } catch (err) {
      // The database may be away for a moment; the next sweep tries again.
      if (!closing) options.log.warn({ err }, `${options.name} failed`)
    }
  }

  function schedule () {
    if (closing) return
    timer = setTimeout(() => {
      running = sweepOnce().finally(() => { running = undefined; schedule() })
    }, options.intervalMs)
    timer.unref()
  }

  fastify.addHook('onReady', async () => { schedule() })
  fastify.addHook('onClose', async () => {
    closing = true
    clearTimeout(timer)
    await running
  })
}
