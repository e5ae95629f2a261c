// The order chat's rules (docs/api-rules.md, order chat): who can write in it,
// and what a message's text must be. The request schema (schemas/messages.ts)
// states the same bounds; the count in code points is checked here.
import { ruleOf, validationError } from './errors.js'

export const senderRoles = ['seller', 'buyer', 'system'] as const
export type SenderRole = typeof senderRoles[number]

export const MAX_MESSAGE_LENGTH = 4000

/** Trims the text and checks the 1–4000 characters rule (counted in code points). */
export function messageText (raw: string): string {
  const text = raw.trim()
  const length = [...text].length
  if (length === 0 || length > MAX_MESSAGE_LENGTH) {
    throw validationError(`The message text must be 1–${MAX_MESSAGE_LENGTH} characters after ` +
      'trimming.', [{
      path: 'body.text',
      message: `must be 1–${MAX_MESSAGE_LENGTH} characters after trimming`,
      rule: ruleOf('x-trimmed-length', { min: 1, max: MAX_MESSAGE_LENGTH })
    }])
  }
  return text
}
