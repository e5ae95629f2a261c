// Rendering the portal's pages: every page gets the session's language, CSRF
// token and navigation; a form that failed gets the API's error, summarised at
// the top and next to its field (the GOV.UK pattern). Pages answering a POST
// tell htmx which address to show, so a reload never repeats the POST.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { badgeCounts } from '../../services/portal/service.js'
import { DEFAULT_LOCALE, navigation, type Section } from './navigation.js'
import { ApiError, type ErrorDetail } from '../../domain/errors.js'
import { SESSION_IDLE_MS, type PortalLocale } from '../../domain/portal-token.js'
import { DEFAULT_SALES_TIME_ZONE as DEFAULT_TIME_ZONE } from '../../domain/sales-stats.js'
import { detailSentence, errorSentence } from './i18n/api-messages.js'
import { moneyFormatter, pluralizer, timeFormatter, translator, wordsOf, type MessageKey } from './i18n/index.js'
import type { Words } from './i18n/words.js'
import { disabledReasonSentence, failureSentence, systemMessageSentence } from './i18n/stored-texts.js'
import type { AttemptFailure } from '../../domain/attempt-failures.js'
import type { SystemMessage } from '../../domain/system-messages.js'
import type { DisabledReason } from '../../domain/disabled-reasons.js'

declare module 'fastify' {
  interface FastifyReply {
    /** Renders `template` in the shop's layout, with `status` (200 by default). */
    portalPage: (template: string, data: PageData, status?: number) => Promise<FastifyReply>
    /**
     * Renders `template` in the bare layout (no session's pages: the link and session-ended pages), in both
     * languages, or in `data.locale`'s when given.
     */
    barePage: (
      template: string, title: MessageKey, status: number, data?: { locale?: PortalLocale, [key: string]: unknown }
    ) => Promise<FastifyReply>
  }
}

export interface PageData {
  section?: Section
  /** The page's heading and title: a text's key, or made of the words (a text with a count). */
  title: MessageKey | TitleOf
  titleParams?: Record<string, string | number>
  /** A confirmation page's text (confirm.eta). */
  text?: MessageKey
  /** The address the page is at (for a page answering a POST). */
  canonical?: string
  errors?: FormErrors
  notice?: string
  [key: string]: unknown
}

/** A title made of the language's words, e.g. `(words, plural) => plural(words.removeCodes, n)`. */
export type TitleOf = (words: Words, plural: ReturnType<typeof pluralizer>) => string

export interface FormErrors {
  summary: Array<{ href?: string; text: string }>
  fields: Record<string, string>
}

/** Fields of a form: the body path's first segment → the input's id and label. */
export type FormFields = Record<string, { id: string; label: MessageKey }>

/**
 * The API's error as a form's errors, in the page's language (i18n/api-messages.ts, never the API's English):
 * each detail next to the field its path names (`body.url` → url), and in the summary linked to it, one
 * message per field (the first rule it broke); an error without details (a limit, a conflict) in the summary,
 * next to `field` when given.
 */
export function formErrors (err: ApiError, locale: PortalLocale, fields: FormFields = {}, field?: string): FormErrors {
  const t = translator(locale)
  const errors: FormErrors = { summary: [], fields: {} }
  const add = (name: string | undefined, message: string) => {
    const target = name === undefined ? undefined : fields[name]
    if (!target) {
      if (!errors.summary.some((entry) => entry.text === message)) errors.summary.push({ text: message })
      return
    }
    if (errors.fields[name!] !== undefined) return
    errors.fields[name!] = message
    const sentence = message.charAt(0).toLocaleLowerCase(locale) + message.slice(1)
    const text = t('errors.field', { label: t(target.label), message: sentence })
    errors.summary.push({ href: `#${target.id}`, text })
  }
  const details: ErrorDetail[] = err.details ?? []
  if (details.length === 0) add(field, errorSentence(locale, err))
  for (const detail of details) add(detail.path.split('.')[1], detailSentence(locale, detail))
  return errors
}

const templateName = (name: string) => `${name}.eta`

export function decoratePortalReplies (fastify: FastifyInstance) {
  fastify.decorateReply(
    'portalPage',
    async function portalPage (this: FastifyReply, template: string, data: PageData, status = 200) {
      const request: FastifyRequest = this.request
      const session = request.portalSession
      const locale: PortalLocale = session?.locale ?? DEFAULT_LOCALE
      const t = translator(locale)
      const words = wordsOf(locale)
      const plural = pluralizer(locale)
      const fmt = timeFormatter(locale, session?.tz ?? DEFAULT_TIME_ZONE)
      const path = (data.canonical ?? request.url).split('?')[0]
      const badges = session ? await badgeCounts(fastify.db, session.shopId) : { claims: 0, waiting: 0 }
      if (request.method !== 'GET' && request.method !== 'HEAD') this.header('hx-push-url', data.canonical ?? path)
      this.code(status).type('text/html; charset=utf-8')
      return this.view(
        templateName(template),
        {
          ...data,
          heading: typeof data.title === 'function' ? data.title(words, plural) : t(data.title, data.titleParams),
          t,
          words,
          plural,
          fmt,
          // Stored English texts in the page's language, from their kind; null: none was stored (say the text).
          failure: (failure?: AttemptFailure | null) => (failure ? failureSentence(locale, failure) : null),
          systemMessage: (message?: SystemMessage) => (message ? systemMessageSentence(locale, message) : null),
          disabledReason: (reason?: DisabledReason | null) =>
            (reason ? disabledReasonSentence(locale, reason, fmt) : null),
          money: moneyFormatter(locale),
          locale,
          path,
          session,
          // The session idles out an hour after this request, unless its 12 hours end first.
          idleEnd: session && new Date(Math.min(session.lastSeenAt.getTime() + SESSION_IDLE_MS,
            session.expiresAt.getTime())),
          nav: navigation.map((entry) => ({
            href: entry.href,
            label: t(entry.label),
            current: entry.section === data.section,
            badge: entry.badge === undefined || badges[entry.badge] === 0 ? null : badges[entry.badge]
          }))
        },
        { layout: 'layout.eta' }
      )
    }
  )
  fastify.decorateReply(
    'barePage',
    async function barePage (
      this: FastifyReply, template: string, title: MessageKey, status: number, data: Record<string, unknown> = {}
    ) {
      this.code(status).type('text/html; charset=utf-8')
      return this.view(
        templateName(template),
        { ...data, en: translator('en'), ru: translator('ru'), titleKey: title },
        { layout: 'bare.eta' }
      )
    }
  )
}
