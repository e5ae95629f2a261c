// Long-polling bots for the benchmarks: each follows its shop's events feed
// (GET /v1/events) with its own cursor, holding one request open at a time on
// its own keep-alive socket. Used by `npm run bench:events` (scripts/bench/events.ts)
// and by `npm run bench` (the hot path with 5 000 held long polls).
import { Agent, request } from 'node:http'
import { sleep, type Server } from './processes.js'

export interface Bots {
  /** Requests sent and not answered yet. */
  held: () => number
  /** Arrival − createdAt of every delivered event, in ms. */
  latencies: number[]
  delivered: number
  duplicates: number
  failures: string[]
  stop: () => void
}

/**
 * `perShop` bots per shop, each long-polling its own cursor from `latest`, opened
 * in waves of 250 with `wavePauseMs` between them (BENCH_BOT_WAVE_PAUSE_MS).
 */
export async function startBots (server: Server, secrets: string[], perShop: number, wavePauseMs: number): Promise<Bots> {
  const base = `http://127.0.0.1:${server.port}/v1/events`
  // node:http with one keep-alive socket per bot: lighter than fetch for thousands of open requests.
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity })
  const get = (url: string, headers: Record<string, string>, signal: AbortSignal) => new Promise<{ status: number, body: string }>((resolve, reject) => {
    request(url, { headers, agent, signal }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => { body += chunk })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      res.on('error', reject)
    }).on('error', reject).end()
  })
  // One controller per bot: a signal shared by thousands of requests collects a listener per request.
  const controllers: AbortController[] = []
  let stopped = false
  let inFlight = 0
  const stop = () => {
    // Once: every failing bot calls it, and aborting 5 000 controllers per failure would stall the run.
    if (stopped) return
    stopped = true
    for (const controller of controllers) controller.abort()
    agent.destroy()
  }
  const bots: Bots = { held: () => inFlight, latencies: [], delivered: 0, duplicates: 0, failures: [], stop }
  async function bot (secret: string) {
    const controller = new AbortController()
    controllers.push(controller)
    const seen = new Set<string>()
    let cursor = 'latest'
    while (!stopped) {
      inFlight++
      try {
        // 20–30 s, so that bots opened together do not all time out together.
        const wait = 20 + Math.floor(Math.random() * 11)
        const res = await get(`${base}?after=${cursor}&wait=${wait}&limit=100`, { authorization: `Bearer ${secret}` }, controller.signal)
        const arrived = Date.now()
        if (res.status !== 200) throw new Error(`status ${res.status}: ${res.body.slice(0, 200)}`)
        const body = JSON.parse(res.body) as { data: { events: Array<{ id: string, createdAt: string }>, nextCursor: string } }
        for (const event of body.data.events) {
          if (seen.has(event.id)) bots.duplicates++
          seen.add(event.id)
          bots.delivered++
          bots.latencies.push(arrived - Date.parse(event.createdAt))
        }
        cursor = body.data.nextCursor
      } catch (err) {
        if (!stopped) bots.failures.push((err as Error).message)
        if (bots.failures.length > 20) stop()
      } finally {
        inFlight--
      }
    }
  }
  const total = secrets.length * perShop
  for (let i = 0; i < total; i++) {
    bot(secrets[i % secrets.length]).catch(() => {})
    // Waves of 250 connections, so the listen backlog never overflows (a busy machine needs the longer pause).
    if (i % 250 === 249) await sleep(wavePauseMs)
  }
  for (let i = 0; i < 200 && inFlight < total; i++) await sleep(50)
  if (inFlight < total) throw new Error(`only ${inFlight} of ${total} long polls are open (${bots.failures.slice(0, 3).join('; ')})`)
  await sleep(2000)
  if (bots.failures.length > 0) throw new Error(`long polls failed: ${bots.failures.slice(0, 3).join('; ')}`)
  return bots
}
