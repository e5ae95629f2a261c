// Makes one webhook attempt: a signed POST through undici, to public addresses
// only. Names are resolved by our own `lookup`, which drops addresses webhooks may
// not go to; the socket connects to an address that lookup returned, so there
// is no second resolution for DNS rebinding to slip into. Redirects are not
// followed, the whole attempt is bounded by the timeout, and at most a few KB of
// the answer are read — except for a delivery request (docs/delivery-endpoint.md),
// whose answer carries the goods: its body is read up to MAX_ANSWER_BYTES and
// returned for judging (domain/delivery-answer.ts), within its own timeout.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns'
import { Agent, type Dispatcher } from 'undici'
import { checkWebhookUrl, refusedAddressReason, type EgressRules } from '../../domain/webhook-url.js'
import { signatureHeader } from '../../domain/webhook-signing.js'
import type { AttemptOutcome } from '../../db/webhooks/queue.js'
import { MAX_ANSWER_BYTES } from '../../domain/delivery-answer.js'
import { byCode, errorText, stringCode } from '../../lib/error-shape.js'
import {
  connectionErrors, failureText, type AttemptFailure, type ConnectionError
} from '../../domain/attempt-failures.js'

/** Read from an answer at most this much (then the connection is dropped). */
const MAX_RESPONSE_BYTES = 4096
/** Kept of a webhook's answer for the seller to read (docs/webhooks.md): its first 1 KB. */
export const ANSWER_EXCERPT_BYTES = 1024
const USER_AGENT = 'shop-seller-api-webhooks/1'

export interface WebhookRequest {
  url: string
  webhookId: string
  body: string
  secrets: string[]
  /** Cuts the attempt short (the instance is shutting down). */
  signal: AbortSignal
  /** Read and return the answer's body (a delivery request), within this timeout instead of the webhook one. */
  answer?: { timeoutMs: number }
}

export interface SentAttempt extends AttemptOutcome {
  /** The answer's body, when `answer` was asked for and an answer came. */
  body: string | null
  /** The body was larger than MAX_ANSWER_BYTES (and cut off). */
  tooLarge: boolean
  durationMs: number
}

export interface Sender {
  send: (request: WebhookRequest) => Promise<SentAttempt>
  close: () => Promise<void>
}

class RefusedAddressError extends Error {
  readonly host: string
  readonly reasons: string
  constructor (host: string, reasons: string) {
    super(failureText({ kind: 'noPublicAddress', host, reasons }))
    this.host = host
    this.reasons = reasons
  }
}

type LookupCallback = (err: Error | null, address: string | LookupAddress[], family?: number) => void

/** dns.lookup, keeping only public addresses; an error when none is left. */
function publicOnlyLookup (hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, [])
    const allowed = addresses.filter((a) => refusedAddressReason(a.address) === null)
    if (allowed.length === 0) {
      const reasons = addresses.map((a) => refusedAddressReason(a.address)).join('; ')
      return callback(new RefusedAddressError(hostname, reasons), [])
    }
    if (options.all) callback(null, allowed)
    else callback(null, allowed[0].address, allowed[0].family)
  })
}

/** An attempt that failed: the failure, and its English words as the API says them. */
const failed = (failure: AttemptFailure, statusCode: number | null = null) =>
  ({ ok: false, statusCode, error: failureText(failure), failure })

/** Why an attempt got no answer, whatever was thrown. */
function describeFailure (err: unknown, timedOut: boolean, timeoutMs: number, cutShort: boolean): AttemptFailure {
  if (timedOut) return { kind: 'timeout', ms: timeoutMs }
  if (err instanceof RefusedAddressError) return { kind: 'noPublicAddress', host: err.host, reasons: err.reasons }
  const code = stringCode(err)
  if (byCode(connectionErrors, err) !== undefined) return { kind: 'connection', code: code as ConnectionError }
  if (code?.startsWith('UND_ERR_') && code.endsWith('TIMEOUT')) return { kind: 'timeout', ms: timeoutMs }
  if (cutShort) return { kind: 'cutShort' }
  return { kind: 'beforeAnswer', message: errorText(err, 'The request failed before an answer.') }
}

export function createSender (rules: EgressRules & { timeoutMs: number }): Sender {
  const agent = new Agent({
    connect: { timeout: rules.timeoutMs, ...(rules.allowPrivate ? {} : { lookup: publicOnlyLookup }) },
    headersTimeout: rules.timeoutMs,
    bodyTimeout: rules.timeoutMs
  })

  async function send (request: WebhookRequest): Promise<SentAttempt> {
    const started = performance.now()
    const outcome = await attempt(request)
    return { body: null, tooLarge: false, ...outcome, durationMs: Math.round(performance.now() - started) }
  }

  async function attempt (request: WebhookRequest): Promise<AttemptOutcome & Partial<SentAttempt>> {
    // Checked again: the rules may be stricter now than when the URL was saved.
    const check = checkWebhookUrl(request.url, rules)
    if (!check.ok) return failed({ kind: 'urlRefused', problem: check.problem, rule: check.rule })
    const url = new URL(check.url)
    const timestamp = Math.floor(Date.now() / 1000)
    const timeoutMs = request.answer?.timeoutMs ?? rules.timeoutMs
    const timeout = AbortSignal.timeout(timeoutMs)
    const signal = AbortSignal.any([request.signal, timeout])
    try {
      const response = await agent.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'webhook-id': request.webhookId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(request.secrets, request.webhookId, timestamp, request.body)
        },
        body: request.body,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs
      })
      if (request.answer) return await readAnswer(response, signal)
      // The status decides. The first ANSWER_EXCERPT_BYTES are kept for the
      // seller to read (the portal's attempt view); reading a little of the rest
      // keeps the connection reusable; a larger or slower answer is cut off.
      const answer = await answerExcerpt(response, signal)
      const status = response.statusCode
      if (status >= 200 && status < 300) return { ok: true, statusCode: status, error: null, failure: null, answer }
      const failure: AttemptFailure = { kind: status >= 300 && status < 400 ? 'redirect' : 'status', status }
      return { ...failed(failure, status), answer }
    } catch (err) {
      return failed(describeFailure(err, timeout.aborted, timeoutMs, request.signal.aborted))
    }
  }

  /** The answer's first ANSWER_EXCERPT_BYTES as text (a character cut in two is dropped); the rest is skipped. */
  async function answerExcerpt (response: Dispatcher.ResponseData, signal: AbortSignal): Promise<string> {
    const cutOff = () => response.body.destroy()
    signal.addEventListener('abort', cutOff, { once: true })
    const chunks: Buffer[] = []
    let size = 0
    try {
      for await (const chunk of response.body) {
        if (size < ANSWER_EXCERPT_BYTES) chunks.push(chunk as Buffer)
        size += (chunk as Buffer).length
        if (size > MAX_RESPONSE_BYTES) {
          response.body.destroy()
          break
        }
      }
    } catch {
      // Cut off or reset while reading: the status already came, and what was read is kept.
    } finally {
      signal.removeEventListener('abort', cutOff)
    }
    return new TextDecoder('utf-8', { fatal: false })
      .decode(Buffer.concat(chunks).subarray(0, ANSWER_EXCERPT_BYTES)).replace(/\uFFFD+$/, '')
  }

  /** The whole answer of a delivery request, up to MAX_ANSWER_BYTES; the status is judged by the caller. */
  async function readAnswer (
    response: Dispatcher.ResponseData, signal: AbortSignal
  ): Promise<AttemptOutcome & Partial<SentAttempt>> {
    const cutOff = () => response.body.destroy()
    signal.addEventListener('abort', cutOff, { once: true })
    const chunks: Buffer[] = []
    let size = 0
    let tooLarge = false
    try {
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length
        if (size > MAX_ANSWER_BYTES) {
          tooLarge = true
          response.body.destroy()
          break
        }
        chunks.push(chunk as Buffer)
      }
    } finally {
      signal.removeEventListener('abort', cutOff)
    }
    const status = response.statusCode
    return {
      ...(status === 200
        ? { ok: true, statusCode: status, error: null, failure: null }
        : failed({ kind: 'status', status }, status)),
      body: Buffer.concat(chunks).toString('utf8'),
      tooLarge
    }
  }

  return {
    send,
    async close () { await agent.destroy() }
  }
}
