// JSON request bodies: parsed with prototype-poisoning protection (as Fastify's
// default parser), an empty body counts as no body, and text with a NUL
// character (Postgres cannot store it), absurdly deep nesting or more values than
// any legal body has is refused up front, before validation walks it (an 8 MB
// array of zeros made Ajv report four million errors).
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import sjson from 'secure-json-parse'
import { ApiError } from '../domain/errors.js'

/** Deeper than any body of this API; deeper ones are refused before anything walks them recursively. */
const MAX_DEPTH = 32
/** Values (objects, arrays, strings, numbers…) in one body: twice the largest legal product's ~23 000. */
export const MAX_VALUES = 50_000

/**
 * The first problem of a parsed body: a string (or key) holding a NUL, nesting
 * deeper than MAX_DEPTH, or more than MAX_VALUES values (counted as each object
 * or array is opened, before its items are visited). Walked without recursion,
 * so no body can overflow the stack.
 */
function findProblem (body: unknown): { path: string, message: string } | null {
  const pending: Array<[unknown, string, number]> = [[body, '', 0]]
  let values = 1
  while (pending.length > 0) {
    const [value, path, depth] = pending.pop()!
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return { path, message: 'must not contain the NUL character' }
    } else if (value !== null && typeof value === 'object') {
      if (depth >= MAX_DEPTH) return { path, message: `is nested deeper than ${MAX_DEPTH} levels` }
      const keys = Array.isArray(value) ? null : Object.keys(value)
      values += keys === null ? (value as unknown[]).length : keys.length
      if (values > MAX_VALUES) return { path: '', message: `holds more than ${MAX_VALUES} values` }
      if (keys === null) {
        (value as unknown[]).forEach((item, i) => pending.push([item, path ? `${path}.${i}` : String(i), depth + 1]))
        continue
      }
      for (const key of keys) {
        const itemPath = path ? `${path}.${key}` : key
        if (key.includes('\u0000')) return { path: itemPath, message: 'must not contain the NUL character' }
        pending.push([(value as Record<string, unknown>)[key], itemPath, depth + 1])
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
      return done(new ApiError('VALIDATION_ERROR', 'The request body is not valid JSON.'), undefined)
    }
    const problem = findProblem(parsed)
    if (problem) {
      const path = problem.path ? `body.${problem.path}` : 'body'
      return done(new ApiError('VALIDATION_ERROR', `Invalid request: ${path} ` +
        `${problem.message}.`, [{ path, message: problem.message }]), undefined)
    }
    done(null, parsed)
  })
}

export default fp(jsonBodyPlugin, { name: 'json-body' })
