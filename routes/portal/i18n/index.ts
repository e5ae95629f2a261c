// The portal's two languages: the texts by key, filled in with `{name}` parameters,
// and times and numbers written the locale's way.
import type { PortalLocale } from '../../../domain/portal-token.js'
import { en, type MessageKey, type Messages } from './en.js'
import { ru } from './ru.js'

const messages: Record<PortalLocale, Messages> = { en, ru }

export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string

export function translator (locale: PortalLocale): Translate {
  const table = messages[locale]
  return (key, params) => {
    const text = table[key]
    return params
      ? text.replace(/\{(\w+)\}/g, (match, name: string) => (name in params ? String(params[name]) : match))
      : text
  }
}

/** Times as `21 Nov 2026, 10:00 UTC`: the seller's time zone is not known, so the zone is named. */
export function timeFormatter (locale: PortalLocale): (value: string | Date | null) => string {
  const format = new Intl.DateTimeFormat(locale === 'ru' ? 'ru-RU' : 'en-GB', {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: 'UTC'
  })
  return (value) => (value === null ? '' : `${format.format(typeof value === 'string' ? new Date(value) : value)} UTC`)
}

export type { MessageKey }
