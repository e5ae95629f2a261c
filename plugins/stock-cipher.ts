// The key that encrypts stock values, as `fastify.stockCipher` (db/stock-key.ts):
// null on Postgres without STOCK_ENCRYPTION_KEY, when the calls that store or
// reveal a value answer 503 naming the variable (docs/stock.md).
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { stockCipherFor } from '../db/stock-key.js'
import { KEY_VARIABLE, type StockCipher } from '../domain/stock-cipher.js'
import { ApiError } from '../domain/errors.js'

declare module 'fastify' {
  interface FastifyInstance {
    stockCipher: StockCipher | null
    /** The cipher, or a 503 that tells the operator which variable to set. */
    requireStockCipher: () => StockCipher
  }
}

async function stockCipherPlugin (fastify: FastifyInstance) {
  const cipher = stockCipherFor(fastify.config)
  if (!cipher) fastify.log.warn(`${KEY_VARIABLE} is not set: stock values cannot be stored or delivered until it is`)
  fastify.decorate('stockCipher', cipher)
  fastify.decorate('requireStockCipher', function requireStockCipher () {
    if (cipher) return cipher
    throw new ApiError(503, 'SERVICE_UNAVAILABLE', `Stock values cannot be stored or read: the operator has not set ${KEY_VARIABLE} (the base64 of 32 bytes).`)
  })
}

export default fp(stockCipherPlugin, { name: 'stock-cipher', dependencies: ['config', 'errors'] })
