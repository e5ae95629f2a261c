// The English texts of a claim's facts and of the confirmations of its answers
// (docs/portal.md "Claims"), kept beside en.ts, which spreads them in: what the
// claim reports of what the order delivered, what a replacement takes from where,
// and what a refund pays back and does to the shop's balance.
export const enClaims = {
  'claims.col.reported': 'Reported',
  'claims.reportsOf': 'Codes reported: {count} of {delivered} delivered',
  'claims.reportsNone': 'Codes delivered: {delivered}. The buyer reported none in particular, so the claim can be ' +
    'refunded or rejected, not replaced.',
  'claims.reportsUndelivered': 'The order delivered no codes: the claim is about the whole order.',
  'claims.replaceTitle': 'Replace the reported codes from stock?',
  'claims.replaceFrom': 'Taken from the stock of “{product}”, oldest first: {available} available now.',
  'claims.replaceShort': 'The stock holds fewer than that: the replacement would be refused. Add codes first, or ' +
    'refund.',
  'claims.replaceAfter': 'The reported codes become defective and are never sold again; the buyer sees the new codes ' +
    'in the order.',
  'claims.refundAmount': 'The buyer gets {amount} back and the order is cancelled.',
  'claims.refundCompleted': 'The order was completed, so the {amount} credited to the shop\'s balance for it is ' +
    'taken back: the balance goes down by {amount}.',
  'claims.refundNotCompleted': 'The order was not completed yet, so nothing had been credited for it: the shop\'s ' +
    'balance does not change.',
  'claims.refundNeverSold': 'The reported codes are never sold again.'
}
