// The portal's sections, in the order of the navigation. A section added here
// (Claims, Sales) appears on every page; its link's accessible name is its English
// text (docs/portal.md).
import type { PortalLocale } from '../../domain/portal-token.js'
import type { MessageKey } from './i18n/index.js'

export type Section = 'attention' | 'orders' |
  'api-keys' | 'webhooks' | 'delivery-endpoint' | 'stock' | 'claims' | 'chat-rules' | 'sales' | 'activity'

/** A count the navigation shows beside a section (db/portal/attention.ts badgeCounts). */
export type Badge = 'claims' | 'waiting'

export const navigation: ReadonlyArray<{ section: Section, href: string, label: MessageKey, badge?: Badge }> = [
  { section: 'attention', href: '/portal/attention', label: 'nav.attention' },
  { section: 'orders', href: '/portal/orders', label: 'nav.orders', badge: 'waiting' },
  { section: 'api-keys', href: '/portal/api-keys', label: 'nav.apiKeys' },
  { section: 'webhooks', href: '/portal/webhooks', label: 'nav.webhooks' },
  { section: 'delivery-endpoint', href: '/portal/delivery-endpoint', label: 'nav.deliveryEndpoint' },
  { section: 'stock', href: '/portal/stock', label: 'nav.stock' },
  { section: 'claims', href: '/portal/claims', label: 'nav.claims', badge: 'claims' },
  { section: 'chat-rules', href: '/portal/chat-rules', label: 'nav.chatRules' },
  { section: 'sales', href: '/portal/sales', label: 'nav.sales' },
  { section: 'activity', href: '/portal/activity', label: 'nav.activity' }
]

export const DEFAULT_LOCALE: PortalLocale = 'ru'
