// The words of the portal's error messages (routes/portal/i18n/api-messages.ts): one
// sentence per rule a value can break — the validator's keywords and the service's
// own (domain/errors.ts ServiceRules) — and one per error code for an error that names
// no field. Typed, so a language without a sentence for a rule or a code does not build.
// `{name}` parameters are the rule's limits; a text with a count is a Plural.
import type { AnswerProblemKind } from '../../../domain/delivery-answer.js'
import type { ErrorCode, ServiceRule } from '../../../domain/errors.js'
import type { Plural } from './words.js'

/** The validator's keywords the portal's forms can break. */
export type ValidatorKeyword =
  'required' | 'minLength' | 'maxLength' | 'pattern' | 'format' | 'enum' | 'const' | 'type' |
  'minimum' | 'maximum' | 'exclusiveMinimum' | 'exclusiveMaximum' | 'minItems' | 'maxItems' | 'x-decimals'

export interface ErrorWords<P extends Plural = Plural> {
  /** An error that names no field, by its code. */
  code: Record<ErrorCode, string>
  /** Text length, whichever of its limits was broken: `{min}`, `{count}` (the most). */
  lengthBetween: P
  lengthAtMost: P
  lengthAtLeast: P
  /** An empty text where one is needed (a minimum of 1, or "not only spaces"). */
  empty: string
  required: string
  /** A text of characters the field does not take. */
  pattern: string
  /** A value that is not one of the choices (an enum, a yes/no, an id of a list). */
  choose: string
  wholeNumber: string
  number: string
  numberBetween: string
  numberAtLeast: string
  numberAtMost: string
  itemsAtLeast: P
  itemsAtMost: P
  decimals: P
  url: string
  date: string
  dateTime: string
  /** Any other format. */
  format: string
  /** A rule the portal has no sentence for: still in the page's language. */
  invalid: string
  /** What is wrong with the delivery endpoint's answer (domain/delivery-answer.ts), with its numbers. */
  answer: Record<AnswerProblemKind, string>
  /** The service's own rules. */
  rule: Record<Exclude<ServiceRule, 'x-trimmed-length' | 'x-line-too-long' | 'x-url-length'>, string> &
    Record<'x-line-too-long' | 'x-url-length', P>
}
