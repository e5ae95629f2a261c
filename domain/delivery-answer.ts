// How an answer of the shop's delivery endpoint is judged (docs/delivery-endpoint.md):
// HTTP 200 with JSON `{"values": [...]}`, 1–100 strings of 1–10 000 characters,
// as the deliver call takes. Every problem is said in words that never quote a
// value, since the seller's log and the test call show them.

/** A delivery request's status (docs/delivery-endpoint.md). */
export const deliveryRequestStatuses = ['pending', 'succeeded', 'failed', 'discarded'] as const
export type DeliveryRequestStatus = typeof deliveryRequestStatuses[number]

export const MAX_ANSWER_VALUES = 100
export const MAX_ANSWER_VALUE_LENGTH = 10_000
/**
 * Read at most this much of an answer: 100 values of 10 000 characters, each
 * character escaped as `\uXXXX` at worst, with room to spare.
 */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024

/** What came back from one attempt. */
export interface EndpointAnswer {
  /** The HTTP status; null when no answer came. */
  statusCode: number | null
  /** The answer's body (null when none came); `tooLarge` when it was cut off. */
  body: string | null
  tooLarge: boolean
  /** Why no answer came (timeout, refused address, …); null when one did. */
  error: string | null
}

export type AnswerJudgement =
  | { ok: true, values: string[], problems: [] }
  /** `final`: the endpoint said it cannot supply (409 / 422): no further attempt. */
  | { ok: false, final: boolean, error: string, problems: string[], valuesCount: number | null }

function fail (problems: string[], final = false, valuesCount: number | null = null): AnswerJudgement {
  return { ok: false, final, error: problems.join(' '), problems, valuesCount }
}

export function judgeAnswer (answer: EndpointAnswer): AnswerJudgement {
  const status = answer.statusCode
  if (status === null) return fail([answer.error ?? 'No answer.'])
  if (status === 409 || status === 422) {
    return fail([`HTTP ${status}: the endpoint cannot supply this order; ` +
    'no further attempt.'], true)
  }
  if (status >= 300 && status < 400) {
    return fail([`HTTP ${status}: redirects are not followed; answer HTTP ` +
    '200 from the URL itself.'])
  }
  if (status !== 200) return fail([`HTTP ${status}: a successful answer is HTTP 200.`])
  if (answer.tooLarge) return fail([`The answer is larger than ${MAX_ANSWER_BYTES} bytes.`])
  let parsed: unknown
  try {
    parsed = JSON.parse(answer.body ?? '')
  } catch {
    return fail(['The answer is not JSON; expected {"values": [...]}.'])
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return fail(['The answer is not a JSON object; expected {"values": [...]}.'])
  }
  const values = (parsed as { values?: unknown }).values
  if (!Array.isArray(values)) return fail(['The answer has no "values" array.'])
  const problems: string[] = []
  if (values.length === 0) problems.push('"values" is empty; give 1 to 100 values.')
  if (values.length > MAX_ANSWER_VALUES) {
    problems.push(`"values" has ${values.length} values; at most ${MAX_ANSWER_VALUES}.`)
  }
  const notStrings = values.filter((v) => typeof v !== 'string').length
  if (notStrings > 0) problems.push(`${notStrings} of the values ${notStrings === 1 ? 'is' : 'are'} not a string.`)
  const strings = values.filter((v): v is string => typeof v === 'string')
  const empty = strings.filter((v) => v.length === 0).length
  if (empty > 0) problems.push(`${empty} of the values ${empty === 1 ? 'is' : 'are'} empty.`)
  const long = strings.filter((v) => v.length > MAX_ANSWER_VALUE_LENGTH).length
  if (long > 0) {
    problems.push(`${long} of the values ${long === 1 ? 'is' : 'are'} longer than ` +
    `${MAX_ANSWER_VALUE_LENGTH} characters.`)
  }
  if (problems.length > 0) return fail(problems, false, values.length)
  return { ok: true, values: strings, problems: [] }
}
