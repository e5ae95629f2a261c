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

/**
 * What is wrong with an answer, as a kind and its numbers: the API says it in English (`problemText`), the
 * portal in the page's language from the same kind.
 */
export type AnswerProblem =
  | { kind: 'noAnswer', reason: string | null }
  | { kind: 'cannotSupply' | 'redirect' | 'status', status: number }
  | { kind: 'tooLarge', max: number }
  | { kind: 'notJson' | 'notObject' | 'noValuesArray' | 'emptyValues' }
  | { kind: 'tooManyValues', count: number, max: number }
  | { kind: 'notStrings' | 'emptyStrings', count: number }
  | { kind: 'tooLong', count: number, max: number }
export type AnswerProblemKind = AnswerProblem['kind']

export type AnswerJudgement =
  | { ok: true, values: string[], problems: [], findings: [] }
  /** `final`: the endpoint said it cannot supply (409 / 422): no further attempt. */
  | {
    ok: false, final: boolean, error: string, problems: string[], findings: AnswerProblem[], valuesCount: number | null
  }

const areIs = (count: number) => (count === 1 ? 'is' : 'are')

/** A problem in the API's (English) words. */
export function problemText (problem: AnswerProblem): string {
  switch (problem.kind) {
    case 'noAnswer': return problem.reason ?? 'No answer.'
    case 'cannotSupply': return `HTTP ${problem.status}: the endpoint cannot supply this order; no further attempt.`
    case 'redirect':
      return `HTTP ${problem.status}: redirects are not followed; answer HTTP 200 from the URL itself.`
    case 'status': return `HTTP ${problem.status}: a successful answer is HTTP 200.`
    case 'tooLarge': return `The answer is larger than ${problem.max} bytes.`
    case 'notJson': return 'The answer is not JSON; expected {"values": [...]}.'
    case 'notObject': return 'The answer is not a JSON object; expected {"values": [...]}.'
    case 'noValuesArray': return 'The answer has no "values" array.'
    case 'emptyValues': return '"values" is empty; give 1 to 100 values.'
    case 'tooManyValues': return `"values" has ${problem.count} values; at most ${problem.max}.`
    case 'notStrings': return `${problem.count} of the values ${areIs(problem.count)} not a string.`
    case 'emptyStrings': return `${problem.count} of the values ${areIs(problem.count)} empty.`
    case 'tooLong':
      return `${problem.count} of the values ${areIs(problem.count)} longer than ${problem.max} characters.`
  }
}

function fail (findings: AnswerProblem[], final = false, valuesCount: number | null = null): AnswerJudgement {
  const problems = findings.map(problemText)
  return { ok: false, final, error: problems.join(' '), problems, findings, valuesCount }
}

export function judgeAnswer (answer: EndpointAnswer): AnswerJudgement {
  const status = answer.statusCode
  if (status === null) return fail([{ kind: 'noAnswer', reason: answer.error }])
  if (status === 409 || status === 422) return fail([{ kind: 'cannotSupply', status }], true)
  if (status >= 300 && status < 400) return fail([{ kind: 'redirect', status }])
  if (status !== 200) return fail([{ kind: 'status', status }])
  if (answer.tooLarge) return fail([{ kind: 'tooLarge', max: MAX_ANSWER_BYTES }])
  let parsed: unknown
  try {
    parsed = JSON.parse(answer.body ?? '')
  } catch {
    return fail([{ kind: 'notJson' }])
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return fail([{ kind: 'notObject' }])
  const values = (parsed as { values?: unknown }).values
  if (!Array.isArray(values)) return fail([{ kind: 'noValuesArray' }])
  const findings: AnswerProblem[] = []
  if (values.length === 0) findings.push({ kind: 'emptyValues' })
  if (values.length > MAX_ANSWER_VALUES) {
    findings.push({ kind: 'tooManyValues', count: values.length, max: MAX_ANSWER_VALUES })
  }
  const notStrings = values.filter((v) => typeof v !== 'string').length
  if (notStrings > 0) findings.push({ kind: 'notStrings', count: notStrings })
  const strings = values.filter((v): v is string => typeof v === 'string')
  const empty = strings.filter((v) => v.length === 0).length
  if (empty > 0) findings.push({ kind: 'emptyStrings', count: empty })
  const long = strings.filter((v) => v.length > MAX_ANSWER_VALUE_LENGTH).length
  if (long > 0) findings.push({ kind: 'tooLong', count: long, max: MAX_ANSWER_VALUE_LENGTH })
  if (findings.length > 0) return fail(findings, false, values.length)
  return { ok: true, values: strings, problems: [], findings: [] }
}
