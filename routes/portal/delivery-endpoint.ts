// The Delivery endpoint page (docs/portal.md): the shop's one delivery endpoint
// (set, change, rotate its secret, delete: the irreversible steps after a
// confirmation), the test call with its result, and the recent delivery
// requests with every attempt. Changes go through the /v1 calls' own actions
// (services/delivery-endpoint/service.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { listRecentDeliveryRequests } from '../../services/delivery-endpoint/service.js'
import { listProducts } from '../../services/catalog/service.js'
import { DeliveryEndpointBody, DeliveryTestBody } from '../../schemas/delivery-endpoint.js'
import { clientGone } from '../../lib/client-gone.js'
import {
  deleteShopDeliveryEndpoint, deliveryEndpointNotFound, findShopDeliveryEndpoint, putShopDeliveryEndpoint,
  rotateShopDeliverySecret, testShopDeliveryEndpoint
} from '../../services/delivery-endpoint/service.js'
import { hostOf, recordPortalAction } from './activity.js'
import { attempt, formOf, text, validated } from './forms.js'
import { translator } from './i18n/index.js'
import { answerProblemSentence } from './i18n/api-messages.js'
import { formErrors, type FormFields, type PageData } from './render.js'

const RECENT_REQUESTS = 20
const CANONICAL = '/portal/delivery-endpoint'
const urlFields: FormFields = { url: { id: 'url', label: 'delivery.url' } }
const testFields: FormFields = {
  productId: { id: 'product', label: 'delivery.product' },
  quantity: { id: 'quantity', label: 'delivery.quantity' }
}

/** A quantity as typed: a whole number when it is one, else the text (the schema then says what is wrong). */
const quantityOf = (value: string) => (/^\s*\d{1,7}\s*$/.test(value) ? Number(value) : value)

export default async function deliveryEndpointPage (fastify: FastifyInstance) {
  async function page (request: FastifyRequest, reply: FastifyReply, data: Partial<PageData> = {}, status = 200) {
    const { shopId } = request.portalSession!
    const [endpoint, { products }, requests] = await Promise.all([
      findShopDeliveryEndpoint(fastify, shopId),
      listProducts(fastify.db, shopId, { page: 1, limit: 100, archived: false }),
      listRecentDeliveryRequests(fastify.db, shopId, RECENT_REQUESTS)
    ])
    return reply.portalPage(
      'delivery-endpoint',
      {
        section: 'delivery-endpoint',
        title: 'delivery.title',
        canonical: CANONICAL,
        endpoint,
        products,
        requests,
        values: {},
        testValues: { quantity: '1' },
        ...data
      },
      status
    )
  }

  fastify.get('/', async function deliveryEndpoint (request, reply) {
    return page(request, reply)
  })

  async function save (
    request: FastifyRequest,
    reply: FastifyReply,
    template: 'delivery-endpoint' | 'delivery-endpoint-form'
  ) {
    const session = request.portalSession!
    const t = translator(session.locale)
    const url = text(formOf(request.body), 'url')
    const saved = await attempt(() => putShopDeliveryEndpoint(
      fastify, session.shopId, validated(DeliveryEndpointBody, { url })
    ))
    if (!saved.ok) {
      const errors = formErrors(saved.error, session.locale, urlFields, 'url')
      if (template === 'delivery-endpoint') return page(request, reply, { values: { url }, errors }, 400)
      return reply.portalPage(
        template,
        {
          section: 'delivery-endpoint',
          title: 'delivery.editTitle',
          canonical: `${CANONICAL}/edit`,
          values: { url },
          errors
        },
        400
      )
    }
    await recordPortalAction(fastify, request, 'delivery.saved', { host: hostOf(saved.value.deliveryEndpoint.url) })
    if (saved.value.secret === undefined) return page(request, reply, { notice: t('delivery.saved') })
    return reply.portalPage(
      'delivery-endpoint-secret',
      {
        section: 'delivery-endpoint',
        title: 'delivery.createdTitle',
        canonical: CANONICAL,
        endpoint: saved.value.deliveryEndpoint,
        secret: saved.value.secret
      },
      201
    )
  }

  fastify.post('/', async function setDeliveryEndpoint (request, reply) {
    return save(request, reply, 'delivery-endpoint')
  })

  fastify.get('/edit', async function editDeliveryEndpoint (request, reply) {
    const endpoint = await findShopDeliveryEndpoint(fastify, request.portalSession!.shopId)
    if (!endpoint) throw deliveryEndpointNotFound()
    return reply.portalPage('delivery-endpoint-form', {
      section: 'delivery-endpoint',
      title: 'delivery.editTitle',
      values: { url: endpoint.url }
    })
  })

  fastify.post('/edit', async function changeDeliveryEndpoint (request, reply) {
    return save(request, reply, 'delivery-endpoint-form')
  })

  fastify.get('/rotate', async function confirmRotate (request, reply) {
    if (!(await findShopDeliveryEndpoint(fastify, request.portalSession!.shopId))) throw deliveryEndpointNotFound()
    return reply.portalPage('confirm', {
      section: 'delivery-endpoint',
      title: 'delivery.rotateTitle',
      text: 'delivery.rotateText',
      action: `${CANONICAL}/rotate`,
      cancel: CANONICAL
    })
  })

  fastify.post('/rotate', async function rotateSecret (request, reply) {
    const { deliveryEndpoint, secret } = await rotateShopDeliverySecret(fastify, request.portalSession!.shopId)
    await recordPortalAction(fastify, request, 'delivery.rotated')
    return reply.portalPage('delivery-endpoint-secret', {
      section: 'delivery-endpoint',
      title: 'delivery.rotatedTitle',
      canonical: CANONICAL,
      endpoint: deliveryEndpoint,
      secret
    })
  })

  fastify.get('/delete', async function confirmDelete (request, reply) {
    if (!(await findShopDeliveryEndpoint(fastify, request.portalSession!.shopId))) throw deliveryEndpointNotFound()
    return reply.portalPage('confirm', {
      section: 'delivery-endpoint',
      title: 'delivery.deleteTitle',
      text: 'delivery.deleteText',
      action: `${CANONICAL}/delete`,
      cancel: CANONICAL
    })
  })

  fastify.post('/delete', async function deleteDeliveryEndpoint (request, reply) {
    const session = request.portalSession!
    const endpoint = await deleteShopDeliveryEndpoint(fastify, session.shopId)
    await recordPortalAction(fastify, request, 'delivery.deleted', { host: hostOf(endpoint.url) })
    return page(request, reply, { notice: translator(session.locale)('delivery.deleted') })
  })

  fastify.post('/test', async function testDeliveryEndpoint (request, reply) {
    const session = request.portalSession!
    const form = formOf(request.body)
    const testValues = { productId: text(form, 'productId'), quantity: text(form, 'quantity') }
    const body = { productId: testValues.productId, quantity: quantityOf(testValues.quantity) }
    const tested = await attempt(() =>
      testShopDeliveryEndpoint(fastify, session.shopId, validated(DeliveryTestBody, body), clientGone(reply))
    )
    if (!tested.ok) {
      const errors = formErrors(
        tested.error,
        session.locale,
        testFields,
        tested.error.code === 'ORDER_NOT_FOUND' ? 'productId' : undefined
      )
      return page(request, reply, { testValues, errors }, tested.error.statusCode)
    }
    const products = await listProducts(fastify.db, session.shopId, { page: 1, limit: 100, archived: false })
    const product = products.products.find((p) => p.id === body.productId)
    await recordPortalAction(fastify, request, 'delivery.tested', {
      product: product?.title ?? '',
      ok: tested.value.ok
    })
    // The answer's problems in the page's language, from their kinds (never the API's English).
    const problems = tested.value.findings.map((problem) => answerProblemSentence(session.locale, problem))
    return page(request, reply, { testValues, result: { ...tested.value, problems } })
  })
}
