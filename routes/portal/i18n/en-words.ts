// The portal's English words for the values of the service's enums (words.ts says why typed maps).
import type { EnPlural, Words } from './words.js'

export const enWords: Words<EnPlural> = {
  claimStatus: {
    open: 'Open',
    escalated: 'Escalated',
    replaced: 'Replaced',
    refunded: 'Refunded',
    rejected: 'Rejected'
  },
  claimReason: { not_working: 'Does not work', already_used: 'Already used', wrong_item: 'Wrong item', other: 'Other' },
  resolvedBy: { seller: 'by the shop', auto: 'automatically', operator: 'by the marketplace' },
  autoDelivery: { off: 'Off', stock: 'From stock', endpoint: 'From your delivery endpoint' },
  stockItemStatus: { available: 'Available', delivered: 'Delivered', removed: 'Removed', defective: 'Defective' },
  salesGrouping: { day: 'Day', week: 'Week (from Monday)', month: 'Month', product: 'Product' },
  attemptStatus: { pending: 'Pending', succeeded: 'Delivered', failed: 'Failed' },
  deliveryRequestStatus: { pending: 'Pending', succeeded: 'Delivered', failed: 'Failed', discarded: 'Not used' },
  activity: {
    'session.entered': 'Opened the portal{readOnly}',
    'session.signedOut': 'Signed out',
    'apiKey.created': 'Created the API key “{name}” ({prefix}…)',
    'apiKey.revoked': 'Revoked the API key “{name}” ({prefix}…)',
    'webhook.created': 'Added the webhook endpoint {host}',
    'webhook.updated': 'Changed the webhook endpoint {host}',
    'webhook.deleted': 'Deleted the webhook endpoint {host}',
    'webhook.rotated': 'Rotated the signing secret of {host}',
    'webhook.tested': 'Sent a test event to {host}',
    'webhook.retried': 'Retried a delivery to {host}',
    'delivery.saved': 'Set the delivery endpoint to {host}',
    'delivery.deleted': 'Deleted the delivery endpoint {host}',
    'delivery.rotated': 'Rotated the delivery endpoint\'s signing secret',
    'delivery.tested': 'Tested the delivery endpoint with “{product}”: {result}',
    'claim.replaced': {
      one: 'Replaced {count} code of the claim on order {order} from stock',
      other: 'Replaced {count} codes of the claim on order {order} from stock'
    },
    'claim.refunded': 'Refunded order {order} on its claim',
    'claim.rejected': 'Rejected the claim on order {order}',
    'stock.added': {
      one: 'Uploaded {count} code to “{product}” ({duplicates} not added)',
      other: 'Uploaded {count} codes to “{product}” ({duplicates} not added)'
    },
    'stock.removed': { one: 'Removed {count} code from “{product}”', other: 'Removed {count} codes from “{product}”' },
    'stock.updated': 'Changed the stock settings of “{product}”',
    'chatRule.created': 'Added the auto-reply “{name}”',
    'chatRule.updated': 'Changed the auto-reply “{name}”',
    'chatRule.enabled': 'Enabled the auto-reply “{name}”',
    'chatRule.disabled': 'Disabled the auto-reply “{name}”',
    'chatRule.deleted': 'Deleted the auto-reply “{name}”',
    'order.taken': 'Took order {order} into work',
    'order.delivered': 'Delivered order {order}',
    'order.cancelled': 'Cancelled order {order}',
    'order.replied': 'Replied in the chat of order {order}',
    'order.revealed': 'Showed the delivered codes of order {order}'
  },
  orderStatus: {
    paid: 'Paid, waiting',
    processing: 'In work',
    awaiting_confirmation: 'Delivered, awaiting confirmation',
    completed: 'Completed',
    cancelled: 'Cancelled'
  },
  assignee: { user: 'A person', api: 'The API', auto: 'The service, automatically' },
  senderRole: { buyer: 'Buyer', seller: 'You', system: 'System' },
  eventType: {
    'order.paid': 'Paid',
    'order.taken': 'Taken into work',
    'order.delivered': 'Delivered',
    'order.cancelled': 'Cancelled',
    'order.completed': 'The buyer confirmed receipt',
    'message.created': 'A chat message',
    'stock.low': 'Stock is low',
    'stock.empty': 'Stock ran out',
    'order.delivery_failed': 'The delivery endpoint could not supply it',
    'claim.opened': 'A claim was opened',
    'claim.escalated': 'The claim was escalated to the marketplace',
    'claim.resolved': 'The claim was settled',
    'order.updated': 'Its codes changed',
    'chat.seller_called': 'An auto-reply called you'
  },
  chatRuleTrigger: {
    'order.paid': 'An order is paid',
    'order.delivered': 'An order is delivered',
    'order.completed': 'The buyer confirms receipt',
    'order.cancelled': 'An order is cancelled',
    'claim.opened': 'A claim is opened',
    'claim.resolved': 'A claim is settled',
    'message.first': 'The buyer\'s first message',
    'message.keyword': 'A buyer\'s message with a keyword',
    'order.unconfirmed': 'Receipt not confirmed after a while'
  },
  removeCodes: { one: 'Remove {count} code?', other: 'Remove {count} codes?' },
  waitingOrders: { one: '{count} paid order is waiting for codes', other: '{count} paid orders are waiting for codes' },
  filledOrders: {
    one: 'Delivered from stock to {count} waiting order:',
    other: 'Delivered from stock to {count} waiting orders:'
  },
  selectCodes: { one: 'Select the {count} code on this page', other: 'Select all {count} codes on this page' },
  rulePosted: { one: '{count} message', other: '{count} messages' }
}
