// JSON request bodies: parsed with prototype-poisoning protection (as Fastify's
// default parser), an empty body counts as no body, and text with a NUL
// character is refused up front because Postgres cannot store it.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import sjson from 'secure-json-parse'
import { ApiError } from './errors.js'

function findNul (value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('\u0000')) return path
      const found = findNul(item, path ? `${path}.${key}` : key)
      if (found !== null) return found
    }
  }
  return null
}

async function jsonBodyPlugin (fastify: FastifyInstance) {
  fastify.removeContentTypeParser('application/json')
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, function parseJson (_request, body, done) {
    const text = body as string
    if (text.trim() === '') return done(null, undefined)
    let parsed: unknown
    try {
      parsed = sjson.parse(text, null, { protoAction: 'error', constructorAction: 'error' })
    } catch {
      return done(new ApiError(400, 'VALIDATION_ERROR', 'The request body is not valid JSON.'), undefined)
    }
    // Cheap pre-check: only bodies that spell a NUL escape are walked.
    if (/\\u0000/i.test(text)) {
      const path = findNul(parsed, '')
      if (path !== null) {
        return done(new ApiError(400, 'VALIDATION_ERROR', 'Text must not contain the NUL character (\\u0000).', [{ path: path ? `body.${path}` : 'body', message: 'must not contain the NUL character' }]), undefined)
      }
    }
    done(null, parsed)
  })
}

export default fp(jsonBodyPlugin, { name: 'json-body' })
