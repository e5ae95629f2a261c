// The reference fulfilment bot: follows the shop's events feed, takes every
// paid order, delivers one code from a local file, and answers the buyer in the
// order's chat. It survives restarts without losing or doubling work, and stops
// cleanly on SIGINT / SIGTERM.
//
//   SELLER_API_URL=http://127.0.0.1:3000 SELLER_API_KEY=service_sk_… \
//   BOT_CODES_FILE=codes.txt BOT_STATE_FILE=bot-state.json npx tsx examples/fulfilment-bot.ts
//
// How restarts stay exact:
// - The state file (written to a temporary file, then renamed: never half
//   written) holds the feed cursor and which code went to which order. The
//   cursor is stored only after every order of a page is done, so a crash
//   replays that page, never skips one.
// - A code is assigned to an order and stored *before* it is delivered, so a
//   replay delivers the same code, and no code is ever given to two orders.
// - Every call carries an Idempotency-Key derived from the order (`take:<id>`,
//   …), so a replayed call has no second effect; a take of an order already
//   taken by the previous run (409 ORDER_INVALID_STATUS) just moves on.
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createSellerClient, followEvents, SellerApiError, unwrap, type components } from '../client/index.js'

type Order = components['schemas']['Order']
interface State { cursor?: string, codes: Record<string, string> }

const env = (name: string, fallback?: string) => {
  const value = process.env[name] ?? fallback
  if (value === undefined) throw new Error(`${name} is required`)
  return value
}
const baseUrl = env('SELLER_API_URL', 'http://127.0.0.1:3000')
const apiKey = env('SELLER_API_KEY')
const codesFile = env('BOT_CODES_FILE', 'codes.txt')
const stateFile = env('BOT_STATE_FILE', 'bot-state.json')

const log = (message: string) => console.log(`${new Date().toISOString()} ${message}`)

function loadState (): State {
  try {
    return JSON.parse(readFileSync(stateFile, 'utf8')) as State
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { codes: {} }
    throw err
  }
}

function saveState (state: State) {
  writeFileSync(`${stateFile}.tmp`, JSON.stringify(state, null, 2))
  renameSync(`${stateFile}.tmp`, stateFile)
}

/** The order's code: the one it was given before, else the first code no order has. */
function codeFor (state: State, orderId: string): string {
  if (state.codes[orderId]) return state.codes[orderId]
  const given = new Set(Object.values(state.codes))
  const code = readFileSync(codesFile, 'utf8').split('\n').map((line) => line.trim()).find((line) => line && !given.has(line))
  if (!code) throw new Error(`no unused code left in ${codesFile}`)
  state.codes[orderId] = code
  saveState(state)
  return code
}

const seller = createSellerClient({ baseUrl, apiKey })

/** take → deliver the code → a chat answer; each step safe to repeat after a restart. */
async function fulfil (state: State, order: Order) {
  const path = { params: { path: { id: order.id } } }
  try {
    await unwrap(seller.POST('/v1/orders/{id}/take', { ...path, headers: { 'idempotency-key': `take:${order.id}` } }))
  } catch (err) {
    // Taken by the previous run (or by hand): deliver it if it is still ours to deliver.
    if (!(err instanceof SellerApiError && err.code === 'ORDER_INVALID_STATUS')) throw err
    const { order: current } = await unwrap(seller.GET('/v1/orders/{id}', path))
    if (current.status !== 'processing' && current.status !== 'awaiting_confirmation') {
      log(`order ${order.id} is ${current.status}: skipped`)
      return
    }
  }
  const code = codeFor(state, order.id)
  try {
    await unwrap(seller.POST('/v1/orders/{id}/deliver', { ...path, body: { value: code }, headers: { 'idempotency-key': `deliver:${order.id}` } }))
  } catch (err) {
    // Delivered by the previous run before it stopped.
    if (!(err instanceof SellerApiError && err.code === 'ORDER_INVALID_STATUS')) throw err
  }
  await unwrap(seller.POST('/v1/orders/{id}/messages', {
    ...path,
    body: { text: `Thank you for your order! Your code: ${code}` },
    headers: { 'idempotency-key': `thanks:${order.id}` }
  }))
  log(`order ${order.id} delivered`)
}

async function main () {
  const state = loadState()
  const stop = new AbortController()
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => { log(`${signal}: stopping after the current order`); stop.abort() })
  }
  log(`following the feed of ${baseUrl} from ${state.cursor ?? 'the oldest event'}`)
  for await (const page of followEvents(seller, { after: state.cursor, types: ['order.paid'], signal: stop.signal })) {
    for (const event of page.events) {
      if (event.type === 'order.paid') await fulfil(state, event.data.order)
    }
    state.cursor = page.nextCursor
    saveState(state)
    if (stop.signal.aborted) break
  }
  saveState(state)
  log('stopped')
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
