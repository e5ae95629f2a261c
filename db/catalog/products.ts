// Products of a shop with their fields, options and filters: create, read, list,
// replace and archive. Every write of one product runs in one transaction, which
// services/catalog/service.ts opens; reads load
// a product (or a page of them) with its children and current rate in one query,
// so `priceRub` always follows the rate at read time.
import { randomUUID } from 'node:crypto'
import { and, asc, count, desc, eq, type SQL } from 'drizzle-orm'
import { isUuid } from '../../domain/ids.js'
import { fromKopecks, kopecksToDecimal, moneyToNumber, toKopecks, toRubles } from '../../domain/money.js'
import { checkFilters, checkKeptIds, checkProductInput } from '../../domain/product-rules.js'
import { ApiError, validationError } from '../../domain/errors.js'
// Taken from schemas/ on purpose: the type of the product input, which is
// the request body's own static type (ProductInputSchema). A type-only import,
// erased from the build; a hand-written copy of its twenty-odd properties would
// be a second description of the body that could drift from the schema.
import type { ProductInputBody } from '../../schemas/products.js'
import { getCategory } from './categories.js'
import type { Queryable, Tx } from '../core/client.js'
import { findCurrencyRate } from './currency-rates.js'
import { findShopMedia, mediaFilePath } from './media.js'
import { productFieldOptions, productFields, productFilters, products } from '../tables.js'
import { nowMs } from '../core/time.js'
import { stockFieldProblems } from '../stock/settings.js'

export interface ProductField {
  id: string
  type: ProductInputBody['fields'][number]['type']
  label: string
  required: boolean
  multiple: boolean
  options: Array<{ id: string, label: string, price: number }>
  valuePricing: boolean
  valueMin: number
  valueMax: number
  valueStep: number
  dataRequest: boolean
  dataRequestWebhookUrl: string
  requestAfterPayment: boolean
}

/** The full product (docs/api-rules.md, catalog) less `imageUrl`, which the route derives from `imagePath`. */
export interface Product {
  id: string
  title: string
  description: string
  categoryId: string
  active: boolean
  archived: boolean
  external: boolean
  currencyRateId: string
  price: number
  priceRub: number
  imageId: string
  /** `media/<id>.<ext>`, or '' without an image. */
  imagePath: string
  employeeReward: { type: ProductInputBody['employeeReward']['type'], value: number }
  fields: ProductField[]
  filters: Array<{ filterId: string, optionIds: string[] }>
  createdAt: string
  updatedAt: string
}

export interface ProductListFilter {
  page: number
  limit: number
  external?: boolean
  archived?: boolean
  active?: boolean
}

function findProductRows (db: Queryable, where: SQL | undefined, paging: { limit?: number, offset?: number } = {}) {
  return db.query.products.findMany({
    where,
    orderBy: [desc(products.createdAt), desc(products.id)],
    ...paging,
    with: {
      fields: {
        orderBy: [asc(productFields.position)],
        with: { options: { orderBy: [asc(productFieldOptions.position)] } }
      },
      filters: { orderBy: [asc(productFilters.position)] },
      currencyRate: { columns: { rate: true } },
      image: { columns: { id: true, ext: true } }
    }
  })
}

type ProductRow = Awaited<ReturnType<typeof findProductRows>>[number]

function toProduct (row: ProductRow): Product {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    categoryId: row.categoryId,
    active: row.active,
    archived: row.archived,
    external: row.external,
    currencyRateId: row.currencyRateId ?? '',
    price: moneyToNumber(row.price),
    priceRub: fromKopecks(toRubles(toKopecks(row.price), row.currencyRate?.rate ?? null)),
    imageId: row.imageId ?? '',
    imagePath: row.image ? mediaFilePath(row.image) : '',
    employeeReward: { type: row.employeeRewardType, value: moneyToNumber(row.employeeRewardValue) },
    fields: row.fields.map((field) => ({
      id: field.id,
      type: field.type,
      label: field.label,
      required: field.required,
      multiple: field.multiple,
      options: field.options.map((option) => ({
        id: option.id,
        label: option.label,
        price: moneyToNumber(option.price)
      })),
      valuePricing: field.valuePricing,
      valueMin: Number(field.valueMin),
      valueMax: Number(field.valueMax),
      valueStep: Number(field.valueStep),
      dataRequest: field.dataRequest,
      dataRequestWebhookUrl: field.dataRequestWebhookUrl,
      requestAfterPayment: field.requestAfterPayment
    })),
    filters: row.filters.map((filter) => ({ filterId: filter.filterId, optionIds: filter.optionIds })),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString()
  }
}

const ownedBy = (shopId: string, id: string) => and(eq(products.id, id), eq(products.shopId, shopId))

export async function getProduct (db: Queryable, shopId: string, id: string): Promise<Product | undefined> {
  if (!isUuid(id)) return undefined
  const [row] = await findProductRows(db, ownedBy(shopId, id), { limit: 1 })
  return row && toProduct(row)
}

/** A page of the shop's products, newest first (id breaks ties), and how many match in all. */
export async function listProducts (
  db: Queryable, shopId: string, filter: ProductListFilter
): Promise<{ products: Product[], total: number }> {
  const where = and(
    eq(products.shopId, shopId),
    filter.external === undefined ? undefined : eq(products.external, filter.external),
    filter.archived === undefined ? undefined : eq(products.archived, filter.archived),
    filter.active === undefined ? undefined : eq(products.active, filter.active)
  )
  const [rows, [{ total }]] = await Promise.all([
    findProductRows(db, where, { limit: filter.limit, offset: (filter.page - 1) * filter.limit }),
    db.select({ total: count() }).from(products).where(where)
  ])
  return { products: rows.map(toProduct), total }
}

/** The shop's non-archived products with external automation (the reduced list). */
export async function listExternalProducts (db: Queryable, shopId: string): Promise<Product[]> {
  const rows = await findProductRows(db,
    and(eq(products.shopId, shopId), eq(products.external, true), eq(products.archived, false)))
  return rows.map(toProduct)
}

/** 400 VALIDATION_ERROR naming every problem of a product input, when there is one. */
export function throwIfInvalid (problems: ReturnType<typeof checkProductInput>) {
  if (problems.length > 0) {
    throw validationError(`Invalid product: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}.`, problems)
  }
}

const referenceNotFound = (property: string, what: string) =>
  new ApiError('ORDER_NOT_FOUND', `${property}: no such ${what}.`)

/** Resolves categoryId, currencyRateId and imageId (404 naming the property), then checks filters. */
async function checkReferences (db: Queryable, shopId: string, input: ProductInputBody): Promise<void> {
  const category = isUuid(input.categoryId) ? await getCategory(db, input.categoryId) : undefined
  if (!category) throw referenceNotFound('categoryId', 'category')
  if (
    input.currencyRateId !== '' && !(isUuid(input.currencyRateId) && await findCurrencyRate(db, shopId,
      input.currencyRateId))
  ) {
    throw referenceNotFound('currencyRateId', 'currency rate in this shop')
  }
  if (input.imageId !== '' && !(isUuid(input.imageId) && await findShopMedia(db, shopId, input.imageId))) {
    throw referenceNotFound('imageId', 'image in this shop')
  }
  throwIfInvalid(checkFilters(input.filters, category))
}

function productColumns (input: ProductInputBody) {
  return {
    categoryId: input.categoryId,
    title: input.title.trim(),
    description: input.description,
    external: input.external,
    currencyRateId: input.currencyRateId === '' ? null : input.currencyRateId,
    price: kopecksToDecimal(toKopecks(input.price)),
    imageId: input.imageId === '' ? null : input.imageId,
    employeeRewardType: input.employeeReward.type,
    employeeRewardValue: kopecksToDecimal(toKopecks(input.employeeReward.value))
  }
}

/**
 * Rows per INSERT of a product's options. A product may have 5 000 options; built
 * as one statement, drizzle spends one long event-loop tick on it (every other
 * request waits), so they go in statements of this many rows.
 */
const OPTION_ROWS_PER_INSERT = 100

/** Inserts fields (keeping given ids), their options and the filters of a product. */
async function insertChildren (db: Queryable, productId: string, input: ProductInputBody): Promise<void> {
  const fields = input.fields.map((field, position) => ({
    id: field.id ?? randomUUID(),
    productId,
    position,
    type: field.type,
    label: field.label,
    required: field.required,
    multiple: field.multiple,
    valuePricing: field.valuePricing ?? false,
    valueMin: String(field.valueMin ?? 0),
    valueMax: String(field.valueMax ?? 0),
    valueStep: String(field.valueStep ?? 0),
    dataRequest: field.dataRequest ?? false,
    dataRequestWebhookUrl: field.dataRequestWebhookUrl ?? '',
    requestAfterPayment: field.requestAfterPayment ?? false
  }))
  const options = input.fields.flatMap((field, i) => field.options.map((option, position) => ({
    id: option.id ?? randomUUID(),
    fieldId: fields[i].id,
    position,
    label: option.label,
    price: kopecksToDecimal(toKopecks(option.price))
  })))
  const filters = input.filters.map((filter,
    position) => ({ productId, position, filterId: filter.filterId, optionIds: filter.optionIds }))
  if (fields.length > 0) await db.insert(productFields).values(fields)
  for (let start = 0; start < options.length; start += OPTION_ROWS_PER_INSERT) {
    await db.insert(productFieldOptions).values(options.slice(start, start + OPTION_ROWS_PER_INSERT))
  }
  if (filters.length > 0) await db.insert(productFilters).values(filters)
}

async function readProduct (db: Queryable, shopId: string, id: string): Promise<Product> {
  const product = await getProduct(db, shopId, id)
  if (!product) throw new Error(`product ${id} vanished inside its own transaction`)
  return product
}

/** Inserts a product with its children (the input checked by the caller), inside the caller's transaction. */
export async function insertProduct (tx: Tx, shopId: string, input: ProductInputBody): Promise<Product> {
  await checkReferences(tx, shopId, input)
  const [{ id }] = await tx.insert(products)
    .values({ shopId, ...productColumns(input), active: input.isActive })
    .returning({ id: products.id })
  await insertChildren(tx, id, input)
  return readProduct(tx, shopId, id)
}

/**
 * Full replacement under the product's row lock, inside the caller's transaction (the
 * input checked by the caller); undefined when the shop has no such product. Field and
 * option ids given in the input are kept.
 */
export async function rewriteProduct (
  tx: Tx, shopId: string, id: string, input: ProductInputBody
): Promise<Product | undefined> {
  const [current] = await tx.select({ archived: products.archived }).from(products).where(ownedBy(shopId,
    id)).for('update')
  if (!current) return undefined
  await checkReferences(tx, shopId, input)
  const existing = await tx.select({ fieldId: productFields.id, optionId: productFieldOptions.id })
    .from(productFields)
    .leftJoin(productFieldOptions, eq(productFieldOptions.fieldId, productFields.id))
    .where(eq(productFields.productId, id))
  const kept = new Map<string, Set<string>>()
  for (const { fieldId, optionId } of existing) {
    const options = kept.get(fieldId) ?? new Set<string>()
    if (optionId) options.add(optionId)
    kept.set(fieldId, options)
  }
  throwIfInvalid(checkKeptIds(input.fields, kept))
  throwIfInvalid(await stockFieldProblems(tx, id, input.fields))

  await tx.update(products)
    // Any replacement clears deactivatedByStock: the seller has said what `active` is.
    .set({
      ...productColumns(input),
      active: current.archived ? false : input.isActive,
      deactivatedByStock: false,
      updatedAt: nowMs
    })
    .where(ownedBy(shopId, id))
  // Children are rewritten whole; kept ids are inserted again as they were.
  await tx.delete(productFields).where(eq(productFields.productId, id))
  await tx.delete(productFilters).where(eq(productFilters.productId, id))
  await insertChildren(tx, id, input)
  return readProduct(tx, shopId, id)
}

/**
 * Archives (hidden and inactive) or un-archives (still inactive), inside the caller's
 * transaction; undefined when the shop has no such product.
 */
export async function setProductArchived (
  tx: Tx, shopId: string, id: string, archived: boolean
): Promise<Product | undefined> {
  const [row] = await tx.update(products)
    .set(archived ? { archived, active: false, updatedAt: nowMs } : { archived, updatedAt: nowMs })
    .where(ownedBy(shopId, id))
    .returning({ id: products.id })
  if (!row) return undefined
  return readProduct(tx, shopId, id)
}
