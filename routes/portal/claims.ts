// The Claims page (docs/portal.md): the shop's claims (docs/claims.md), those
// waiting for an answer (open and escalated) first, then the settled ones, each
// list newest first and paged, each saying what it reports of what its order
// delivered. Every answer asks first (none can be undone): replace names how many
// codes go out from which stock, refund the amount and what happens to the shop's
// balance, reject takes the note the buyer reads.
// Every answer goes through the /v1 calls' own service (services/claims/);
// the Activity page records which claim was answered how, never a value.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { getProduct } from '../../services/catalog/service.js'
import { getShopOrder } from '../../services/orders/service.js'
import { getStock } from '../../services/stock/service.js'
import { claimActions as allowedFrom, type ClaimStatus } from '../../domain/claims.js'
import type { ApiError } from '../../domain/errors.js'
import { RefundClaimBody, RejectClaimBody } from '../../schemas/claims.js'
import { getClaimForShop, listClaimsForShop, type Claim } from '../../services/claims/read.js'
import { refundClaim, rejectClaim, replaceClaim } from '../../services/claims/settle.js'
import { recordPortalAction } from './activity.js'
import { attempt, formOf, text, validated, type Form } from './forms.js'
import { translator } from './i18n/index.js'
import { formErrors, type FormFields, type PageData } from './render.js'

type Params = { id: string }
type Answer = 'replace' | 'refund' | 'reject'
/** What a claim's page says of its order: the codes it delivered, its amount and status. */
type OrderFacts = { delivered: number, amount: number, status: string }
const titles = { replace: 'claims.replaceTitle', refund: 'claims.refundTitle', reject: 'claims.rejectTitle' } as const
const CLAIMS_PER_PAGE = 20
const WAITING: ClaimStatus[] = ['open', 'escalated']
const SETTLED: ClaimStatus[] = ['replaced', 'refunded', 'rejected']
const noteFields: FormFields = { note: { id: 'note', label: 'claims.note' } }

/** A cursor from the page's address, when it could be one (the list's own check says the rest). */
const cursorOf = (query: unknown, name: string) => {
  const value = (query as Record<string, unknown>)[name]
  return typeof value === 'string' && value.length > 0 && value.length <= 200 ? value : undefined
}

/** Which answers a claim in `status` allows (domain/claims.ts). */
export const answersFor = (status: ClaimStatus) => ({
  replace: allowedFrom.replace.includes(status),
  refund: allowedFrom.refund.includes(status),
  reject: allowedFrom.reject.includes(status)
})

export default async function claimsPage (fastify: FastifyInstance) {
  async function productTitles (shopId: string, claims: Claim[]): Promise<Record<string, string>> {
    const ids = [...new Set(claims.map((claim) => claim.productId))]
    const products = await Promise.all(ids.map((id) => getProduct(fastify.db, shopId, id)))
    return Object.fromEntries(products.flatMap((product) => (product ? [[product.id, product.title]] : [])))
  }

  /** The claims' orders as /v1 shows them (an order not visible through /v1 is left out: its claim says less). */
  async function orderFacts (shopId: string, claims: Claim[]): Promise<Record<string, OrderFacts>> {
    const ids = [...new Set(claims.map((claim) => claim.orderId))]
    const orders = await Promise.all(ids.map((id) => attempt(() => getShopOrder(fastify, shopId, id))))
    return Object.fromEntries(orders.flatMap((found) => (found.ok
      ? [[found.value.id, {
          delivered: found.value.deliveredValues.length,
          amount: found.value.amount,
          status: found.value.status
        }]]
      : [])))
  }

  async function listPage (request: FastifyRequest, reply: FastifyReply, data: Partial<PageData> = {}, status = 200) {
    const { shopId } = request.portalSession!
    const query = request.method === 'GET' ? request.query : {}
    const waitingAfter = cursorOf(query, 'waitingAfter')
    const after = cursorOf(query, 'after')
    const [waiting, settled] = await Promise.all([
      listClaimsForShop(fastify, shopId,
        { status: WAITING.join(','), limit: CLAIMS_PER_PAGE, after: waitingAfter }),
      listClaimsForShop(fastify, shopId, { status: SETTLED.join(','), limit: CLAIMS_PER_PAGE, after })
    ])
    return reply.portalPage(
      'claims',
      {
        section: 'claims',
        title: 'claims.title',
        canonical: '/portal/claims',
        waiting,
        settled,
        waitingPaged: waitingAfter !== undefined,
        settledPaged: after !== undefined,
        products: await productTitles(shopId, [...waiting.claims, ...settled.claims]),
        orders: await orderFacts(shopId, [...waiting.claims, ...settled.claims]),
        answersFor,
        ...data
      },
      status
    )
  }

  async function confirmPage (
    request: FastifyRequest<{ Params: Params }>,
    reply: FastifyReply,
    answer: Answer,
    values: Form = {},
    data: Partial<PageData> = {},
    status = 200
  ) {
    const { shopId } = request.portalSession!
    const claim = await getClaimForShop(fastify, shopId, request.params.id)
    const stock = answer === 'replace' ? await attempt(() => getStock(fastify, shopId, claim.productId)) : undefined
    return reply.portalPage(
      'claim-confirm',
      {
        section: 'claims',
        title: titles[answer],
        canonical: `/portal/claims/${claim.id}/${answer}`,
        answer,
        claim,
        order: (await orderFacts(shopId, [claim]))[claim.orderId],
        available: stock?.ok ? stock.value.available : 0,
        products: await productTitles(shopId, [claim]),
        note: text(values, 'note'),
        ...data
      },
      status
    )
  }

  /** The list again after an answer failed: the API's words at the top, its status code. */
  const refused = (request: FastifyRequest, reply: FastifyReply, error: ApiError) => {
    if (error.statusCode === 404) throw error
    return listPage(request, reply, { errors: formErrors(error, request.portalSession!.locale) }, error.statusCode)
  }

  fastify.get('/', async function claimsList (request, reply) {
    return listPage(request, reply)
  })

  fastify.get<{ Params: Params }>('/:id/replace', async function confirmReplace (request, reply) {
    return confirmPage(request, reply, 'replace')
  })

  fastify.post<{ Params: Params }>('/:id/replace', async function replaceFromStock (request, reply) {
    const session = request.portalSession!
    const replaced = await attempt(() => replaceClaim(fastify, session.shopId, request.params.id, null))
    if (!replaced.ok) return refused(request, reply, replaced.error)
    const { claim } = replaced.value
    const order = claim.orderId.slice(0, 8)
    await recordPortalAction(fastify, request, 'claim.replaced', { order, count: claim.valueIndexes.length })
    const t = translator(session.locale)
    return listPage(request, reply, { notice: t('claims.replaced', { order }) })
  })

  for (const answer of ['refund', 'reject'] as const) {
    fastify.get<{ Params: Params }>(`/:id/${answer}`, async function confirmAnswer (request, reply) {
      return confirmPage(request, reply, answer)
    })

    fastify.post<{ Params: Params }>(`/:id/${answer}`, async function answerClaim (request, reply) {
      const session = request.portalSession!
      const form = formOf(request.body)
      const note = text(form, 'note')
      const done = await attempt(async () => {
        if (answer === 'refund') {
          const body = validated(RefundClaimBody, note.trim() === '' ? {} : { note })
          return refundClaim(fastify, session.shopId, request.params.id, body)
        }
        return rejectClaim(fastify, session.shopId, request.params.id, validated(RejectClaimBody, { note }))
      })
      if (!done.ok) {
        if (done.error.statusCode !== 400) return refused(request, reply, done.error)
        const errors = formErrors(done.error, session.locale, noteFields, 'note')
        return confirmPage(request, reply, answer, form, { errors }, 400)
      }
      const { claim } = done.value
      const order = claim.orderId.slice(0, 8)
      await recordPortalAction(fastify, request, answer === 'refund' ? 'claim.refunded' : 'claim.rejected', { order })
      const t = translator(session.locale)
      const notice = t(answer === 'refund' ? 'claims.refunded' : 'claims.rejected', { order })
      return listPage(request, reply, { notice })
    })
  }
}
