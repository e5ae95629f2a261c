// A shop's own currency rates (rubles per unit). Products priced in a currency
// show `priceRub` at the rate current when they are read.
import { and, asc, eq } from 'drizzle-orm'
import type { Queryable } from '../core/client.js'
import { currencyRates } from '../tables.js'
import { nowMs } from '../core/time.js'

export interface CurrencyRate { id: string, code: string, rate: string, updatedAt: Date }

/** A rate as the API and the CLI show it (CurrencyRateSchema in schemas/catalog.ts). */
export function currencyRateView (rate: CurrencyRate) {
  return { id: rate.id, code: rate.code, rate: Number(rate.rate), updatedAt: rate.updatedAt.toISOString() }
}

const columns = {
  id: currencyRates.id,
  code: currencyRates.code,
  rate: currencyRates.rate,
  updatedAt: currencyRates.updatedAt
}

export function listCurrencyRates (db: Queryable, shopId: string): Promise<CurrencyRate[]> {
  return db.select(columns).from(currencyRates).where(eq(currencyRates.shopId, shopId)).orderBy(asc(currencyRates.code))
}

export async function findCurrencyRate (db: Queryable, shopId: string, id: string): Promise<CurrencyRate | undefined> {
  const [rate] = await db.select(columns).from(currencyRates)
    .where(and(eq(currencyRates.id, id), eq(currencyRates.shopId, shopId)))
  return rate
}

/** Creates the shop's rate for `code` or updates it (the id stays the same). */
export async function upsertCurrencyRate (
  db: Queryable, shopId: string, code: string, rate: string
): Promise<CurrencyRate> {
  const [row] = await db.insert(currencyRates).values({ shopId, code, rate })
    .onConflictDoUpdate({
      target: [currencyRates.shopId, currencyRates.code],
      set: { rate, updatedAt: nowMs }
    })
    .returning(columns)
  return row
}
