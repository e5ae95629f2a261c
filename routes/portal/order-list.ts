// The Orders list (docs/portal.md): the filter read from the page's address
// (statuses, product, a day range, an id prefix of at least 8 characters, only
// those whose buyer wrote last), each bad value said at its field in the
// session's language; then a page of 50 after the address's cursor.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { listAutomatedProducts, listPortalOrders, type PortalOrderFilter } from '../../services/portal/service.js'
import { isUuid } from '../../domain/ids.js'
import { orderStatuses, type OrderStatus } from '../../domain/order-transitions.js'
import { list, type Form } from './forms.js'
import { translator, type MessageKey } from './i18n/index.js'
import type { FormErrors } from './render.js'

export const ORDERS_PER_PAGE = 50
const DAY = /^\d{4}-\d\d-\d\d$/

/** The filter as the form shows it (the address's text). */
export interface OrderFilterForm {
  status: string[],
  product: string,
  from: string,
  to: string,
  q: string,
  reply: boolean
}

const dayOf = (value: string): Date | undefined => {
  if (!DAY.test(value)) return undefined
  const day = new Date(`${value}T00:00:00.000Z`)
  return Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value ? undefined : day
}

/** The offset of `tz` from UTC at `at`, in ms (Moscow: +3 h). */
function zoneOffset (at: Date, tz: string): number {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit'
  }).formatToParts(at).map((part) => [part.type, part.value]))
  const wall = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour),
    Number(parts.minute), Number(parts.second))
  return wall - Math.floor(at.getTime() / 1000) * 1000
}

/** The instant a day (its UTC midnight) begins in `tz`. */
const dayStartIn = (day: Date, tz: string) => {
  const guess = new Date(day.getTime() - zoneOffset(day, tz))
  return new Date(day.getTime() - zoneOffset(guess, tz))
}

/** The filter of the address (its days in the session's zone `tz`), or the errors by field id. */
export function readOrderFilter (query: Form, tz: string): {
  form: OrderFilterForm,
  filter?: Omit<PortalOrderFilter, 'limit'>,
  problems: Record<string, MessageKey>
} {
  const one = (name: string) => list(query, name)[0]?.trim() ?? ''
  const form: OrderFilterForm = {
    status: list(query, 'status'),
    product: one('product'),
    from: one('from'),
    to: one('to'),
    q: one('q').toLowerCase(),
    reply: one('reply') === '1'
  }
  const problems: Record<string, MessageKey> = {}
  if (!form.status.every((s) => (orderStatuses as readonly string[]).includes(s))) problems.status = 'orders.badStatus'
  if (form.product !== '' && !isUuid(form.product)) problems.product = 'orders.badProduct'
  const from = form.from === '' ? undefined : dayOf(form.from)
  const to = form.to === '' ? undefined : dayOf(form.to)
  if (form.from !== '' && !from) problems.from = 'orders.badDate'
  if (form.to !== '' && !to) problems.to = 'orders.badDate'
  if (form.q !== '' && !/^[0-9a-f-]{8,36}$/.test(form.q)) problems.q = 'orders.badPrefix'
  const after = one('after')
  if (Object.keys(problems).length > 0) return { form, problems }
  return {
    form,
    problems,
    filter: {
      statuses: form.status.length > 0 ? [...new Set(form.status)] as OrderStatus[] : [...orderStatuses],
      productId: form.product === '' ? undefined : form.product,
      from: from === undefined ? undefined : dayStartIn(from, tz),
      // The last day whole: before the next day's start.
      to: to === undefined ? undefined : dayStartIn(new Date(to.getTime() + 86_400_000), tz),
      idPrefix: form.q === '' ? undefined : form.q,
      buyerLast: form.reply,
      after: after === '' ? undefined : after
    }
  }
}

/** The address of the list with `form`'s filter (and `after`). */
export function orderListHref (form: OrderFilterForm, after?: string): string {
  const params = new URLSearchParams()
  for (const status of form.status) params.append('status', status)
  if (form.product !== '') params.set('product', form.product)
  if (form.from !== '') params.set('from', form.from)
  if (form.to !== '') params.set('to', form.to)
  if (form.q !== '') params.set('q', form.q)
  if (form.reply) params.set('reply', '1')
  if (after !== undefined) params.set('after', after)
  const query = params.toString()
  return `/portal/orders${query === '' ? '' : `?${query}`}`
}

const FIELD_IDS: Record<string, string> = {
  status: 'status-paid',
  product: 'product',
  from: 'from',
  to: 'to',
  q: 'q',
  after: 'q'
}

export async function orderListPage (fastify: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
  const { shopId, locale } = request.portalSession!
  const t = translator(locale)
  const { form, filter, problems } = readOrderFilter(request.query as Form, request.portalSession!.tz)
  const errors: FormErrors = { summary: [], fields: {} }
  let page: Awaited<ReturnType<typeof listPortalOrders>> = { orders: [], nextCursor: null }
  for (const [field, key] of Object.entries(problems)) {
    errors.fields[field] = t(key)
    errors.summary.push({ href: `#${FIELD_IDS[field]}`, text: t(key) })
  }
  if (filter) {
    try {
      page = await listPortalOrders(fastify.db, shopId, { ...filter, limit: ORDERS_PER_PAGE })
    } catch (err) {
      // A cursor that is not one: the first page, said at the top.
      if ((err as { statusCode?: number }).statusCode !== 400) throw err
      errors.summary.push({ text: t('orders.badCursor') })
      page = await listPortalOrders(fastify.db, shopId, { ...filter, after: undefined, limit: ORDERS_PER_PAGE })
    }
  }
  return reply.portalPage('orders', {
    section: 'orders',
    title: 'orders.title',
    form,
    products: await listAutomatedProducts(fastify.db, shopId),
    orders: page.orders,
    older: page.nextCursor === null ? null : orderListHref(form, page.nextCursor),
    newest: filter?.after === undefined ? null : orderListHref(form),
    errors: errors.summary.length > 0 ? errors : undefined
  }, errors.summary.length > 0 ? 400 : 200)
}
