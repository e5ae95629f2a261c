// What can be read off a thrown value, whatever its shape: its `code` only when
// that is a string (a DOMException's, an abort's, is a number; many errors have
// none; anything can be thrown, null too) and a text that never throws.

/** The thrown value's `code` when it is a string; undefined for any other code or value. */
export function stringCode (err: unknown): string | undefined {
  try {
    const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined
    return typeof code === 'string' ? code : undefined
  } catch {
    // A getter that throws.
    return undefined
  }
}

/** The value of `table` under the thrown value's string code, never one of Object.prototype's members. */
export function byCode<T> (table: Record<string, T>, err: unknown): T | undefined {
  const code = stringCode(err)
  return code !== undefined && Object.hasOwn(table, code) ? table[code] : undefined
}

/** The thrown value's message (else its text), at most `max` characters; `fallback` when neither can be read. */
export function errorText (err: unknown, fallback: string, max = 300): string {
  try {
    const message = typeof err === 'object' && err !== null ? (err as { message?: unknown }).message : undefined
    const text = typeof message === 'string' && message !== '' ? message : String(err)
    return text === '' ? fallback : text.slice(0, max)
  } catch {
    // No toString (Object.create(null)), or one that throws.
    return fallback
  }
}
