// Operator commands over the same data layer as the service:
//   npm run cli -- <command> [arguments]
// It opens the database the service would (DATABASE_URL, else the embedded one in
// DATA_DIR) and applies pending migrations first. The embedded database belongs
// to one process at a time: stop the server before using the CLI on it.
import { Redis } from 'ioredis'
import { createApiKey, listApiKeys, revokeApiKey } from './db/api-keys.js'
import { openDatabase, type Db } from './db/client.js'
import { upsertCurrencyRate } from './db/currency-rates.js'
import { confirmOrder, createPurchase } from './db/orders.js'
import { seedDemoShop } from './db/demo.js'
import { createShop, findShop } from './db/shops.js'
import { seedTaxonomy } from './db/taxonomy.js'
import { isUuid } from './domain/ids.js'
import { rateToDecimal, toScaled } from './domain/money.js'
import { publishRevocation } from './plugins/api-key-cache.js'
import { loadConfig } from './plugins/config.js'
import { ApiError } from './plugins/errors.js'
import { CurrencyCodeSchema } from './schemas/catalog.js'

interface Command {
  usage: string
  summary: string
  run: (db: Db, args: string[]) => Promise<unknown>
}

class UsageError extends Error {}

const currencyCode = new RegExp(CurrencyCodeSchema.pattern!)
const MAX_RATE = 1_000_000_000n * 1_000_000n

async function requireShop (db: Db, shopId: string | undefined) {
  if (!shopId || !isUuid(shopId)) throw new UsageError('a shop id (UUID) is required')
  const shop = await findShop(db, shopId)
  if (!shop) throw new UsageError(`no shop ${shopId}`)
  return shop
}

const commands: Record<string, Command> = {
  'shop:create': {
    usage: 'shop:create <name>',
    summary: 'Create a shop',
    async run (db, [name]) {
      if (!name?.trim()) throw new UsageError('a shop name is required')
      return { shop: await createShop(db, name.trim()) }
    }
  },
  'key:create': {
    usage: 'key:create <shopId> <name>',
    summary: 'Create an API key (the secret is printed once)',
    async run (db, [shopId, name]) {
      await requireShop(db, shopId)
      if (!name?.trim()) throw new UsageError('a key name is required')
      return createApiKey(db, shopId, name.trim())
    }
  },
  'key:list': {
    usage: 'key:list <shopId>',
    summary: 'List a shop\'s API keys (never the secrets)',
    async run (db, [shopId]) {
      await requireShop(db, shopId)
      return { apiKeys: await listApiKeys(db, shopId) }
    }
  },
  'key:revoke': {
    usage: 'key:revoke <shopId> <keyId>',
    summary: 'Revoke an API key (effective on the next request)',
    async run (db, [shopId, keyId]) {
      await requireShop(db, shopId)
      if (!keyId || !isUuid(keyId)) throw new UsageError('a key id (UUID) is required')
      const apiKey = await revokeApiKey(db, shopId, keyId)
      if (!apiKey) throw new UsageError(`no key ${keyId} in shop ${shopId}`)
      // Running instances cache keys and learn of revocations through Redis.
      const { REDIS_URL, REDIS_PREFIX } = loadConfig()
      if (REDIS_URL) {
        const redis = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 1 })
        try {
          await redis.connect()
          await publishRevocation(redis, REDIS_PREFIX)
        } catch (err) {
          throw new Error(`the key is revoked, but the running instances could not be told (Redis: ${(err as Error).message}); run this again`)
        } finally {
          redis.disconnect()
        }
      }
      return { apiKey }
    }
  },
  'rate:set': {
    usage: 'rate:set <shopId> <code> <rate>',
    summary: 'Create or update a currency rate (rubles per unit)',
    async run (db, [shopId, code, rate]) {
      await requireShop(db, shopId)
      if (!code || !currencyCode.test(code)) throw new UsageError(CurrencyCodeSchema.description!)
      let scaled: bigint
      try { scaled = toScaled(rate ?? '', 6) } catch { throw new UsageError('the rate is a decimal with at most 6 decimals') }
      if (scaled <= 0n || scaled > MAX_RATE) throw new UsageError('the rate must be above 0 and at most 1 000 000 000')
      return { rate: await upsertCurrencyRate(db, shopId, code, rateToDecimal(rate)) }
    }
  },
  'order:purchase': {
    usage: 'order:purchase <productId> [quantity] [fieldId=value …]',
    summary: 'Place a buyer\'s paid order (select fields take option ids)',
    async run (db, [productId, quantity = '1', ...values]) {
      if (!productId || !isUuid(productId)) throw new UsageError('a product id (UUID) is required')
      if (!/^\d+$/.test(quantity)) throw new UsageError('the quantity is a whole number')
      const fieldValues = values.map((pair) => {
        const at = pair.indexOf('=')
        if (at < 1) throw new UsageError(`field values are fieldId=value, not "${pair}"`)
        return { fieldId: pair.slice(0, at), value: pair.slice(at + 1) }
      })
      return { order: await createPurchase(db, { productId, quantity: Number(quantity), fieldValues }) }
    }
  },
  'order:confirm': {
    usage: 'order:confirm <orderId>',
    summary: 'The buyer confirms receipt: awaiting_confirmation -> completed, shop credited',
    async run (db, [orderId]) {
      if (!orderId || !isUuid(orderId)) throw new UsageError('an order id (UUID) is required')
      return { order: await confirmOrder(db, orderId) }
    }
  },
  'seed:demo': {
    usage: 'seed:demo [shop name]',
    summary: 'Create a demo shop with a USD rate, an external product and an API key',
    async run (db, [name]) {
      await seedTaxonomy(db)
      return seedDemoShop(db, name ?? 'Demo shop')
    }
  }
}

function help (): string {
  const width = Math.max(...Object.values(commands).map((c) => c.usage.length))
  return ['Usage: npm run cli -- <command> [arguments]', '', 'Commands:',
    ...Object.values(commands).map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`)].join('\n')
}

async function main (argv: string[]) {
  const [name, ...args] = argv
  const command = name ? commands[name] : undefined
  if (!command) {
    console.log(help())
    return name && name !== 'help' && name !== '--help' ? 2 : 0
  }
  const config = loadConfig()
  const database = await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR, poolMax: 1 })
  try {
    await database.migrate()
    const result = await command.run(database.db, args)
    console.log(JSON.stringify(result, null, 2))
    return 0
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`error: ${err.message}\nusage: npm run cli -- ${command.usage}`)
      return 2
    }
    if (err instanceof ApiError) {
      const details = err.details?.map((d) => `\n  ${d.path}: ${d.message}`).join('') ?? ''
      console.error(`error: ${err.code}: ${err.message}${details}`)
      return 1
    }
    throw err
  } finally {
    await database.close()
  }
}

main(process.argv.slice(2)).then((code) => { process.exitCode = code }, (err) => {
  console.error(err instanceof Error ? err.message : err)
  process.exitCode = 1
})
