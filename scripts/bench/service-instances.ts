// What `npm run bench:webhooks` and `npm run bench:delivery` share
// (docs/performance.md, "Webhooks" and "Delivery endpoint"): a database of their
// own (one run per name at a time, dropped and recreated, migrated), the service
// built and started on it as instances allowed to call a receiver on 127.0.0.1,
// the API calls that set up the shops, the receiver's signature check, and the
// teardown.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingHttpHeaders, Server as HttpServer } from 'node:http'
import os from 'node:os'
import postgres from 'postgres'
import { call, productBody, run, startService, stopAllServers, waitReady, type Server } from './processes.js'
import { createDatabase, databaseUrl, dropDatabase } from './seed.js'

export const percentile = (sorted: number[], p: number) => sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)]
export const loadAverage = () => os.loadavg().map((l) => l.toFixed(2)).join(' ')

/** The receiver's check of a Standard Webhooks signature: HMAC-SHA256 with node:crypto (the tests use the standardwebhooks package). */
export function signatureValid (key: Buffer, headers: IncomingHttpHeaders, body: string): boolean {
  const expected = createHmac('sha256', key).update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`).digest()
  return String(headers['webhook-signature']).split(' ').some((entry) => {
    const given = Buffer.from(entry.slice(3), 'base64')
    return entry.startsWith('v1,') && given.length === expected.length && timingSafeEqual(given, expected)
  })
}

export interface ServiceInstancesOptions {
  /** DATABASE_URL: the server the bench database is created on. */
  serverUrl: string
  /** BENCH_DB */
  database: string
  /** BENCH_KEEP_DB */
  keepDatabase: boolean
  redisUrl: string
  poolMax: number
  log: (message: string) => void
}

/** A product with automation and one required text field, as the benches' shops sell. */
export interface BenchProduct { id: string, fields: Array<{ id: string }> }

export class ServiceInstances {
  readonly url: string
  readonly internalToken = randomBytes(24).toString('hex')
  readonly instances: Server[] = []
  /** A connection to the server that holds this run's claim on the database. */
  monitor: postgres.Sql | undefined
  private owned = false
  private cleaning: Promise<void> | null = null

  constructor (private readonly options: ServiceInstancesOptions, private readonly receiver: HttpServer) {
    this.url = databaseUrl(options.serverUrl, options.database)
  }

  /**
   * Claims the database (a second run on the same name would drop it under the
   * first), recreates and migrates it while the service is built, then starts the
   * receiver on a free port of 127.0.0.1 and `count` instances. Returns the receiver's port.
   */
  async start (count: number): Promise<number> {
    const { serverUrl, database, log } = this.options
    this.monitor = postgres(serverUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 })
    const [{ locked }] = await this.monitor<Array<{ locked: boolean }>>`select pg_try_advisory_lock(7311, hashtext(${database})) as locked`
    if (!locked) throw new Error(`another bench is using ${database} right now; wait for it (or set BENCH_DB)`)
    this.owned = true
    log(`building the service and migrating ${database}`)
    await Promise.all([createDatabase(serverUrl, database), run('npm', ['run', 'build'])])
    await new Promise<void>((resolve) => this.receiver.listen(0, '127.0.0.1', resolve))
    for (let i = 0; i < count; i++) await this.startInstance()
    await Promise.all(this.instances.map((instance) => waitReady(instance)))
    return (this.receiver.address() as { port: number }).port
  }

  private async startInstance () {
    this.instances.push(await startService(`instance ${this.instances.length + 1}`, {
      DATABASE_URL: this.url,
      REDIS_URL: this.options.redisUrl,
      REDIS_PREFIX: `${this.options.database}:`,
      INTERNAL_TOKEN: this.internalToken,
      DB_POOL_MAX: String(this.options.poolMax),
      // The receiver is plain http:// on 127.0.0.1.
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true'
    }))
  }

  readonly call = call

  /** Shop `i` with an API key and an external product (one required Email field), through the API. */
  async createShop (instance: Server, i: number): Promise<{ shopId: string, apiKey: string, product: BenchProduct }> {
    const { shop } = await this.call(instance, 'POST', '/internal/v1/shops', this.internalToken, { name: `Bench shop ${i}` })
    const { secret: apiKey } = await this.call(instance, 'POST', `/internal/v1/shops/${shop.id}/api-keys`, this.internalToken, { name: 'bench' })
    const { categories } = await this.call(instance, 'GET', '/v1/categories', apiKey)
    const { product } = await this.call(instance, 'POST', '/v1/products', apiKey, productBody(categories[0].id, `Steam key ${i}`))
    return { shopId: shop.id, apiKey, product }
  }

  /** Stops the instances and the receiver, drops the database (unless keepDatabase) and gives up the claim; once. */
  cleanup (): Promise<void> {
    this.cleaning ??= (async () => {
      await stopAllServers()
      this.receiver.close()
      if (this.owned && !this.options.keepDatabase) {
        try { await dropDatabase(this.options.serverUrl, this.options.database) } catch (err) { this.options.log(`could not drop ${this.options.database}: ${(err as Error).message}`) }
      }
      await this.monitor?.end({ timeout: 2 })
    })()
    return this.cleaning
  }
}
