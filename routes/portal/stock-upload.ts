// The Stock page's upload (docs/portal.md): codes pasted or from a .txt file, one a
// line, through the /v1 call's own service (services/stock/service.ts); the result
// names the waiting orders the codes delivered, each linking to its page. A text
// over the field limit, a file over the file limit, or either not UTF-8 is refused
// at its field and nothing is stored.
import multipart from '@fastify/multipart'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isUtf8 } from 'node:buffer'
import { getProduct, type Product } from '../../services/catalog/service.js'
import { STOCK_ADD_BODY_LIMIT } from '../../schemas/body-limits.js'
import { StockAddBody } from '../../schemas/stock.js'
import { ApiError, notFound, validationError } from '../../domain/errors.js'
import { isLowStock } from '../../domain/stock-rules.js'
import { waitingOrderCounts } from '../../services/portal/service.js'
import * as stockService from '../../services/stock/service.js'
import { recordPortalAction } from './activity.js'
import { attempt, validated } from './forms.js'
import { translator } from './i18n/index.js'
import { formErrors, type FormFields, type PageData } from './render.js'

type Params = { id: string }

const uploadFields: FormFields = {
  values: { id: 'values', label: 'stock.values' },
  optionId: { id: 'option', label: 'stock.variant' },
  file: { id: 'file', label: 'stock.file' }
}

/** Codes as typed or read from a file: one a line, surrounding blanks and empty lines dropped. */
const linesOf = (...texts: string[]) =>
  texts
    .flatMap((t) => t.replace(/^\uFEFF/, '').split(/\r?\n/))
    .map((l) => l.trim())
    .filter(Boolean)

export default async function stockUpload (fastify: FastifyInstance) {
  async function productOf (request: FastifyRequest<{ Params: Params }>): Promise<Product> {
    const product = await getProduct(fastify.db, request.portalSession!.shopId, request.params.id)
    if (!product) throw notFound('Product')
    return product
  }

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

  /** A refusal of the upload at one field: nothing is stored. */
  const refusal = (field: string, message: string) => validationError(message, [{ path: `body.${field}`, message }])

  /**
   * The upload's fields and file, read whole: a pasted text over the field limit (which the parser would cut),
   * a file over the file limit, or either not UTF-8, is refused at its field.
   */
  async function readUpload (request: FastifyRequest, t: ReturnType<typeof translator>) {
    const fields: Record<string, string> = {}
    let file = ''
    let refused: ApiError | undefined
    try {
      for await (const part of request.parts()) {
        if (part.type === 'file') {
          const bytes = await part.toBuffer()
          if (!isUtf8(bytes)) refused ??= refusal('file', t('upload.fileNotUtf8'))
          else file = bytes.toString('utf8')
        } else if (typeof part.value === 'string') {
          // Fields arrive as latin1 (defCharset below): each character one byte as sent, to check as UTF-8.
          const bytes = Buffer.from(part.value, 'latin1')
          if (part.valueTruncated) {
            refused ??= refusal(part.fieldname, t('upload.valuesCut', { max: STOCK_ADD_BODY_LIMIT }))
          } else if (!isUtf8(bytes)) {
            refused ??= refusal(part.fieldname, t('upload.valuesNotUtf8'))
          } else {
            fields[part.fieldname] = bytes.toString('utf8')
          }
        }
      }
    } catch (err) {
      if ((err as { code?: string }).code !== 'FST_REQ_FILE_TOO_LARGE') throw err
      refused ??= refusal('file', t('upload.fileTooLarge', { max: STOCK_ADD_BODY_LIMIT }))
    }
    return { fields, file, refused }
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
        const t = translator(session.locale)
        const { fields, file, refused } = await readUpload(request, t)
        const values = linesOf(fields.values ?? '', file)
        const body = { values, ...(fields.optionId ? { optionId: fields.optionId } : {}) }
        const added = await attempt(async () => {
          if (refused) throw refused
          if (values.length === 0) {
            throw validationError(t('stock.nothingToUpload'), [
              { path: 'body.values', message: t('stock.nothingToUpload') }
            ])
          }
          return stockService.addStockItems(fastify, session.shopId, request.params.id, validated(StockAddBody, body))
        })
        if (!added.ok) {
          if (added.error.statusCode === 404) throw added.error
          const errors = formErrors(added.error, session.locale, uploadFields, 'values')
          return uploadForm(
            request,
            reply,
            { values: { text: fields.values ?? '', optionId: fields.optionId ?? '' }, errors },
            added.error.statusCode
          )
        }
        const product = await productOf(request)
        const { added: count, duplicates, filledOrders, filledOrderIds, stock } = added.value
        await recordPortalAction(fastify, request, 'stock.added', { product: product.title, added: count, duplicates })
        return reply.portalPage(
          'stock-uploaded',
          {
            section: 'stock',
            title: 'stock.uploadedTitle',
            canonical: `/portal/stock/${product.id}`,
            product,
            stock,
            result: { added: count, duplicates, filledOrders },
            filled: filledOrderIds,
            low: isLowStock(stock),
            waiting: (await waitingOrderCounts(fastify.db, [product.id])).get(product.id) ?? 0
          },
          201
        )
      }
    )
  })
}
