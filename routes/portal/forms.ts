// From a page's form to the API's body: the form's fields are read as the text
// they are, turned into the body the /v1 (or operator) call takes, and checked
// against that call's own TypeBox schema with the API's own validator, so the
// rules and the messages are the API's.
import type { TSchema } from '@sinclair/typebox'
import type { Static } from '@sinclair/typebox'
import { ApiError } from '../../domain/errors.js'
import { invalidRequest } from '../../plugins/errors.js'
import { bodyValidator } from '../../plugins/validation.js'

export type Form = Record<string, string | string[] | undefined>

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

/** `body` checked against `schema` as the API checks it: the API's 400 when it breaks a rule. */
export function validated<T extends TSchema> (schema: T, body: unknown): Static<T> {
  const validate = bodyValidator(schema)
  if (!validate(body)) throw invalidRequest(validate.errors as never)
  return body as Static<T>
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
