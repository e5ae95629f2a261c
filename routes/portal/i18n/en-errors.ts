// The portal's error sentences in English (the shape: error-words.ts).
import type { EnPlural } from './words.js'
import type { ErrorWords } from './error-words.js'

export const enErrors: ErrorWords<EnPlural> = {
  code: {
    VALIDATION_ERROR: 'Check what you entered and try again.',
    API_KEY_INVALID: 'The key is not valid.',
    NOT_FOUND: 'It is not there any more: reload the page.',
    ORDER_NOT_FOUND: 'It is not there any more: reload the page.',
    ORDER_INVALID_STATUS: 'The order\'s status does not allow this now: reload the page.',
    IDEMPOTENCY_IN_PROGRESS: 'The same change is still being made: wait a moment and reload the page.',
    IDEMPOTENCY_KEY_REUSED: 'The change was sent twice: reload the page.',
    STOCK_NOT_EMPTY: 'The variants field can change only while no code is available: remove the available codes first.',
    STOCK_ITEM_UNAVAILABLE: 'One of the codes was already delivered or removed: reload the page.',
    CLAIM_ALREADY_OPEN: 'The order already has an open claim.',
    CLAIM_LIMIT: 'The order already had 3 claims.',
    CLAIM_INVALID_STATUS: 'The claim no longer allows this answer: reload the page.',
    STOCK_INSUFFICIENT: 'The stock has too few codes for the replacement: upload codes or refund.',
    CHAT_RULE_LIMIT: 'The shop already has 100 auto-replies: delete one first.',
    CSRF_INVALID: 'The page is out of date: reload it and try again.',
    READ_ONLY: 'This session can only look: open a link that may change things.',
    SESSION_INVALID: 'The session has ended: open a new link from the marketplace.',
    CURSOR_EXPIRED: 'The list moved on: open its first page.',
    RATE_LIMIT: 'Too many changes in a minute: wait a moment and try again.',
    INTERNAL_ERROR: 'Something went wrong on our side: try again later.',
    SERVICE_UNAVAILABLE: 'The service cannot do this right now: try again in a minute.'
  },
  lengthBetween: { one: 'Enter {min} to {count} character.', other: 'Enter {min} to {count} characters.' },
  lengthAtMost: { one: 'Enter at most {count} character.', other: 'Enter at most {count} characters.' },
  lengthAtLeast: { one: 'Enter at least {count} character.', other: 'Enter at least {count} characters.' },
  empty: 'Fill this in.',
  required: 'Fill this in.',
  pattern: 'It holds characters this field does not take.',
  choose: 'Choose one of the options.',
  wholeNumber: 'Enter a whole number.',
  number: 'Enter a number.',
  numberBetween: 'Enter a number from {min} to {max}.',
  numberAtLeast: 'Enter a number of at least {min}.',
  numberAtMost: 'Enter a number of at most {max}.',
  itemsAtLeast: { one: 'Choose at least {count}.', other: 'Choose at least {count}.' },
  itemsAtMost: { one: 'Choose at most {count}.', other: 'Choose at most {count}.' },
  decimals: { one: 'Use at most {count} digit after the point.', other: 'Use at most {count} digits after the point.' },
  url: 'Enter a full address, starting with https://.',
  date: 'Enter a date as YYYY-MM-DD.',
  dateTime: 'Enter a date and time.',
  format: 'It is not written the way this field takes.',
  invalid: 'Check this value.',
  rule: {
    'x-absolute-url': 'Enter a full address, starting with https://.',
    'x-https-url': 'Enter an address starting with https://.',
    'x-url-credentials': 'Leave the user name and password out of the address.',
    'x-url-length': {
      one: 'Enter an address of at most {count} character.',
      other: 'Enter an address of at most {count} characters.'
    },
    'x-public-address': 'Enter an address on the internet, not in a private network ({reason}).',
    'x-no-nul': 'Remove the NUL character from the text.',
    'x-time-zone': 'Choose a time zone from the list, for example Europe/Moscow.',
    'x-date': 'Enter a real date as YYYY-MM-DD.',
    'x-range-order': 'The start is after the end: choose an earlier start.',
    'x-range-length': 'Choose a range of at most {max} days.',
    'x-keyword-count': 'Enter 1 to {max} keywords, one a line.',
    'x-keyword-twice': 'The keyword “{keyword}” is there twice.',
    'x-keyword-only': 'Only for replies to a keyword.',
    'x-reminder-minutes': 'Enter the minutes for the reminder, {min} to {max}.',
    'x-reminder-only': 'Only for reminders: leave it empty.',
    'x-template-unclosed': '“{text}” has no closing “}}”.',
    'x-placeholder-claims': 'The placeholder {name} is only for replies to claims.',
    'x-placeholder-unknown': 'There is no placeholder {name}.',
    'x-endpoint-limit': 'A shop has at most {max} endpoints: delete one first.',
    'x-values-count': 'Enter {count} codes, one a line: one for each reported code.',
    'x-line-too-long': {
      one: 'Line {line}: the code is longer than {count} character.',
      other: 'Line {line}: the code is longer than {count} characters.'
    }
  }
}
