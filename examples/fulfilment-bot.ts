// The reference fulfilment bot: follows the shop's events feed, takes every
// paid order, delivers one code from a local file and answers the buyer's
// messages in the order's chat. The thank-you after delivery (and a greeting,
// `!help`, reminders to confirm) is the shop's chat rules' job now
// (docs/chat-rules.md): the service posts them itself, once. It never claims an
// order it did not fulfil, survives a crash at any point without losing or
// doubling work, and stops cleanly on SIGINT / SIGTERM.
//
//   SELLER_API_URL=http://127.0.0.1:3000 SELLER_API_KEY=service_sk_… \
//   BOT_CODES_FILE=codes.txt BOT_STATE_FILE=bot-state.json npx tsx examples/fulfilment-bot.ts
//
// The codes file (BOT_CODES_FILE, default codes.txt): UTF-8 text, one code per
// line; surrounding spaces, blank lines and lines starting with `#` are
// ignored. The bot never edits it: each code goes to one order, and the state
// file remembers which, so codes can be appended while the bot runs. A missing
// file (or one with no code) stops the bot at start with one line on stderr.
//
// The state file (BOT_STATE_FILE, default bot-state.json) is the bot's journal,
// written to a temporary file and renamed (never half written) before each step:
// - `cursor`: the feed position, stored only once every event of a page is
//   handled, so a crash replays that page, never skips one;
// - `orders`: each order the bot tried to take, with how far it got
//   (`taking` → `taken` → `delivered`, or `elsewhere` when someone
//   else had it first) and the code it assigned.
//
// Why it never tells a buyer a wrong code: it delivers only orders its own take
// succeeded for (a take repeated after a crash carries the same Idempotency-Key,
// `take:<id>`, and is answered with the stored success), and it counts as its own
// only a delivery of its own code (after a 409 it reads the order back and compares).
// An order taken, delivered or cancelled by someone else is left alone: no
// delivery, no message, no code used.
//
// Claims (docs/claims.md): when a buyer reports the code of an order the bot
// delivered (`claim.opened`, still open), the bot replaces it with the next
// unused code of the file and never hands the reported one out again
// (`badCodes` in the state file). A claim on any other order, one reporting no
// code, or one when the file has no code left is left to a person.
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { createSellerClient, followEvents, SellerApiError, unwrap } from '../client/index.js'

type Step = 'taking' | 'taken' | 'delivered' | 'elsewhere'
interface Journal { step: Step, code?: string }
interface State { cursor?: string, orders: Record<string, Journal>, badCodes?: string[] }

/** A problem the user must fix: printed as one line, exit 1. */
class Stop extends Error {}

const baseUrl = process.env.SELLER_API_URL || 'http://127.0.0.1:3000'
const apiKey = process.env.SELLER_API_KEY ?? ''
const codesFile = process.env.BOT_CODES_FILE || 'codes.txt'
const stateFile = process.env.BOT_STATE_FILE || 'bot-state.json'

const log = (message: string) => console.log(`${new Date().toISOString()} ${message}`)

function loadState (): State {
  let text: string
  try {
    text = readFileSync(stateFile, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { orders: {} }
    throw new Stop(`cannot read the state file ${stateFile}: ${(err as Error).message}`)
  }
  try {
    const state = JSON.parse(text) as State
    return { cursor: state.cursor, orders: state.orders ?? {}, badCodes: state.badCodes ?? [] }
  } catch {
    throw new Stop(`the state file ${stateFile} is not JSON: restore it or remove it (the bot then starts ` +
      'from the oldest event)')
  }
}

function saveState (state: State) {
  writeFileSync(`${stateFile}.tmp`, JSON.stringify(state, null, 2))
  renameSync(`${stateFile}.tmp`, stateFile)
}

function readCodes (): string[] {
  let text: string
  try {
    text = readFileSync(codesFile, 'utf8')
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message
    throw new Stop(`cannot read the codes file ${codesFile} (${reason}): create it with one code per line ` +
      '(BOT_CODES_FILE names another file)')
  }
  return text.split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#'))
}

/** The order's code: the one assigned before, else the first code of the file no order holds. */
function codeFor (state: State, orderId: string): string {
  const entry = state.orders[orderId]
  if (entry.code) return entry.code
  const code = unusedCode(state)
  if (!code) throw new Stop(`no unused code left in ${codesFile}: add codes and start the bot again`)
  entry.code = code
  saveState(state)
  return code
}

/** The first code of the file no order holds and no claim reported. */
function unusedCode (state: State): string | undefined {
  const held = new Set([...Object.values(state.orders).map((o) => o.code), ...state.badCodes ?? []])
  return readCodes().find((line) => !held.has(line))
}

const seller = createSellerClient({ baseUrl, apiKey })

/** A conflict of the order's state (someone else acted on it), as opposed to a passing one. */
const isStatusConflict = (err: unknown) => err instanceof SellerApiError && err.code === 'ORDER_INVALID_STATUS'

/** `call`, repeated while the same Idempotency-Key is still being processed by an earlier attempt. */
async function once<T> (call: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await call()
    } catch (err) {
      if (!(err instanceof SellerApiError && err.code === 'IDEMPOTENCY_IN_PROGRESS')) throw err
      await sleep(1000)
    }
  }
}

/** Takes and delivers one paid order; each step journaled, each safe to repeat. */
async function fulfil (state: State, orderId: string) {
  const path = { params: { path: { id: orderId } } }
  const entry = state.orders[orderId] ??= { step: 'taking' }
  if (entry.step === 'elsewhere' || entry.step === 'delivered') return
  saveState(state)

  if (entry.step === 'taking') {
    try {
      // After a crash the same key answers with the stored success of our own take.
      await once(() => unwrap(seller.POST('/v1/orders/{id}/take',
        { ...path, headers: { 'idempotency-key': `take:${orderId}` } })))
    } catch (err) {
      if (!isStatusConflict(err)) throw err
      entry.step = 'elsewhere'
      saveState(state)
      log(`order ${orderId} was taken or cancelled by someone else: left alone`)
      return
    }
    entry.step = 'taken'
    saveState(state)
  }

  if (entry.step === 'taken') {
    const code = codeFor(state, orderId)
    try {
      await once(() => unwrap(seller.POST('/v1/orders/{id}/deliver',
        { ...path, body: { value: code }, headers: { 'idempotency-key': `deliver:${orderId}` } })))
    } catch (err) {
      if (!isStatusConflict(err)) throw err
      // Delivered (or cancelled) meanwhile: ours only if it holds our code.
      const { order } = await unwrap(seller.GET('/v1/orders/{id}', path))
      if (order.deliveredValues.length !== 1 || order.deliveredValues[0] !== code) {
        entry.step = 'elsewhere'
        delete entry.code // never given: free for another order
        saveState(state)
        log(`order ${orderId} was delivered or cancelled by someone else: left alone`)
        return
      }
    }
    entry.step = 'delivered'
    saveState(state)
  }
  log(`order ${orderId} delivered`)
}

/** Answers a buyer's message in an order the bot delivered; every other message (its own included) is not for it. */
async function answer (state: State, orderId: string, message: { id: string, senderRole: string }) {
  const entry = state.orders[orderId]
  if (message.senderRole !== 'buyer' || entry?.step !== 'delivered') return
  await once(() => unwrap(seller.POST('/v1/orders/{id}/messages', {
    params: { path: { id: orderId } },
    body: {
      text: `This is the shop's bot. Your code for this order: ${entry.code}. A person from the shop ` +
      'will read your message too.'
    },
    headers: { 'idempotency-key': `answer:${message.id}` }
  })))
  log(`order ${orderId}: answered the buyer`)
}

interface OpenedClaim { id: string, orderId: string, status: string, valueIndexes: number[] }

/** Replaces the reported code of an order the bot delivered; anything else is left to a person. */
async function replaceClaimed (state: State, claim: OpenedClaim) {
  const entry = state.orders[claim.orderId]
  const ours = entry?.step === 'delivered' && entry.code !== undefined
  const code = ours && claim.status === 'open' && claim.valueIndexes.length === 1 ? unusedCode(state) : undefined
  if (!code) {
    log(`claim ${claim.id} on order ${claim.orderId}: left to a person`)
    return
  }
  try {
    await once(() => unwrap(seller.POST('/v1/claims/{id}/replace', {
      params: { path: { id: claim.id } },
      body: { values: [code] },
      headers: { 'idempotency-key': `replace:${claim.id}` }
    })))
  } catch (err) {
    if (!(err instanceof SellerApiError && err.code === 'CLAIM_INVALID_STATUS')) throw err
    log(`claim ${claim.id} was answered by someone else: left alone`)
    return
  }
  state.badCodes = [...state.badCodes ?? [], entry.code!]
  entry.code = code
  saveState(state)
  log(`claim ${claim.id}: order ${claim.orderId} got a new code`)
}

async function main () {
  if (!apiKey) throw new Stop('SELLER_API_KEY is not set: give the shop\'s API key (service_sk_…)')
  if (readCodes().length === 0) throw new Stop(`${codesFile} holds no code: write one code per line`)
  const state = loadState()
  const stop = new AbortController()
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => { log(`${signal}: stopping after the current order`); stop.abort() })
  }
  log(`following the feed of ${baseUrl} from ${state.cursor ?? 'the oldest event'}`)
  const pages = followEvents(seller,
    { after: state.cursor, types: ['order.paid', 'message.created', 'claim.opened'], signal: stop.signal })
  for await (const page of pages) {
    for (const event of page.events) {
      if (event.type === 'order.paid') await fulfil(state, event.data.order.id)
      else if (event.type === 'message.created') await answer(state, event.data.orderId, event.data.message)
      else if (event.type === 'claim.opened') await replaceClaimed(state, event.data.claim)
    }
    state.cursor = page.nextCursor
    saveState(state)
    if (stop.signal.aborted) break
  }
  saveState(state)
  log('stopped')
}

main().catch((err) => {
  const message = err instanceof Stop || err instanceof SellerApiError ? err.message : String(err)
  process.stderr.write(`fulfilment-bot: ${message}\n`)
  process.exit(1)
})
