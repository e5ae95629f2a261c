// The success envelope's `data`, or the failure as a SellerApiError.
import { SellerApiError } from './errors.js'

/** What the success envelope `{success: true, data}` carries. */
export type Unwrapped<T> = T extends { success: true, data: infer D } ? D : never

/**
 * The `data` of a call's success envelope; a failed call throws
 * SellerApiError (a network failure after the retries: code NETWORK_ERROR).
 */
export async function unwrap<T> (call: Promise<{
  data?: T,
  error?: unknown,
  response: Response
}>): Promise<Unwrapped<T>> {
  let result: { data?: T, error?: unknown, response: Response }
  try {
    result = await call
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err
    throw new SellerApiError(0, 'NETWORK_ERROR', `The service could not be reached: ${(err as Error).message}`)
  }
  if (!result.response.ok) throw SellerApiError.from(result.response, result.error)
  return (result.data as { data: Unwrapped<T> }).data
}
