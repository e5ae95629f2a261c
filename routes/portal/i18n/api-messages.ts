// The one step every error shown on a portal page goes through: the rule a value
// broke (the validator's keyword, or the service's own, with its limits: the
// detail's `rule`, domain/errors.ts) said as a sentence in the page's language,
// from the typed word maps (en-errors.ts, ru-errors.ts). The API's English
// message is never read here, so no validator wording reaches a page; an error
// naming no field is said by its code.
import { validationError, type ApiError, type DetailRule, type ErrorDetail } from '../../../domain/errors.js'
import type { AnswerProblem } from '../../../domain/delivery-answer.js'
import type { PortalLocale } from '../../../domain/portal-token.js'
import { enErrors } from './en-errors.js'
import type { ErrorWords } from './error-words.js'
import { ruErrors } from './ru-errors.js'
import { translator, type MessageKey } from './index.js'
import { fill, pluralText } from './words.js'

/** The keyword of a refusal the portal itself makes: `params.key` names its text (en.ts, ru.ts). */
export const PORTAL_TEXT = 'x-portal-text'

/** A refusal the portal makes at `field`, said by its text's key (with `params`). */
export const portalRefusal = (field: string, key: MessageKey, params: Record<string, string | number> = {}) =>
  validationError(key, [
    { path: `body.${field}`, message: key, rule: { keyword: PORTAL_TEXT, params: { ...params, key } } }
  ])

const wordsOf: Record<PortalLocale, ErrorWords> = { en: enErrors, ru: ruErrors }

const numberOf = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined)

/** A text's limits: the field's schema, else the broken keyword's own limit. */
function lengthLimits (rule: DetailRule): { min?: number, max?: number } {
  const limits = rule.limits ?? {}
  const trimmed = (limits['x-trimmed-length'] ?? []) as number[]
  const min = numberOf(limits.minLength) ?? trimmed[0] ??
    (rule.keyword === 'minLength' ? numberOf(rule.params.limit) : numberOf(rule.params.min))
  const max = numberOf(limits.maxLength) ?? trimmed[1] ??
    (rule.keyword === 'maxLength' ? numberOf(rule.params.limit) : numberOf(rule.params.max))
  return { min, max }
}

function lengthSentence (locale: PortalLocale, words: ErrorWords, rule: DetailRule): string {
  const { min, max } = lengthLimits(rule)
  if (max !== undefined) {
    return min !== undefined && min > 0
      ? pluralText(locale, words.lengthBetween, max, { min })
      : pluralText(locale, words.lengthAtMost, max)
  }
  if (min === 1) return words.empty
  return min === undefined ? words.invalid : pluralText(locale, words.lengthAtLeast, min)
}

function numberSentence (words: ErrorWords, rule: DetailRule): string {
  const limits = rule.limits ?? {}
  const min = numberOf(limits.minimum) ?? numberOf(rule.keyword === 'minimum' ? rule.params.limit : undefined)
  const max = numberOf(limits.maximum) ?? numberOf(rule.keyword === 'maximum' ? rule.params.limit : undefined)
  if (min !== undefined && max !== undefined) return fill(words.numberBetween, { min, max })
  if (min !== undefined) return fill(words.numberAtLeast, { min })
  return max === undefined ? words.number : fill(words.numberAtMost, { max })
}

function formatSentence (words: ErrorWords, format: unknown): string {
  if (format === 'uri' || format === 'url') return words.url
  if (format === 'uuid') return words.choose
  if (format === 'date') return words.date
  if (format === 'date-time') return words.dateTime
  return words.format
}

/** The sentence for one broken rule, in `locale`. */
export function ruleSentence (locale: PortalLocale, rule: DetailRule | undefined): string {
  const words = wordsOf[locale]
  if (rule === undefined) return words.invalid
  const { keyword, params } = rule
  const count = (value: unknown) => numberOf(value) ?? 0
  switch (keyword) {
    case 'required': return words.required
    case 'minLength': case 'maxLength': case 'x-trimmed-length': return lengthSentence(locale, words, rule)
    // "not only spaces" (`\S`) is the text's length rule said another way.
    case 'pattern': return params.pattern === '\\S' ? lengthSentence(locale, words, rule) : words.pattern
    case 'format': return formatSentence(words, params.format)
    case 'enum': case 'const': return words.choose
    case 'type':
      if (params.type === 'integer') return words.wholeNumber
      return params.type === 'number' ? words.number : words.choose
    case 'minimum': case 'maximum': case 'exclusiveMinimum': case 'exclusiveMaximum':
      return numberSentence(words, rule)
    case 'minItems': return pluralText(locale, words.itemsAtLeast, count(params.limit))
    case 'maxItems': return pluralText(locale, words.itemsAtMost, count(params.limit))
    case 'x-decimals': return pluralText(locale, words.decimals, count(params.places))
    case 'x-url-length': return pluralText(locale, words.rule['x-url-length'], count(params.max))
    // The portal's own refusal (an upload cut or not UTF-8): a text of its word maps, by key.
    case PORTAL_TEXT: return translator(locale)(params.key as MessageKey, params as Record<string, string | number>)
    case 'x-line-too-long':
      return pluralText(locale, words.rule['x-line-too-long'], count(params.max), { line: count(params.line) })
  }
  const own = words.rule[keyword as keyof ErrorWords['rule']]
  return typeof own === 'string' ? fill(own, params as Record<string, string | number>) : words.invalid
}

/** What is wrong with the delivery endpoint's answer, in `locale`. */
export function answerProblemSentence (locale: PortalLocale, problem: AnswerProblem): string {
  const { kind, ...numbers } = problem
  return fill(wordsOf[locale].answer[kind], numbers as Record<string, string | number>)
}

/** One detail of an error (a field's problem), in `locale`. */
export const detailSentence = (locale: PortalLocale, detail: ErrorDetail): string => ruleSentence(locale, detail.rule)

/** An error naming no field: its own rule's sentence, else its code's. */
export function errorSentence (locale: PortalLocale, error: ApiError): string {
  return error.rule ? ruleSentence(locale, error.rule) : wordsOf[locale].code[error.code]
}
