// Idempotency as a route option: a route declared with `config: { idempotent: true }`
// honours the `Idempotency-Key` header. The key (scoped to the shop) is claimed
// before the handler runs; the finished response (2xx or 4xx) is stored and
// replayed byte for byte with `Idempotency-Replayed: true`. Same key with another
// request: 422 IDEMPOTENCY_KEY_REUSED; while the first still runs: 409
// IDEMPOTENCY_IN_PROGRESS. No Fastify plugin on npm does this against Redis with
// an atomic claim, so it lives here.
//
// A claim whose request ended without a storable outcome (5xx, 401, 429) is
// released, so it never blocks the retries. When the store cannot be reached at
// that moment, or a claim failed in a way that leaves it unknown whether it
// landed (a hung Redis may still run a queued SET NX later), the claim is kept
// here as abandoned and released as soon as the store answers again: at once
// when Redis' breaker closes, before claiming that key again on this instance,
// and every second until done.
//
// The stored body is sealed under the values key (docs/security.md): the
// response of a deliver or a cancel carries the order's delivered values, and
// neither Redis nor the database keeps them in clear. A route whose answers can
// never hold a value says so (`plainIdempotencyRecord`) and skips the sealing.
import { createHash, randomUUID } from 'node:crypto'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { Counter } from 'prom-client'
import { DependencyUnavailableError } from '../domain/circuit-breaker.js'
import { ApiError } from '../domain/errors.js'
import { openResponseBody, sealResponse, type StoredResponse } from '../domain/sealed-responses.js'
import type { Claim } from './idempotency-store.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Honour the Idempotency-Key header on this route. */
    idempotent?: boolean
    /** No answer of this route ever holds a delivered value: its records are stored unsealed (docs/security.md). */
    plainIdempotencyRecord?: boolean
  }
  interface FastifyRequest {
    /** The idempotency record this request claimed, if any. */
    idempotencyClaim: (Claim & { key: string }) | null
  }
}

export const IdempotencyKeyHeader = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '^[\\x20-\\x7E]+$',
  description: 'Client-chosen key (1–255 printable ASCII). A repeat of the same request with the same key has ' +
    'no second effect and gets the first response again.'
})

/** How long a claim lives if the instance running the request dies. */
const IN_FLIGHT_LOCK_MS = 60_000
/** Abandoned claims kept for release at most; past that the oldest simply expire with their lock. */
const MAX_ABANDONED = 10_000
const RELEASE_RETRY_MS = 1000

/** JSON with object keys sorted: the same body in another key order is the same request. */
function canonicalJson (value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>
    const entries = Object.keys(record).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`)
    return `{${entries.join(',')}}`
  }
  return JSON.stringify(value ?? null)
}

function fingerprint (request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n${canonicalJson(request.body)}`)
    .digest('hex')
}

/** Outcomes worth replaying: the handler's 2xx and 4xx, except auth and rate-limit refusals. */
const storable = (statusCode: number) =>
  statusCode >= 200 && statusCode < 500 && statusCode !== 401 && statusCode !== 429

export interface IdempotencyOptions {
  /** Keys are scoped to the operator token (the operator API) instead of the key's shop. */
  operatorScope?: boolean
}

const OUTCOMES_METRIC = 'idempotency_outcomes_total'

async function idempotencyPlugin (fastify: FastifyInstance, options: IdempotencyOptions = {}) {
  const store = fastify.idempotencyStore
  const ttlMs = fastify.config.IDEMPOTENCY_TTL_S * 1000
  fastify.decorateRequest('idempotencyClaim', null)
  // Registered by the seller API and the operator API: one counter for both.
  const outcomes = (fastify.metrics.getSingleMetric(OUTCOMES_METRIC) as Counter<'outcome'> | undefined) ?? new Counter({
    name: OUTCOMES_METRIC,
    help: 'Requests with an Idempotency-Key that did not run: replayed, key_reused (422) or in_progress (409).',
    labelNames: ['outcome'] as const,
    registers: [fastify.metrics]
  })

  /** Store key → claims of it this instance still has to release. */
  const abandoned = new Map<string, Claim[]>()

  function abandon (key: string, claim: Claim) {
    if (!abandoned.has(key) && abandoned.size >= MAX_ABANDONED) abandoned.delete(abandoned.keys().next().value!)
    abandoned.set(key, [...(abandoned.get(key) ?? []), claim])
  }

  /** Releases the abandoned claims of `key`; throws (keeping the rest) if the store fails. */
  async function releaseAbandoned (key: string) {
    const claims = abandoned.get(key) ?? []
    while (claims.length > 0) {
      await store.release(key, claims[0])
      claims.shift()
    }
    abandoned.delete(key)
  }

  let draining = false
  async function drainAbandoned () {
    if (draining) return
    draining = true
    try {
      for (const key of [...abandoned.keys()]) await releaseAbandoned(key)
    } catch {
      // Still away: the next round tries again.
    } finally {
      draining = false
    }
  }
  const retry = setInterval(() => { if (abandoned.size > 0) drainAbandoned() }, RELEASE_RETRY_MS)
  retry.unref()
  const onRedisBack = () => { drainAbandoned() }
  fastify.redisHealth?.on('close', onRedisBack)
  fastify.addHook('onClose', async () => {
    clearInterval(retry)
    fastify.redisHealth?.off('close', onRedisBack)
  })

  const storeUnavailable = () => new ApiError('SERVICE_UNAVAILABLE', 'Requests with an Idempotency-Key cannot ' +
    'be served right now; retry shortly.')

  async function claimIdempotencyKey (request: FastifyRequest, reply: FastifyReply) {
    const key = request.headers['idempotency-key']
    const scope = options.operatorScope === true ? 'operator' : request.apiKey?.shopId
    if (typeof key !== 'string' || scope === undefined) return
    const storeKey = `${scope}:${key}`
    const claim: Claim = { fingerprint: fingerprint(request), token: randomUUID() }
    let existing
    try {
      // A retry of a request whose claim this instance abandoned: that claim goes first.
      if (abandoned.has(storeKey)) await releaseAbandoned(storeKey)
      existing = await store.claim(storeKey, claim, IN_FLIGHT_LOCK_MS)
    } catch (err) {
      // Refused by a breaker: nothing was sent. Otherwise the claim may still land.
      if (!(err instanceof DependencyUnavailableError)) abandon(storeKey, claim)
      // The store's breaker logs the outage once; a line per request would flood the log.
      request.log.debug({ err }, 'idempotency store unavailable')
      throw storeUnavailable()
    }
    if (existing === null) {
      request.idempotencyClaim = { key: storeKey, ...claim }
      return
    }
    if (existing.fingerprint !== claim.fingerprint) {
      outcomes.inc({ outcome: 'key_reused' })
      throw new ApiError('IDEMPOTENCY_KEY_REUSED')
    }
    if (existing.response === null) {
      outcomes.inc({ outcome: 'in_progress' })
      throw new ApiError('IDEMPOTENCY_IN_PROGRESS')
    }
    outcomes.inc({ outcome: 'replayed' })
    const { statusCode, headers } = existing.response
    const body = openResponseBody(fastify.stockCipher, storeKey, existing.response)
    return reply.code(statusCode).headers(headers).header('idempotency-replayed', 'true').send(body)
  }

  /** The onSend hook of a route: stores its finished response, sealed under the values key when `sealed`. */
  const storeIdempotentResponse = (sealed: boolean) => async function storeResponse (
    request: FastifyRequest, reply: FastifyReply, payload: unknown
  ) {
    const claim = request.idempotencyClaim
    if (claim === null) return payload
    request.idempotencyClaim = null
    const { key, ...held } = claim
    if (!storable(reply.statusCode) || typeof payload !== 'string') {
      await store.release(key, held).catch(() => abandon(key, held))
      return payload
    }
    try {
      const contentType = reply.getHeader('content-type')
      const response: StoredResponse = {
        statusCode: reply.statusCode,
        headers: contentType ? { 'content-type': String(contentType) } : {},
        body: payload
      }
      await store.complete(key, {
        fingerprint: held.fingerprint,
        response: sealed ? sealResponse(fastify.stockCipher, key, response) : response
      }, ttlMs)
    } catch (err) {
      // The claim stays until its lock expires: releasing it would let a retry run a request that did run.
      request.log.warn({ err }, 'could not record idempotent response')
    }
    return payload
  }

  fastify.addHook('onRoute', function makeIdempotent (route: RouteOptions) {
    if (!route.config?.idempotent) return
    const schema = route.schema ?? {}
    const headers = (schema.headers ?? Type.Object({})) as ReturnType<typeof Type.Object>
    route.schema = {
      ...schema,
      headers: { ...headers, properties: { ...headers.properties, 'idempotency-key': IdempotencyKeyHeader } }
    }
    route.preHandler = [...toArray(route.preHandler), claimIdempotencyKey]
    route.onSend = [...toArray(route.onSend), storeIdempotentResponse(route.config.plainIdempotencyRecord !== true)]
  })
}

function toArray<T> (value: T | T[] | undefined): T[] {
  if (value === undefined) return []
  return Array.isArray(value) ? value : [value]
}

export default fp(idempotencyPlugin,
  { name: 'idempotency', dependencies: ['idempotency-store', 'auth', 'metrics', 'stock-cipher'] })
