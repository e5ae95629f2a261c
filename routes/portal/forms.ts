// From a page's form to the API's body: the form's fields are read as the text
// they are, turned into the body the /v1 (or operator) call takes, and checked
// against that call's own TypeBox schema with the API's own validator, so the
// rules and the messages are the API's.
import type { TSchema } from '@sinclair/typebox'
import { parse as parseQuery } from 'node:querystring'
import type { Static } from '@sinclair/typebox'
import { ApiError } from '../../domain/errors.js'
import { invalidRequest } from '../../plugins/errors.js'
import { bodyValidator } from '../../plugins/validation.js'

export type Form = Record<string, string | string[] | undefined>

/** A form field whose text is not UTF-8: refused whole (a page in UTF-8 never sends one), nothing stored. */
export class FieldNotUtf8 extends Error {
  readonly statusCode = 400
  readonly field: string
  constructor (field: string) {
    super(`The form field ${field} is not UTF-8 text.`)
    this.field = field
  }
}

/** A name or value as sent: raw bytes that were not UTF-8 arrive as U+FFFD; `%FF` does not decode. */
function isUtf8Part (part: string): boolean {
  if (part.includes('\uFFFD')) return false
  try {
    decodeURIComponent(part.replace(/\+/g, ' '))
    return true
  } catch {
    return false
  }
}

/** An urlencoded body (@fastify/formbody's parser): every name and value must be UTF-8, else FieldNotUtf8. */
export function parseUtf8Form (body: string): Form {
  for (const pair of body.split('&')) {
    const at = pair.indexOf('=')
    const name = at === -1 ? pair : pair.slice(0, at)
    if (!isUtf8Part(name) || !isUtf8Part(at === -1 ? '' : pair.slice(at + 1))) {
      throw new FieldNotUtf8(Object.keys(parseQuery(name))[0] ?? '')
    }
  }
  return { ...parseQuery(body) } as Form
}

/** The form as posted (urlencoded: repeated names are arrays). */
export const formOf = (body: unknown): Form => (body !== null && typeof body === 'object' ? body : {}) as Form

/** One field's text ('' when absent; the first when repeated). */
export function text (form: Form, name: string): string {
  const value = form[name]
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '')
}

/** A field that may repeat (checkboxes), as a list. */
export function list (form: Form, name: string): string[] {
  const value = form[name]
  return value === undefined ? [] : Array.isArray(value) ? value : [value]
}

const LIMITS = ['minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems', 'x-trimmed-length', 'pattern']

/** The schema of the value at `path` (`body.values.3` → the items of `values`), when the schema says. */
function schemaAt (schema: TSchema, path: string): Record<string, unknown> | undefined {
  let at: Record<string, unknown> | undefined = schema
  for (const segment of path.split('.').slice(1)) {
    const properties = at?.properties as Record<string, Record<string, unknown>> | undefined
    at = properties?.[segment] ?? (/^\d+$/.test(segment) ? at?.items as Record<string, unknown> : undefined)
  }
  return at
}

/**
 * `body` checked against `schema` as the API checks it: the API's 400 when it breaks a rule, each detail's rule
 * with the field's limits (so a page can say "1 to 200 characters" once, whichever limit was broken).
 */
export function validated<T extends TSchema> (schema: T, body: unknown): Static<T> {
  const validate = bodyValidator(schema)
  if (validate(body)) return body as Static<T>
  const error = invalidRequest(validate.errors as never)
  for (const detail of error.details ?? []) {
    const field = schemaAt(schema, detail.path)
    if (!detail.rule || !field) continue
    detail.rule.limits = Object.fromEntries(LIMITS.filter((name) => name in field).map((name) => [name, field[name]]))
  }
  throw error
}

/** Runs `action`; an ApiError it throws comes back as the value, for the page to show. */
export async function attempt<T> (
  action: () => Promise<T>
): Promise<{ ok: true; value: T } | { ok: false; error: ApiError }> {
  try {
    return { ok: true, value: await action() }
  } catch (err) {
    if (err instanceof ApiError) return { ok: false, error: err }
    throw err
  }
}
