// JSON request bodies: parsed with prototype-poisoning protection (as Fastify's
// default parser), an empty body counts as no body, and text with a NUL
// character (Postgres cannot store it) or absurdly deep nesting is refused up front.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import sjson from 'secure-json-parse'
import { ApiError } from './errors.js'

/** Deeper than any body of this API; deeper ones are refused before anything walks them recursively. */
const MAX_DEPTH = 32

/**
 * The first problem of a parsed body: a string (or key) holding a NUL, or nesting
 * deeper than MAX_DEPTH. Walked without recursion, so no body can overflow the stack.
 */
function findProblem (body: unknown): { path: string, message: string } | null {
  const pending: Array<[unknown, string, number]> = [[body, '', 0]]
  while (pending.length > 0) {
    const [value, path, depth] = pending.pop()!
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return { path, message: 'must not contain the NUL character' }
    } else if (value !== null && typeof value === 'object') {
      if (depth >= MAX_DEPTH) return { path, message: `is nested deeper than ${MAX_DEPTH} levels` }
      for (const [key, item] of Object.entries(value)) {
        const itemPath = path ? `${path}.${key}` : key
        if (key.includes('\u0000')) return { path: itemPath, message: 'must not contain the NUL character' }
        pending.push([item, itemPath, depth + 1])
      }
    }
  }
  return null
}

async function jsonBodyPlugin (fastify: FastifyInstance) {
  // JSON only: Fastify's default text/plain parser would let any text through as a body.
  fastify.removeContentTypeParser(['application/json', 'text/plain'])
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, function parseJson (_request, body, done) {
    const text = body as string
    if (text.trim() === '') return done(null, undefined)
    let parsed: unknown
    try {
      parsed = sjson.parse(text, null, { protoAction: 'error', constructorAction: 'error' })
    } catch {
      return done(new ApiError(400, 'VALIDATION_ERROR', 'The request body is not valid JSON.'), undefined)
    }
    const problem = findProblem(parsed)
    if (problem) {
      const path = problem.path ? `body.${problem.path}` : 'body'
      return done(new ApiError(400, 'VALIDATION_ERROR', `Invalid request: ${path} ${problem.message}.`, [{ path, message: problem.message }]), undefined)
    }
    done(null, parsed)
  })
}

export default fp(jsonBodyPlugin, { name: 'json-body' })
