// What `npm run bench:webhooks` and `npm run bench:delivery` share
// (docs/performance/webhooks.md and delivery-endpoint.md): a database of their
// own (one run per name at a time, dropped and recreated, migrated), the service
// built and started on it as instances allowed to call a receiver on 127.0.0.1,
// the API calls that set up the shops, the receiver and its signature check, the
// report's machine line, and the teardown.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import {
  createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type Server as HttpServer,
  type ServerResponse
} from 'node:http'
import os from 'node:os'
import postgres from 'postgres'
import { call, cleanUpOnExit, productBody, run, startService, stopAllServers, waitReady, type Server } from './processes.js'
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

/** The bench's log line on stderr, `[bench:…] message`. */
export const benchLog = (bench: string) => (message: string) => { process.stderr.write(`[${bench}] ${message}\n`) }

/** The report's line on the machine and the load averages of the run's phases. */
export const machineLine = (loads: { before: string, steady: string, backlog: string }) =>
  `Machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}; ` +
  `load average before ${loads.before}, after the steady run ${loads.steady}, after the backlog ${loads.backlog}`

/**
 * The benches' receiver on node:http: each request's body read whole and its
 * Standard Webhooks signature checked with the secret registered for its path
 * (`accept`); `answer` gets the request, its body and whether it was well signed.
 */
export class SignedReceiver {
  readonly server: HttpServer
  badSignatures = 0
  private readonly secrets = new Map<string, Buffer>()

  constructor (answer: (req: IncomingMessage, res: ServerResponse, body: string, signed: boolean) => void) {
    this.server = createHttpServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString()
        const key = this.secrets.get(req.url ?? '')
        const signed = key !== undefined && signatureValid(key, req.headers, body)
        if (!signed) this.badSignatures++
        answer(req, res, body, signed)
      })
    })
  }

  /** Requests to `path` are signed with the endpoint's `whsec_…` secret. */
  accept (path: string, secret: string) {
    this.secrets.set(path, Buffer.from(secret.slice('whsec_'.length), 'base64'))
  }
}

/** The settings the two benches start their instances with (scripts/bench/settings.ts). */
export interface InstanceSettings {
  DATABASE_URL: string, BENCH_DB: string, BENCH_KEEP_DB: boolean, REDIS_URL: string, DB_POOL_MAX: number
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

  private readonly options: ServiceInstancesOptions
  private readonly receiver: HttpServer

  constructor (options: ServiceInstancesOptions, receiver: HttpServer) {
    this.options = options
    this.receiver = receiver
    this.url = databaseUrl(options.serverUrl, options.database)
  }

  static fromSettings (settings: InstanceSettings, log: (message: string) => void, receiver: HttpServer) {
    return new ServiceInstances({
      serverUrl: settings.DATABASE_URL,
      database: settings.BENCH_DB,
      keepDatabase: settings.BENCH_KEEP_DB,
      redisUrl: settings.REDIS_URL,
      poolMax: settings.DB_POOL_MAX,
      log
    }, receiver)
  }

  /**
   * Runs the bench's `main` with everything torn down at exit or past `deadlineMs`;
   * exits 0, or 1 once its failure is logged.
   */
  run (deadlineMs: number, main: () => Promise<void>) {
    cleanUpOnExit(deadlineMs, () => this.cleanup())
    main().then(() => process.exit(0), async (err) => {
      this.options.log(`FAILED: ${err instanceof Error ? err.message : String(err)}`)
      await this.cleanup()
      process.exit(1)
    })
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
