// Marketplace-wide leaf categories with their filters (variant tags). Shared by
// the seller listing, the operator API and the seeded taxonomy.
import { asc, eq, like, or, sql } from 'drizzle-orm'
import { validationError } from '../../domain/errors.js'
import type { CategoryFilterType } from '../../schemas/catalog.js'
import type { Queryable, Tx } from '../core/client.js'
import { categories, categoryFilterOptions, categoryFilters } from '../tables.js'

/**
 * Arbitrary constant: the advisory lock that serialises category creation, so the
 * leaf check of one request sees the category another one just created.
 */
const CATEGORY_CREATION_LOCK = 7_310_455_022

export interface CategoryInput {
  pathRu: string
  pathEn: string
  filters: Array<{ name: string, type: CategoryFilterType, affectsPrice: boolean, options: Array<{ label: string }> }>
}

export interface Category {
  id: string
  pathRu: string
  pathEn: string
  filters: Array<{
    id: string,
    name: string,
    type: CategoryFilterType,
    affectsPrice: boolean,
    options: Array<{ id: string, label: string }>
  }>
}

export function listCategories (db: Queryable): Promise<Category[]> {
  return db.query.categories.findMany({
    columns: { id: true, pathRu: true, pathEn: true },
    orderBy: [asc(categories.pathEn)],
    with: {
      filters: {
        columns: { id: true, name: true, type: true, affectsPrice: true },
        orderBy: [asc(categoryFilters.position)],
        with: { options: { columns: { id: true, label: true }, orderBy: [asc(categoryFilterOptions.position)] } }
      }
    }
  })
}

export async function getCategory (db: Queryable, id: string): Promise<Category | undefined> {
  return db.query.categories.findFirst({
    columns: { id: true, pathRu: true, pathEn: true },
    where: eq(categories.id, id),
    with: {
      filters: {
        columns: { id: true, name: true, type: true, affectsPrice: true },
        orderBy: [asc(categoryFilters.position)],
        with: { options: { columns: { id: true, label: true }, orderBy: [asc(categoryFilterOptions.position)] } }
      }
    }
  })
}

/**
 * The category whose path is `pathEn`, an ancestor of it or a descendant of it.
 * Only leaves are categories, so a new path must clash with none of these.
 */
export async function findClashingCategory (db: Queryable, pathEn: string): Promise<{ pathEn: string } | undefined> {
  const ancestors = pathEn.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'))
  const [clash] = await db.select({ pathEn: categories.pathEn }).from(categories)
    .where(or(sql`${categories.pathEn} in ${ancestors}`, like(categories.pathEn, `${pathEn}/%`)))
    .limit(1)
  return clash
}

/** Inserts a category with its filters and options; returns null if the path exists. */
export async function insertCategory (db: Queryable, input: CategoryInput): Promise<string | null> {
  const [row] = await db.insert(categories).values({ pathRu: input.pathRu, pathEn: input.pathEn })
    .onConflictDoNothing({ target: categories.pathEn })
    .returning({ id: categories.id })
  if (!row) return null
  for (const [position, filter] of input.filters.entries()) {
    const [{ id: filterId }] = await db.insert(categoryFilters)
      .values({ categoryId: row.id, position, name: filter.name, type: filter.type, affectsPrice: filter.affectsPrice })
      .returning({ id: categoryFilters.id })
    if (filter.options.length > 0) {
      await db.insert(categoryFilterOptions).values(filter.options.map((option,
        i) => ({ filterId, position: i, label: option.label })))
    }
  }
  return row.id
}

/**
 * Creates a leaf category (the operator API) inside the caller's transaction: refuses
 * a path that equals, contains or extends an existing one with 400 VALIDATION_ERROR.
 * The check and the insert run under one transaction-scoped lock, so "games/x" and
 * "games/x/y" sent at once cannot both succeed.
 */
export async function insertLeafCategory (tx: Tx, input: CategoryInput): Promise<Category> {
  await tx.execute(sql`select pg_advisory_xact_lock(${CATEGORY_CREATION_LOCK}::bigint)`)
  const clash = await findClashingCategory(tx, input.pathEn)
  if (clash) {
    throw validationError(`pathEn clashes with the existing category "${clash.pathEn}"; categories are ` +
      'leaves.', [{ path: 'body.pathEn', message: 'clashes with an existing category' }])
  }
  const id = await insertCategory(tx, input)
  if (id === null) {
    throw validationError('A category with this pathEn already ' +
    'exists.', [{ path: 'body.pathEn', message: 'already exists' }])
  }
  return (await getCategory(tx, id))!
}
