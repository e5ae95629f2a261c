// The portal's two languages: the texts by key, filled in with `{name}` parameters,
// the words of the enums' values and the texts with a count (words.ts), and times
// and numbers written the locale's way.
import type { PortalLocale } from '../../../domain/portal-token.js'
import { en, type MessageKey, type Messages } from './en.js'
import { enumWords } from './enum-words.js'
import { ru } from './ru.js'
import { fill, pluralText, wordsIn, type Plural, type Words } from './words.js'

const messages: Record<PortalLocale, Messages> = { en, ru }
const words: Record<PortalLocale, Words> = { en: wordsIn(enumWords, 'en'), ru: wordsIn(enumWords, 'ru') }

export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string
/** A text with a count (a Words entry), in the form the count takes. */
export type Pluralize = (text: Plural, count: number, params?: Record<string, string | number>) => string

export function translator (locale: PortalLocale): Translate {
  const table = messages[locale]
  return (key, params) => (params ? fill(table[key], params) : table[key])
}

/** The words of the enums' values in `locale`. */
export const wordsOf = (locale: PortalLocale): Words => words[locale]

export const pluralizer = (locale: PortalLocale): Pluralize => (text, count, params) =>
  pluralText(locale, text, count, params)

/** Times in the session's zone `tz`, the zone named by its offset: `21 Nov 2026, 13:00 GMT+3`. */
export function timeFormatter (locale: PortalLocale, tz: string): (value: string | Date | null) => string {
  const tag = locale === 'ru' ? 'ru-RU' : 'en-GB'
  const format = new Intl.DateTimeFormat(tag, { dateStyle: 'medium', timeStyle: 'short', timeZone: tz })
  const zone = new Intl.DateTimeFormat(tag, { timeZone: tz, timeZoneName: 'short' })
  return (value) => {
    if (value === null) return ''
    const date = typeof value === 'string' ? new Date(value) : value
    const name = zone.formatToParts(date).find((part) => part.type === 'timeZoneName')?.value ?? tz
    return `${format.format(date)} ${name}`
  }
}

/** Money the locale's way, always two decimals, with the ruble sign. */
export const moneyFormatter = (locale: PortalLocale) => {
  const format = new Intl.NumberFormat(locale === 'ru' ? 'ru-RU' : 'en-GB', {
    minimumFractionDigits: 2,
    maximumFractionDigits: 2
  })
  return (value: number) => `${format.format(value)} ₽`
}

export type { MessageKey }
