// The hot path's workloads of `npm run bench` (scripts/bench/main.ts): the orders
// list, the messages poll and the writes as autocannon requests, and the checks
// that the baseline and the service answer them alike before anything is measured.
import { isDeepStrictEqual } from 'node:util'
import type { Workload } from './load.js'
import { log, type Server } from './processes.js'
import {
  CURSOR_AFTER_MESSAGE, MESSAGES_PER_POLLED_ORDER, writeOps, type MainFixtures, type WriteOp, type WriteTarget
} from './seed.js'

// ---------------------------------------------------------------- workloads

const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` })
const json = { 'content-type': 'application/json' }

export function ordersList (name: string, secrets: string[], path = '/v1/orders?status=paid&limit=20'): Workload {
  let next = 0
  return { name, next: () => ({ method: 'GET', path, headers: bearer(secrets[next++ % secrets.length]) }) }
}

export function messagesPoll (fixtures: MainFixtures): Workload {
  let next = 0
  return {
    name: 'messages poll',
    next () {
      const poll = fixtures.polls[next++ % fixtures.polls.length]
      return { method: 'GET', path: `/v1/orders/${poll.orderId}/messages?limit=50&cursor=${encodeURIComponent(poll.cursor)}`, headers: bearer(poll.secret) }
    }
  }
}

const writeBodies: Record<WriteOp, string | undefined> = {
  take: undefined,
  deliver: JSON.stringify({ value: 'XXXX-YYYY-ZZZZ' }),
  cancel: JSON.stringify({ reason: 'out of stock' }),
  message: JSON.stringify({ text: 'Your key is on its way.' })
}

/** Each request on its own order (messages may repeat orders), each with a fresh Idempotency-Key. */
export function writes (op: WriteOp, targets: WriteTarget[], keyPrefix: string): Workload {
  let next = 0
  const body = writeBodies[op]
  return {
    name: op,
    capacity: op === 'message' ? undefined : targets.length,
    next () {
      const n = next++
      const target = targets[n % targets.length]
      const path = op === 'message' ? `/v1/orders/${target.orderId}/messages` : `/v1/orders/${target.orderId}/${op}`
      const headers = { ...bearer(target.secret), 'idempotency-key': `${keyPrefix}:${n}`, ...(body === undefined ? {} : json) }
      return { method: 'POST', path, headers, body }
    }
  }
}

// ---------------------------------------------------------------- checks before loading

async function call (server: Server, request: ReturnType<Workload['next']>): Promise<{ status: number, body: any }> {
  const res = await fetch(`http://127.0.0.1:${server.port}${request.path}`, { method: request.method, headers: request.headers, body: request.body })
  const text = await res.text()
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text }
}

/** The baseline and the service answer the read workloads with the same JSON. */
export async function preflightReads (baseline: Server, service: Server, fixtures: MainFixtures) {
  for (const workload of [ordersList('orders list', fixtures.readers), messagesPoll(fixtures)]) {
    const request = workload.next()
    const [b, s] = [await call(baseline, request), await call(service, request)]
    if (b.status !== 200 || s.status !== 200 || !isDeepStrictEqual(b.body, s.body)) {
      throw new Error(`preflight ${workload.name}: baseline ${b.status} and service ${s.status} differ\n${JSON.stringify(b.body).slice(0, 400)}\n${JSON.stringify(s.body).slice(0, 400)}`)
    }
    const data = s.body.data
    const ok = workload.name === 'orders list'
      ? data.orders.length === 20 && data.total > 20
      : data.messages.length === MESSAGES_PER_POLLED_ORDER - CURSOR_AFTER_MESSAGE
    if (!ok) throw new Error(`preflight ${workload.name}: unexpected data ${JSON.stringify(data).slice(0, 300)}`)
    log(`preflight ${workload.name}: same JSON from both servers`)
  }
}

/** One request of each write on both servers (on orders set aside for it): 2xx, same shape of answer. */
export async function preflightWrites (baseline: Server, service: Server, fixtures: MainFixtures) {
  for (const op of writeOps) {
    const answers = []
    for (const server of [baseline, service]) {
      const set = op === 'message' ? fixtures.writes.get('message')! : fixtures.writes.get(`${op}:${server === baseline ? 'baseline' : 'service'}:1`)!
      const request = writes(op, op === 'message' ? set : [set.shift()!], `preflight:${op}:${server.name}`).next()
      const answer = await call(server, request)
      if (answer.status !== (op === 'message' ? 201 : 200)) throw new Error(`preflight ${op} on ${server.name}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`)
      answers.push(Object.keys(answer.body.data[op === 'message' ? 'message' : 'order']).sort())
    }
    if (!isDeepStrictEqual(answers[0], answers[1])) throw new Error(`preflight ${op}: the answers differ in shape: ${JSON.stringify(answers)}`)
  }
  log('preflight writes: 2xx from both servers, same shape')
}
