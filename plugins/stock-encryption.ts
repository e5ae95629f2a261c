// The key that encrypts values, in stock and delivered, as `fastify.stockCipher`
// (lib/embedded/stock-key.ts): null on Postgres without VALUES_ENCRYPTION_KEY (a
// start the configuration refuses unless VALUES_IN_CLEAR=true), when the stock calls
// that store or reveal a value answer 503 naming the variable (docs/stock.md) and
// delivered values are stored plain (docs/security.md).
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { deprecatedKeyVariables, stockCipherFor } from '../lib/embedded/stock-key.js'
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
  if (!cipher) {
    fastify.log.warn(`VALUES_IN_CLEAR=true and ${KEY_VARIABLE} is not set: delivered values are stored ` +
      'unencrypted, and stock values cannot be stored or delivered, until it is (docs/security.md)')
  }
  for (const name of deprecatedKeyVariables(fastify.config)) {
    fastify.log.warn(`${name} is deprecated: set the new name instead (docs/configuration.md)`)
  }
  fastify.decorate('stockCipher', cipher)
  fastify.decorate('requireStockCipher', function requireStockCipher () {
    if (cipher) return cipher
    throw new ApiError('SERVICE_UNAVAILABLE', 'Stock values cannot be stored or read: the operator has not ' +
      `set ${KEY_VARIABLE} (the base64 of 32 bytes).`)
  })
}

export default fp(stockCipherPlugin, { name: 'stock-cipher', dependencies: ['config', 'errors'] })
