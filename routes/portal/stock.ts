// The Stock page (docs/portal.md): every product's counts, automatic delivery, the
// orders waiting and a low-stock mark; one product's counts, settings and items
// (newest first, 50 a page, each with its position and upload time, found by the
// start of its preview or a whole code, of one status), and removal of the
// selected items (all of a page at once, after a confirmation; the removed codes
// are shown once). The upload is stock-upload.ts. Through the /v1 calls' own
// service (services/stock/service.ts); a code is shown only by the removal's
// answer, never in a listing or the Activity page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { listProducts, type Product } from '../../services/catalog/service.js'
import { findStockItems, waitingOrderCounts } from '../../services/portal/service.js'
import { AUTO_DELIVERY, StockPatchBody, StockRemoveBody } from '../../schemas/stock.js'
import { isLowStock, stockItemStatuses, type StockItemStatus } from '../../domain/stock-rules.js'
import * as stockService from '../../services/stock/service.js'
import { recordPortalAction } from './activity.js'
import { attempt, formOf, list, text, validated, type Form } from './forms.js'
import { translator } from './i18n/index.js'
import { formErrors, type FormFields, type PageData } from './render.js'
import stockUpload, { productOf } from './stock-upload.js'

type Params = { id: string }
const PRODUCTS_PER_PAGE = 20
const ITEMS_PER_PAGE = 50
/** The longest search kept: a whole code is at most 10 000 characters. */
const SEARCH_MAX = 10_000

const settingsFields: FormFields = {
  autoDelivery: { id: 'auto-off', label: 'stock.autoLegend' },
  lowStockThreshold: { id: 'low', label: 'stock.lowLabel' },
  deactivateWhenEmpty: { id: 'deactivate-yes', label: 'stock.deactivateLegend' },
  autoReplace: { id: 'auto-replace-yes', label: 'stock.autoReplaceLegend' },
  optionFieldId: { id: 'option-field', label: 'stock.optionField' }
}

/** The fields that can hold the variants: required single-choice selects (docs/stock.md). */
const variantFields = (product: Product) =>
  product.fields.filter((f) => f.type === 'select' && f.required && !f.multiple)
const wholeNumber = (value: string) => (/^\s*\d{1,9}\s*$/.test(value) ? Number(value) : value)
const pageNumber = (value: unknown) =>
  typeof value === 'string' && /^\d{1,6}$/.test(value) && Number(value) >= 1 ? Number(value) : 1

/** What the product page's address asks for: a status, a search, a page after a cursor, all selected. */
interface ItemView { status: StockItemStatus, q: string, after?: string, selectAll: boolean }

/** The item list's query (a form sent by GET): anything not understood is the default, never an error. */
function itemViewOf (query: Form, readItems: boolean): ItemView {
  const status = text(query, 'status')
  const after = text(query, 'after')
  return {
    status: (stockItemStatuses as readonly string[]).includes(status) ? status as StockItemStatus : 'available',
    q: text(query, 'q').trim().slice(0, SEARCH_MAX),
    ...(readItems && /^[1-9][0-9]{0,17}$/.test(after) ? { after } : {}),
    selectAll: readItems && text(query, 'select') === 'all'
  }
}

/** The product page's address for `view` changed by `change`. */
function itemsHref (productId: string, view: ItemView, change: Partial<ItemView>) {
  const next = { ...view, ...change }
  const params = new URLSearchParams()
  if (next.status !== 'available') params.set('status', next.status)
  if (next.q !== '') params.set('q', next.q)
  if (next.after !== undefined) params.set('after', next.after)
  if (next.selectAll) params.set('select', 'all')
  const query = params.toString()
  return `/portal/stock/${productId}${query === '' ? '' : `?${query}`}#items`
}

export default async function stockPage (fastify: FastifyInstance) {
  await fastify.register(stockUpload)

  async function productPage (
    request: FastifyRequest<{ Params: Params }>,
    reply: FastifyReply,
    data: Partial<PageData> = {},
    status = 200
  ) {
    const { shopId } = request.portalSession!
    const product = await productOf(fastify, request)
    const view = itemViewOf(request.query as Form, request.method === 'GET')
    const [stock, items, waiting] = await Promise.all([
      stockService.getStock(fastify, shopId, product.id),
      findStockItems(fastify, shopId, product.id, {
        status: view.status, search: view.q, after: view.after, limit: ITEMS_PER_PAGE
      }),
      waitingOrderCounts(fastify.db, [product.id])
    ])
    const options = new Map(stock.options.map((o) => [o.optionId, o.label]))
    return reply.portalPage(
      'stock-product',
      {
        section: 'stock',
        title: 'stock.productTitle',
        titleParams: { title: product.title },
        canonical: `/portal/stock/${product.id}`,
        product,
        stock,
        low: isLowStock(stock),
        waiting: waiting.get(product.id) ?? 0,
        view,
        statuses: stockItemStatuses,
        items: items.items,
        removable: view.status === 'available' && !request.portalSession!.readOnly,
        links: {
          newest: view.after === undefined ? null : itemsHref(product.id, view, { after: undefined, selectAll: false }),
          older: items.nextCursor === null
            ? null
            : itemsHref(product.id, view, { after: items.nextCursor, selectAll: false }),
          selectAll: itemsHref(product.id, view, { selectAll: !view.selectAll })
        },
        optionLabel: (id: string | null) => (id && options.get(id)) ?? '',
        ...data
      },
      status
    )
  }

  fastify.get('/', async function stockList (request, reply) {
    const { shopId } = request.portalSession!
    const page = pageNumber((request.query as Record<string, unknown>).page)
    const { products, total } = await listProducts(fastify.db, shopId, {
      page,
      limit: PRODUCTS_PER_PAGE,
      archived: false
    })
    const [stocks, waiting] = await Promise.all([
      Promise.all(products.map((product) => stockService.getStock(fastify, shopId, product.id))),
      waitingOrderCounts(fastify.db, products.map((product) => product.id))
    ])
    const rows = products.map((product, i) => ({
      product, stock: stocks[i], low: isLowStock(stocks[i]), waiting: waiting.get(product.id) ?? 0
    }))
    return reply.portalPage('stock', {
      section: 'stock',
      title: 'stock.title',
      rows,
      page,
      pages: Math.max(1, Math.ceil(total / PRODUCTS_PER_PAGE))
    })
  })

  fastify.get<{ Params: Params }>('/:id', async function stockOfProduct (request, reply) {
    return productPage(request, reply)
  })

  async function settingsForm (
    request: FastifyRequest<{ Params: Params }>,
    reply: FastifyReply,
    values: Form | null,
    data: Partial<PageData> = {},
    status = 200
  ) {
    const product = await productOf(fastify, request)
    const stock = await stockService.getStock(fastify, request.portalSession!.shopId, product.id)
    const shown =
      values === null
        ? {
            autoDelivery: stock.autoDelivery,
            lowStockThreshold: String(stock.lowStockThreshold),
            deactivateWhenEmpty: String(stock.deactivateWhenEmpty),
            autoReplace: String(stock.autoReplace),
            optionFieldId: stock.optionFieldId ?? ''
          }
        : {
            autoDelivery: text(values, 'autoDelivery'),
            lowStockThreshold: text(values, 'lowStockThreshold'),
            deactivateWhenEmpty: text(values, 'deactivateWhenEmpty'),
            autoReplace: text(values, 'autoReplace'),
            optionFieldId: text(values, 'optionFieldId')
          }
    return reply.portalPage(
      'stock-settings',
      {
        section: 'stock',
        title: 'stock.settingsTitle',
        titleParams: { title: product.title },
        canonical: `/portal/stock/${product.id}/settings`,
        product,
        stock,
        values: shown,
        autoDeliveryModes: AUTO_DELIVERY,
        variantFields: variantFields(product),
        ...data
      },
      status
    )
  }

  fastify.get<{ Params: Params }>('/:id/settings', async function settingsPage (request, reply) {
    return settingsForm(request, reply, null)
  })

  fastify.post<{ Params: Params }>('/:id/settings', async function saveSettings (request, reply) {
    const session = request.portalSession!
    const t = translator(session.locale)
    const form = formOf(request.body)
    const current = await stockService.getStock(fastify, session.shopId, request.params.id)
    const yesNo = (name: string) => {
      const value = text(form, name)
      return value === 'true' ? true : value === 'false' ? false : value
    }
    const optionFieldId = text(form, 'optionFieldId') || null
    const body = {
      autoDelivery: text(form, 'autoDelivery'),
      lowStockThreshold: wholeNumber(text(form, 'lowStockThreshold')),
      deactivateWhenEmpty: yesNo('deactivateWhenEmpty'),
      ...(text(form, 'autoReplace') === '' ? {} : { autoReplace: yesNo('autoReplace') }),
      ...(optionFieldId === current.optionFieldId ? {} : { optionFieldId })
    }
    const saved = await attempt(() =>
      stockService.updateStock(fastify, session.shopId, request.params.id, validated(StockPatchBody, body))
    )
    if (!saved.ok) {
      if (saved.error.statusCode === 404) throw saved.error
      return settingsForm(
        request,
        reply,
        form,
        { errors: formErrors(saved.error, session.locale, settingsFields, 'optionFieldId') },
        saved.error.statusCode
      )
    }
    const product = await productOf(fastify, request)
    await recordPortalAction(fastify, request, 'stock.updated', { product: product.title })
    return productPage(request, reply, { notice: t('stock.saved'), filled: saved.value.filledOrderIds })
  })

  fastify.get<{ Params: Params }>('/:id/remove', async function confirmRemove (request, reply) {
    const t = translator(request.portalSession!.locale)
    const ids = list(request.query as Form, 'ids')
    if (ids.length === 0) {
      return productPage(
        request,
        reply,
        { errors: { summary: [{ href: '#items', text: t('stock.nothingSelected') }], fields: {} } },
        400
      )
    }
    const product = await productOf(fastify, request)
    return reply.portalPage('confirm', {
      section: 'stock',
      title: (words, plural) => plural(words.removeCodes, ids.length),
      text: 'stock.removeText',
      action: `/portal/stock/${product.id}/remove`,
      cancel: `/portal/stock/${product.id}`,
      hidden: ids.map((id) => ({ name: 'ids', value: id }))
    })
  })

  fastify.post<{ Params: Params }>('/:id/remove', async function removeItems (request, reply) {
    const session = request.portalSession!
    const ids = list(formOf(request.body), 'ids')
    const removed = await attempt(() =>
      stockService.removeItems(fastify, session.shopId, request.params.id, validated(StockRemoveBody, { ids }).ids)
    )
    if (!removed.ok) {
      if (removed.error.statusCode === 404) throw removed.error
      return productPage(
        request,
        reply,
        { errors: formErrors(removed.error, session.locale) },
        removed.error.statusCode
      )
    }
    const product = await productOf(fastify, request)
    await recordPortalAction(fastify, request, 'stock.removed', { product: product.title, count: removed.value.length })
    return reply.portalPage('stock-removed', {
      section: 'stock',
      title: 'stock.removedTitle',
      canonical: `/portal/stock/${product.id}`,
      product,
      values: removed.value.map((item) => item.value).join('\n')
    })
  })
}
