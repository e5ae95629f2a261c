#!/usr/bin/env node
// Operator commands over the same data layer as the service:
//   npm run cli -- <command> [arguments] [--json]      (or: node dist/cli.js …)
// Results come in the operator API's shapes (money as numbers, the order view):
// as readable lines, or with --json as the API's `data` object, for scripts.
// Arguments are checked before the database opens. It opens the database the
// service would (DATABASE_URL, else the embedded one in DATA_DIR, which it
// refuses while a running server holds it) and applies pending migrations first.
import { parseArgs } from 'node:util'
import { apiKeyView, createApiKey, listApiKeys } from './db/shops/api-keys.js'
import { revokeApiKeyNotifying } from './services/shops/api-keys.js'
import { openDatabase, type Db } from './db/core/client.js'
import { currencyRateView, upsertCurrencyRate } from './db/catalog/currency-rates.js'
import { confirmOrder } from './db/orders/orders.js'
import { createPurchase } from './db/orders/purchase.js'
import { seedDemoShop } from './services/embedded/demo.js'
import { explainOpenFailure } from './db/core/open-failure.js'
import { createShop, findShop } from './db/shops/shops.js'
import { stockCipherFor } from './lib/embedded/stock-key.js'
import { reencryptStock } from './db/stock/reencrypt.js'
import { createRedisClient } from './plugins/redis.js'
import { IDEMPOTENCY_REDIS_PREFIX, resealRedisRecords } from './plugins/idempotency-store.js'
import { reencryptDeliveredValues, type PlaceProgress } from './db/orders/reencrypt.js'
import { seedTaxonomy } from './db/catalog/taxonomy.js'
import { isUuid } from './domain/ids.js'
import { revealOrder } from './domain/delivered-values.js'
import { rateToDecimal, toScaled } from './domain/money.js'
import { ConfigError, loadConfig } from './plugins/config.js'
import { ApiError } from './domain/errors.js'
import { CurrencyCodeSchema } from './schemas/catalog.js'
import type { Order } from './schemas/orders.js'

const PROGRAM = 'shop-seller-api'

class UsageError extends Error {}

/** A command: `parse` checks the arguments (no database yet), `run` does the job, `print` shows it to a person. */
interface Command<I, O> {
  usage: string
  summary: string
  help: string
  parse: (args: string[]) => I
  run: (db: Db, input: I) => Promise<O>
  print: (output: O) => string
}

const command = <I, O>(c: Command<I, O>) => c as unknown as Command<unknown, unknown>

const currencyCode = new RegExp(CurrencyCodeSchema.pattern!)
const MAX_RATE = 1_000_000_000n * 1_000_000n

function uuid (value: string | undefined, what: string): string {
  if (!value || !isUuid(value)) throw new UsageError(`${what} (a UUID) is required`)
  return value
}

function text (value: string | undefined, what: string): string {
  if (!value?.trim()) throw new UsageError(`${what} is required`)
  return value.trim()
}

function exactly (args: string[], count: number) {
  if (args.length > count) throw new UsageError(`unexpected argument "${args[count]}"`)
}

async function requireShop (db: Db, shopId: string) {
  if (!await findShop(db, shopId)) throw new ApiError('ORDER_NOT_FOUND', `Shop ${shopId} not found.`)
}

type ApiKey = ReturnType<typeof apiKeyView>
const keyLine = (k: ApiKey) => `${k.id}  ${k.prefix}…  ${k.name}  created ${k.createdAt}` +
  (k.lastUsedAt ? `  last used ${k.lastUsedAt}` : '') + (k.revokedAt ? `  REVOKED ${k.revokedAt}` : '')
const orderLines = (o: Order) => [
  `order ${o.id}: ${o.status}`,
  `  ${o.quantity} × ${o.productTitle} (product ${o.productId}), ${o.amount} RUB, placed ${o.createdAt}`,
  ...o.fieldValues.map((f) => `  ${f.label}: ${f.value}`)
].join('\n')

/** The totals (all places) and each place's count: done, and left (held by running requests). */
interface ReencryptResult { keyId: string, reencrypted: number, remaining: number, places: PlaceProgress[] }

/** Everything the values key protects, encrypted again under the current key (docs/security.md). */
function reencryptCommand (name: string, note = '') {
  return command({
    usage: `${name} [batchSize]`,
    summary: `Encrypt every value at rest under the current VALUES_ENCRYPTION_KEY${note}`,
    help: 'Stock items, orders\' delivered values, the events that carry them and the idempotency records ' +
      '(database, Redis)\n' +
      'written under VALUES_ENCRYPTION_KEY_PREVIOUS (set it to the old key), or in clear by a release before this\n' +
      'encryption, are read and written again under the current key, batchSize (default 500) per transaction.\n' +
      'Safe while the service runs; stopped, it resumes where it was. Progress on stderr.\n',
    parse: (args) => {
      exactly(args, 1)
      const batchSize = args[0] === undefined ? 500 : Number(args[0])
      if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) {
        throw new UsageError('batchSize must be an integer from 1 to 10000')
      }
      return batchSize
    },
    run: async (db, batchSize: number): Promise<ReencryptResult> => {
      const config = loadConfig()
      const cipher = stockCipherFor(config)
      if (!cipher) {
        throw new ApiError('SERVICE_UNAVAILABLE', 'VALUES_ENCRYPTION_KEY is not set: there is no key to encrypt under.')
      }
      const onProgress = ({ place, done, remaining }: PlaceProgress) => process.stderr.write(`${place}: ` +
        `${done} done, ${remaining} to go\n`)
      const stock = await reencryptStock(db, cipher,
        { batchSize, onProgress: (p) => onProgress({ place: 'stock items', ...p }) })
      const places = await reencryptDeliveredValues(db, cipher, { batchSize, onProgress })
      const all = [{ place: 'stock items', ...stock }, ...places]
      const redis = createRedisClient(config, { lazyConnect: true, maxRetriesPerRequest: 1 })
      if (redis) {
        const place = 'redis idempotency records'
        try {
          await redis.connect()
          const resealed = await resealRedisRecords(redis, `${config.REDIS_PREFIX}${IDEMPOTENCY_REDIS_PREFIX}`, cipher,
            (done) => onProgress({ place, done, remaining: 0 }))
          all.push({ place, ...resealed })
        } finally {
          redis.disconnect()
        }
      }
      const sum = (count: (p: PlaceProgress) => number) => all.reduce((total, p) => total + count(p), 0)
      return { keyId: cipher.keyId, reencrypted: sum((p) => p.done), remaining: sum((p) => p.remaining), places: all }
    },
    print: ({ keyId, places }: ReencryptResult) => {
      const left = places.filter((p) => p.remaining > 0)
      return places.map((p) => `${p.place}: encrypted ${p.done} under key ${keyId}`).join('\n') + '\n' +
        (left.length === 0
          ? 'none left under another key'
          : `${left.map((p) => `${p.remaining} ${p.place}`).join(', ')} held by running requests: run it again`)
    }
  })
}

const commands: Record<string, Command<unknown, unknown>> = {
  'shop:create': command({
    usage: 'shop:create <name>',
    summary: 'Create a shop',
    help: 'Creates a shop, like POST /internal/v1/shops. Output: {shop}.',
    parse: (args) => { exactly(args, 1); return text(args[0], 'a shop name') },
    run: async (db, name: string) => {
      const shop = await createShop(db, name)
      return { shop: { ...shop, createdAt: shop.createdAt.toISOString() } }
    },
    print: ({ shop }) => `shop ${shop.id} "${shop.name}" created ${shop.createdAt}`
  }),
  'key:create': command({
    usage: 'key:create <shopId> <name>',
    summary: 'Create an API key (the secret is printed once)',
    help: 'Creates an API key, like POST /internal/v1/shops/{shopId}/api-keys. Output: {apiKey, secret}; only ' +
      'the hash of the secret is kept.',
    parse: (args) => {
      exactly(args, 2); return {
        shopId: uuid(args[0], 'a shop id'),
        name: text(args[1], 'a key name')
      }
    },
    run: async (db, { shopId, name }) => {
      await requireShop(db, shopId)
      const { apiKey, secret } = await createApiKey(db, shopId, name)
      return { apiKey: apiKeyView(apiKey), secret }
    },
    print: ({ apiKey, secret }) => `${keyLine(apiKey)}\nsecret: ${secret}   (shown only now)`
  }),
  'key:list': command({
    usage: 'key:list <shopId>',
    summary: 'List a shop\'s API keys (never the secrets)',
    help: 'Lists a shop\'s API keys, like GET /internal/v1/shops/{shopId}/api-keys. Output: {apiKeys}.',
    parse: (args) => { exactly(args, 1); return uuid(args[0], 'a shop id') },
    run: async (db, shopId: string) => {
      await requireShop(db, shopId)
      return { apiKeys: (await listApiKeys(db, shopId)).map(apiKeyView) }
    },
    print: ({ apiKeys }) => apiKeys.length ? apiKeys.map(keyLine).join('\n') : '(no keys)'
  }),
  'key:revoke': command({
    usage: 'key:revoke <shopId> <keyId>',
    summary: 'Revoke an API key (effective on the next request)',
    help: 'Revokes an API key on every instance at once, like POST ' +
      '/internal/v1/shops/{shopId}/api-keys/{keyId}/revoke. Output: {apiKey}.',
    parse: (args) => {
      exactly(args, 2); return {
        shopId: uuid(args[0], 'a shop id'),
        keyId: uuid(args[1], 'a key id')
      }
    },
    run: async (db, { shopId, keyId }) => {
      const apiKey = await revokeApiKeyNotifying({ db }, shopId, keyId)
      // Running instances hear of it from Postgres, in the same commit (db/shops/api-keys.ts): no Redis needed.
      if (!apiKey) throw new ApiError('ORDER_NOT_FOUND', `API key ${keyId} of shop ${shopId} not found.`)
      return { apiKey: apiKeyView(apiKey) }
    },
    print: ({ apiKey }) => keyLine(apiKey)
  }),
  'rate:set': command({
    usage: 'rate:set <shopId> <code> <rate>',
    summary: 'Create or update a currency rate (rubles per unit)',
    help: 'Sets a shop\'s rate, like PUT /internal/v1/shops/{shopId}/currency-rates/{code}. <code>: ' +
      `${CurrencyCodeSchema.description} <rate>: rubles per unit, above 0 and at most 1 000 000 000, up to 6 ` +
        'decimals. Output: {rate}.',
    parse: (args) => {
      exactly(args, 3)
      const [shopId, code, rate] = args
      if (!code || !currencyCode.test(code)) throw new UsageError(CurrencyCodeSchema.description!)
      let scaled: bigint
      try { scaled = toScaled(rate ?? '', 6) } catch {
        throw new UsageError('the rate is a decimal with at most 6 decimals')
      }
      if (scaled <= 0n || scaled > MAX_RATE) throw new UsageError('the rate must be above 0 and at most 1 000 000 000')
      return { shopId: uuid(shopId, 'a shop id'), code, rate: rateToDecimal(rate) }
    },
    run: async (db, { shopId, code, rate }) => {
      await requireShop(db, shopId)
      return { rate: currencyRateView(await upsertCurrencyRate(db, shopId, code, rate)) }
    },
    print: ({ rate }) => `1 ${rate.code} = ${rate.rate} RUB (rate ${rate.id}, updated ${rate.updatedAt})`
  }),
  'order:purchase': command({
    usage: 'order:purchase <productId> [quantity] [fieldId=value …]',
    summary: 'Place a buyer\'s paid order (select fields take option ids)',
    help: 'Places a paid order as a buyer would, like POST /internal/v1/orders. quantity: 1–1000 (default 1). ' +
      'Each required field needs fieldId=value; a select field takes option ids, comma-separated when ' +
        'multiple. Output: {order}.',
    parse: ([productId, quantity = '1', ...values]) => {
      if (!/^\d+$/.test(quantity)) throw new UsageError('the quantity is a whole number')
      const fieldValues = values.map((pair) => {
        const at = pair.indexOf('=')
        if (at < 1) throw new UsageError(`field values are fieldId=value, not "${pair}"`)
        return { fieldId: pair.slice(0, at), value: pair.slice(at + 1) }
      })
      return { productId: uuid(productId, 'a product id'), quantity: Number(quantity), fieldValues }
    },
    run: async (db, input) => {
      const cipher = stockCipherFor(loadConfig())
      return { order: revealOrder(await createPurchase(db, input, { cipher }), cipher) }
    },
    print: ({ order }) => orderLines(order)
  }),
  'order:confirm': command({
    usage: 'order:confirm <orderId>',
    summary: 'The buyer confirms receipt: awaiting_confirmation -> completed, shop credited',
    help: 'Confirms receipt as the buyer, like POST /internal/v1/orders/{id}/confirm. Output: {order}.',
    parse: (args) => { exactly(args, 1); return uuid(args[0], 'an order id') },
    run: async (db,
      orderId: string) => ({ order: revealOrder(await confirmOrder(db, orderId), stockCipherFor(loadConfig())) }),
    print: ({ order }) => orderLines(order)
  }),
  'values:reencrypt': reencryptCommand('values:reencrypt'),
  // Its name while the key covered stock only: the same command.
  'stock:reencrypt': reencryptCommand('stock:reencrypt', ' (deprecated name of values:reencrypt)'),
  'seed:demo': command({
    usage: 'seed:demo [shop name]',
    summary: 'Create a demo shop with a USD rate, an external product and an API key',
    help: 'Seeds the category taxonomy (if missing) and a demo shop. Output: {shopId, productId, secret}.',
    parse: (args) => { exactly(args, 1); return args[0]?.trim() || 'Demo shop' },
    run: async (db, name: string) => {
      await seedTaxonomy(db)
      return seedDemoShop(db, name)
    },
    print: ({ shopId, productId, secret }) => `demo shop ${shopId}\nproduct  ${productId}\nAPI key  ${secret} ` +
      '  (shown only now)'
  })
}

function usage (): string {
  const width = Math.max(...Object.values(commands).map((c) => c.usage.length))
  return [`Usage: ${PROGRAM} <command> [arguments] [--json]`, `       ${PROGRAM} <command> --help`, '',
    'Also run as `npm run cli -- …` (sources) or `node dist/cli.js …` (a build).', '', 'Commands:',
    ...Object.values(commands).map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`), '',
    'Options:', '  --json   print the result as JSON in the operator API\'s shape (the `data` object)',
    '  --help   this text, or a command\'s own'].join('\n')
}

const commandHelp = (c: Command<unknown, unknown>) => `Usage: ${PROGRAM} ${c.usage} ` +
  `[--json]\n\n${c.summary}.\n${c.help}`

/** The command line, by node:util's parseArgs: options anywhere, `--` before a value that starts with `-`. */
function parseCommandLine (argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }
  })
  return { json: values.json === true, wantsHelp: values.help === true, positionals }
}

async function main (argv: string[]): Promise<number> {
  let line: ReturnType<typeof parseCommandLine>
  try {
    line = parseCommandLine(argv)
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message}\n\n${usage()}\n`)
    return 2
  }
  const { json, wantsHelp } = line
  const [name, ...args] = line.positionals
  const selected = name ? commands[name] : undefined
  if (!selected) {
    if (name && name !== 'help') {
      process.stderr.write(`error: unknown command "${name}"\n\n${usage()}\n`)
      return 2
    }
    process.stdout.write(usage() + '\n')
    return 0
  }
  if (wantsHelp) {
    process.stdout.write(commandHelp(selected) + '\n')
    return 0
  }
  let input: unknown
  try {
    input = selected.parse(args)
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    process.stderr.write(`error: ${err.message}\nusage: ${PROGRAM} ${selected.usage}   (${PROGRAM} ${name} --help)\n`)
    return 2
  }

  const config = loadConfig()
  let database
  try {
    database = await openDatabase({
      url: config.DATABASE_URL,
      directUrl: config.DATABASE_DIRECT_URL,
      preparedStatements: config.DB_PREPARED_STATEMENTS,
      dataDir: config.DATA_DIR,
      poolMax: 1
    })
    await database.migrate()
  } catch (err) {
    const reason = explainOpenFailure(err, { url: config.DATABASE_URL, dataDir: config.DATA_DIR })
    if (!reason) throw err
    await database?.close()
    process.stderr.write(`error: ${reason}\n`)
    return 1
  }
  try {
    const output = await selected.run(database.db, input)
    process.stdout.write((json ? JSON.stringify(output, null, 2) : selected.print(output)) + '\n')
    return 0
  } catch (err) {
    if (!(err instanceof ApiError)) throw err
    const details = err.details?.map((d) => `\n  ${d.path}: ${d.message}`).join('') ?? ''
    process.stderr.write(`error: ${err.code}: ${err.message}${details}\n`)
    return 1
  } finally {
    await database.close()
  }
}

main(process.argv.slice(2)).then((code) => { process.exitCode = code }, (err) => {
  // Operator-fixable failures are one line; anything else keeps its stack.
  process.stderr.write(err instanceof ConfigError ? `${err.message}\n` : `${err instanceof Error ? err.stack : err}\n`)
  process.exitCode = 1
})
