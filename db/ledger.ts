// The ledger: one row per money movement of an order (a `refund` to the buyer or
// a `credit` to the shop), written by the order transitions in their transaction.
// A shop's balance is derived from it, never stored.
import { asc, eq } from 'drizzle-orm'
import { fromKopecks, moneyToNumber, toKopecks } from '../domain/money.js'
import type { Queryable } from './client.js'
import { ledgerEntries } from './schema.js'

export interface LedgerEntry { id: string, orderId: string, kind: string, amount: string, createdAt: Date }

/** The shop's entries, oldest first. */
export function listLedgerEntries (db: Queryable, shopId: string): Promise<LedgerEntry[]> {
  return db.select({
    id: ledgerEntries.id,
    orderId: ledgerEntries.orderId,
    kind: ledgerEntries.kind,
    amount: ledgerEntries.amount,
    createdAt: ledgerEntries.createdAt
  }).from(ledgerEntries)
    .where(eq(ledgerEntries.shopId, shopId))
    .orderBy(asc(ledgerEntries.createdAt), asc(ledgerEntries.id))
}

/** The shop's entries and balance as LedgerSchema (schemas/orders.ts): money as numbers, times as the API writes them. */
export function ledgerView (entries: LedgerEntry[]) {
  let credits = 0n
  for (const e of entries) if (e.kind === 'credit') credits += toKopecks(e.amount)
  return {
    entries: entries.map((e) => ({ ...e, kind: e.kind as 'refund' | 'credit', amount: moneyToNumber(e.amount), createdAt: e.createdAt.toISOString() })),
    balance: fromKopecks(credits)
  }
}
