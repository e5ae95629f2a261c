// The Stock page (docs/portal.md): every product's counts and automatic
// delivery; one product's counts, settings, upload (pasted or from a .txt file,
// one code a line) and removal (after a confirmation; the removed codes are shown
// once). Through the /v1 calls' own service (services/stock/service.ts); a code
// is shown only by the removal's answer, never in a listing or the Activity page.
import multipart from '@fastify/multipart'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isUtf8 } from 'node:buffer'
import { getProduct, listProducts, type Product } from '../../services/catalog/service.js'
import { STOCK_ADD_BODY_LIMIT } from '../../schemas/body-limits.js'
import { AUTO_DELIVERY, StockAddBody, StockPatchBody, StockRemoveBody } from '../../schemas/stock.js'
import { ApiError, notFound, ruleOf, type ErrorDetail } from '../../domain/errors.js'
import * as stockService from '../../services/stock/service.js'
import { recordPortalAction } from './activity.js'
import { attempt, formOf, list, text, validated, type Form } from './forms.js'
import { portalRefusal } from './i18n/api-messages.js'
import { translator } from './i18n/index.js'
import { formErrors, type FormFields, type PageData } from './render.js'

type Params = { id: string }
const PRODUCTS_PER_PAGE = 20
const ITEMS_PER_PAGE = 50

const uploadFields: FormFields = {
  values: { id: 'values', label: 'stock.values' },
  optionId: { id: 'option', label: 'stock.variant' },
  file: { id: 'file', label: 'stock.file' }
}
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
/** A code as typed or read from a file, and where: the field and its line. */
interface CodeLine { value: string, field: 'values' | 'file', line: number }

/** Codes as typed or read from a file: one a line, surrounding blanks and empty lines dropped. */
const linesOf = (typed: string, file: string): CodeLine[] =>
  (['values', 'file'] as const).flatMap((field) =>
    (field === 'values' ? typed : file).replace(/^\uFEFF/, '').split(/\r?\n/)
      .map((text, at) => ({ value: text.trim(), field, line: at + 1 }))
      .filter((code) => code.value !== ''))

/**
 * The upload's refusal said where it is: a code's problem (`body.values.7`) at the field and line it came
 * from (a code too long names its line), and a chosen file, which the page cannot keep, named as not saved.
 */
function refusalAtLines (error: ApiError, codes: CodeLine[], fileName: string): ApiError {
  const details: ErrorDetail[] = (error.details ?? []).map((detail) => {
    const code = /^body\.values\.(\d+)$/.test(detail.path) ? codes[Number(detail.path.split('.')[2])] : undefined
    if (!code) return detail
    const max = detail.rule?.keyword === 'x-trimmed-length' && [...code.value].length > Number(detail.rule.params.max)
      ? Number(detail.rule.params.max)
      : undefined
    const rule = max === undefined ? detail.rule : ruleOf('x-line-too-long', { line: code.line, max })
    return { ...detail, path: `body.${code.field}`, rule }
  })
  if (fileName !== '') details.push(...(portalRefusal('file', 'upload.fileAgain', { name: fileName }).details ?? []))
  return details.length === 0 ? error : new ApiError(error.code, error.message, details, error.statusCode, error.rule)
}
const wholeNumber = (value: string) => (/^\s*\d{1,9}\s*$/.test(value) ? Number(value) : value)
const pageNumber = (value: unknown) =>
  typeof value === 'string' && /^\d{1,6}$/.test(value) && Number(value) >= 1 ? Number(value) : 1

export default async function stockPage (fastify: FastifyInstance) {
  async function productOf (request: FastifyRequest<{ Params: Params }>): Promise<Product> {
    const product = await getProduct(fastify.db, request.portalSession!.shopId, request.params.id)
    if (!product) throw notFound('Product')
    return product
  }

  async function productPage (
    request: FastifyRequest<{ Params: Params }>,
    reply: FastifyReply,
    data: Partial<PageData> = {},
    status = 200
  ) {
    const { shopId } = request.portalSession!
    const product = await productOf(request)
    const after = (request.query as Record<string, unknown>).after
    const cursor = request.method === 'GET' && typeof after === 'string' && after.length <= 32 ? after : undefined
    const [stock, items] = await Promise.all([
      stockService.getStock(fastify, shopId, product.id),
      stockService.listItems(fastify, shopId, product.id, { status: 'available', limit: ITEMS_PER_PAGE, after: cursor })
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
        items: items.items,
        nextCursor: items.nextCursor,
        paged: cursor !== undefined,
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
    const rows = await Promise.all(
      products.map(async (product) => ({ product, stock: await stockService.getStock(fastify, shopId, product.id) }))
    )
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

  async function uploadForm (
    request: FastifyRequest<{ Params: Params }>,
    reply: FastifyReply,
    data: Partial<PageData> = {},
    status = 200
  ) {
    const product = await productOf(request)
    const stock = await stockService.getStock(fastify, request.portalSession!.shopId, product.id)
    return reply.portalPage(
      'stock-upload',
      {
        section: 'stock',
        title: 'stock.uploadTitle',
        titleParams: { title: product.title },
        canonical: `/portal/stock/${product.id}/upload`,
        product,
        stock,
        values: { text: '', optionId: '' },
        ...data
      },
      status
    )
  }

  fastify.get<{ Params: Params }>('/:id/upload', async function uploadPage (request, reply) {
    return uploadForm(request, reply)
  })

  /**
   * The upload's fields and file, read whole: a pasted text over the field limit (which the parser would cut),
   * a file over the file limit, or either not UTF-8, is refused at its field.
   */
  async function readUpload (request: FastifyRequest) {
    const fields: Record<string, string> = {}
    let file = ''
    let fileName = ''
    let refused: ApiError | undefined
    try {
      for await (const part of request.parts()) {
        if (part.type === 'file') {
          fileName = part.filename
          const bytes = await part.toBuffer()
          if (!isUtf8(bytes)) refused ??= portalRefusal('file', 'upload.fileNotUtf8')
          else file = bytes.toString('utf8')
        } else if (typeof part.value === 'string') {
          // Fields arrive as latin1 (defCharset below): each character one byte as sent, to check as UTF-8.
          const bytes = Buffer.from(part.value, 'latin1')
          if (part.valueTruncated) {
            refused ??= portalRefusal(part.fieldname, 'upload.valuesCut', { max: STOCK_ADD_BODY_LIMIT })
          } else if (!isUtf8(bytes)) {
            refused ??= portalRefusal(part.fieldname, 'upload.valuesNotUtf8')
          } else {
            fields[part.fieldname] = bytes.toString('utf8')
          }
        }
      }
    } catch (err) {
      if ((err as { code?: string }).code !== 'FST_REQ_FILE_TOO_LARGE') throw err
      refused ??= portalRefusal('file', 'upload.fileTooLarge', { max: STOCK_ADD_BODY_LIMIT })
    }
    return { fields, file, fileName, refused }
  }

  await fastify.register(async function uploads (scope) {
    // A .txt file or a pasted list of up to 10 000 codes: as large as the API's own body limit.
    await scope.register(multipart, {
      defCharset: 'latin1',
      limits: {
        fileSize: STOCK_ADD_BODY_LIMIT,
        fieldSize: STOCK_ADD_BODY_LIMIT,
        files: 1,
        fields: 4,
        parts: 5,
        headerPairs: 20
      }
    })
    scope.post<{ Params: Params }>(
      '/:id/upload',
      { bodyLimit: STOCK_ADD_BODY_LIMIT },
      async function uploadCodes (request, reply) {
        const session = request.portalSession!
        const { fields, file, fileName, refused } = await readUpload(request)
        const codes = linesOf(fields.values ?? '', file)
        const values = codes.map((code) => code.value)
        const body = { values, ...(fields.optionId ? { optionId: fields.optionId } : {}) }
        const added = await attempt(async () => {
          if (refused) throw refused
          if (values.length === 0) {
            throw portalRefusal('values', 'stock.nothingToUpload')
          }
          return stockService.addStockItems(fastify, session.shopId, request.params.id, validated(StockAddBody, body))
        })
        if (!added.ok) {
          if (added.error.statusCode === 404) throw added.error
          const refusal = refusalAtLines(added.error, codes, fileName)
          const errors = formErrors(refusal, session.locale, uploadFields, 'values')
          return uploadForm(
            request,
            reply,
            { values: { text: fields.values ?? '', optionId: fields.optionId ?? '' }, errors },
            added.error.statusCode
          )
        }
        const product = await productOf(request)
        const { added: count, duplicates, filledOrders, stock } = added.value
        await recordPortalAction(fastify, request, 'stock.added', { product: product.title, added: count, duplicates })
        return reply.portalPage(
          'stock-uploaded',
          {
            section: 'stock',
            title: 'stock.uploadedTitle',
            canonical: `/portal/stock/${product.id}`,
            product,
            stock,
            result: { added: count, duplicates, filledOrders }
          },
          201
        )
      }
    )
  })

  async function settingsForm (
    request: FastifyRequest<{ Params: Params }>,
    reply: FastifyReply,
    values: Form | null,
    data: Partial<PageData> = {},
    status = 200
  ) {
    const product = await productOf(request)
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
    const product = await productOf(request)
    await recordPortalAction(fastify, request, 'stock.updated', { product: product.title })
    return productPage(request, reply, { notice: t('stock.saved') })
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
    const product = await productOf(request)
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
    const product = await productOf(request)
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
