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
import { ApiError, notFound, ruleOf, type ErrorDetail } from '../../domain/errors.js'
import { isLowStock } from '../../domain/stock-rules.js'
import { waitingOrderCounts } from '../../services/portal/service.js'
import * as stockService from '../../services/stock/service.js'
import { recordPortalAction } from './activity.js'
import { attempt, validated } from './forms.js'
import { portalRefusal } from './i18n/api-messages.js'
import { formErrors, type FormFields, type PageData } from './render.js'

type Params = { id: string }

const uploadFields: FormFields = {
  values: { id: 'values', label: 'stock.values' },
  optionId: { id: 'option', label: 'stock.variant' },
  file: { id: 'file', label: 'stock.file' }
}

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

/** The session's shop's product the address names; 404 when it has none. */
export async function productOf (
  fastify: Pick<FastifyInstance, 'db'>, request: FastifyRequest<{ Params: Params }>
): Promise<Product> {
  const product = await getProduct(fastify.db, request.portalSession!.shopId, request.params.id)
  if (!product) throw notFound('Product')
  return product
}

export default async function stockUpload (fastify: FastifyInstance) {
  async function uploadForm (
    request: FastifyRequest<{ Params: Params }>,
    reply: FastifyReply,
    data: Partial<PageData> = {},
    status = 200
  ) {
    const product = await productOf(fastify, request)
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
        const product = await productOf(fastify, request)
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
