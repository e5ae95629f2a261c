// The shop's catalog: list, create, read, replace and archive products
// (docs/api-rules.md, catalog). Rules live in services/catalog/service.ts, db/catalog/products.ts
// and domain/product-rules.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import {
  archiveProduct, createProduct, getProduct, listExternalProducts, listProducts,
  replaceProduct
} from '../../../services/catalog/service.js'
import { notFound } from '../../../domain/errors.js'
import { PRODUCT_BODY_LIMIT } from '../../../schemas/body-limits.js'
import { CommonErrors, Envelope, IdParams, sellerSecurity } from '../../../schemas/common.js'
import {
  ArchiveInputSchema, ProductInputSchema, ProductListQuerySchema, ProductPageSchema, ProductSchema,
  ReducedProductListSchema
} from '../../../schemas/products.js'

const ProductEnvelope = Envelope(Type.Object({ product: ProductSchema }))
const referenceRules = 'Unknown `categoryId`, or a `currencyRateId` / `imageId` that is not this shop\'s: 404 ' +
  'ORDER_NOT_FOUND naming the property. ' +
  'Field rules (text and number fields have no options, number needs valueMin ≤ valueMax and valueStep > 0, ' +
    'select needs an option, webhooks are https), ' +
  'filters of another category and unknown field ids: 400 VALIDATION_ERROR.'

/** The API representation: `imageUrl` is the public address of the image path. */
function productView<P extends { imagePath: string }> (product: P, publicBaseUrl: string): P & { imageUrl: string } {
  return { ...product, imageUrl: product.imagePath ? `${publicBaseUrl}/${product.imagePath}` : '' }
}

const productsRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const view = <P extends { imagePath: string }>(product: P) => productView(product, fastify.config.PUBLIC_BASE_URL)

  fastify.get('/', {
    schema: {
      operationId: 'listProducts',
      tags: ['products'],
      summary: 'List products',
      description: 'Full form (default): all the shop\'s products, newest first (id breaks ties), paged ' +
        '(`page` from 1, `limit` 1–100, default 20), with `total`; ' +
        'optional filters `external`, `archived`, `active`. `view=reduced`: `{products}` of the non-archived ' +
          'products with external automation, ' +
        'each with `id`, `title`, `price`, `active` and `fields` (options with `id` and `label` only), no paging.',
      security: sellerSecurity,
      querystring: ProductListQuerySchema,
      response: { 200: Envelope(Type.Union([ProductPageSchema, ReducedProductListSchema])), ...CommonErrors }
    }
  }, async function listShopProducts (request) {
    const shopId = request.apiKey!.shopId
    const { view: form, page, limit, ...filter } = request.query
    if (form === 'reduced') {
      return { success: true as const, data: { products: await listExternalProducts(fastify.db, shopId) } }
    }
    const result = await listProducts(fastify.db, shopId, { page, limit, ...filter })
    return { success: true as const, data: { products: result.products.map(view), total: result.total, page, limit } }
  })

  fastify.post('/', {
    bodyLimit: PRODUCT_BODY_LIMIT,
    config: { idempotent: true },
    schema: {
      operationId: 'createProduct',
      tags: ['products'],
      summary: 'Create a product',
      description: 'Every property of the input is required (no server defaults); unknown top-level ' +
        'properties are ignored. ' + referenceRules +
        ' Honours `Idempotency-Key`.',
      security: sellerSecurity,
      body: ProductInputSchema,
      response: {
        201: ProductEnvelope,
        409: CommonErrors[400],
        413: CommonErrors[400],
        422: CommonErrors[400],
        ...CommonErrors
      }
    }
  }, async function createShopProduct (request, reply) {
    const product = await createProduct(fastify, request.apiKey!.shopId, request.body)
    return reply.code(201).send({ success: true as const, data: { product: view(product) } })
  })

  fastify.get('/:id', {
    schema: {
      operationId: 'getProduct',
      tags: ['products'],
      summary: 'Get a product',
      description: 'The full product. Another shop\'s product, or an id that is not one, is 404 ORDER_NOT_FOUND.',
      security: sellerSecurity,
      params: IdParams,
      response: { 200: ProductEnvelope, ...CommonErrors }
    }
  }, async function getShopProduct (request) {
    const product = await getProduct(fastify.db, request.apiKey!.shopId, request.params.id)
    if (!product) throw notFound('Product')
    return { success: true as const, data: { product: view(product) } }
  })

  fastify.put('/:id', {
    bodyLimit: PRODUCT_BODY_LIMIT,
    schema: {
      operationId: 'replaceProduct',
      tags: ['products'],
      summary: 'Replace a product',
      description: 'Full replacement with the same body as create. A field or option sent with its `id` keeps ' +
        'it; others get new ids. ' +
        'While the product is archived `active` stays false whatever `isActive` says. ' + referenceRules,
      security: sellerSecurity,
      params: IdParams,
      body: ProductInputSchema,
      response: { 200: ProductEnvelope, 413: CommonErrors[400], ...CommonErrors }
    }
  }, async function replaceShopProduct (request) {
    const product = await replaceProduct(fastify, request.apiKey!.shopId, request.params.id, request.body)
    if (!product) throw notFound('Product')
    return { success: true as const, data: { product: view(product) } }
  })

  fastify.post('/:id/archive', {
    schema: {
      operationId: 'archiveProduct',
      tags: ['products'],
      summary: 'Archive or un-archive a product',
      description: '`{archived: true}` hides the product and makes it inactive; `{archived: false}` returns ' +
        'it from the archive but leaves it inactive. Products are never deleted.',
      security: sellerSecurity,
      params: IdParams,
      body: ArchiveInputSchema,
      response: { 200: ProductEnvelope, ...CommonErrors }
    }
  }, async function archiveShopProduct (request) {
    const product = await archiveProduct(fastify, request.apiKey!.shopId, request.params.id, request.body.archived)
    if (!product) throw notFound('Product')
    return { success: true as const, data: { product: view(product) } }
  })
}

export default productsRoutes
