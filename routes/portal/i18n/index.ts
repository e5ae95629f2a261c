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

/** Times as `21 Nov 2026, 10:00 UTC`: the seller's time zone is not known, so the zone is named. */
export function timeFormatter (locale: PortalLocale): (value: string | Date | null) => string {
  const format = new Intl.DateTimeFormat(locale === 'ru' ? 'ru-RU' : 'en-GB', {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: 'UTC'
  })
  return (value) => (value === null ? '' : `${format.format(typeof value === 'string' ? new Date(value) : value)} UTC`)
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
