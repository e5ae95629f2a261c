// The ledger: one row per money movement of an order (a `refund` to the buyer, a
// `credit` to the shop, or a `debit`: a credit taken back by a claim's refund,
// docs/claims.md), written by the order transitions in their transaction.
// A shop's balance is derived from it (credits − debits), never stored.
import { asc, eq } from 'drizzle-orm'
import { fromKopecks, moneyToNumber, toKopecks } from '../../domain/money.js'
import type { LedgerKind } from '../../domain/order-transitions.js'
import type { Queryable } from '../core/client.js'
import { ledgerEntries } from '../tables.js'

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

/**
 * The shop's entries and balance as LedgerSchema (schemas/orders.ts): money as numbers,
 * times as the API writes them.
 */
export function ledgerView (entries: LedgerEntry[]) {
  let balance = 0n
  for (const e of entries) {
    if (e.kind === 'credit') balance += toKopecks(e.amount)
    else if (e.kind === 'debit') balance -= toKopecks(e.amount)
  }
  return {
    entries: entries.map((e) => ({
      ...e,
      kind: e.kind as LedgerKind,
      amount: moneyToNumber(e.amount),
      createdAt: e.createdAt.toISOString()
    })),
    balance: fromKopecks(balance)
  }
}
