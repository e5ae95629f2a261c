// Where webhooks may go (CONTRACT section 11): https:// URLs of public hosts.
// IP literals are judged here, when an endpoint is saved; names are judged by the
// sender when they resolve, on the address it then connects to.
import ipaddr from 'ipaddr.js'

export const MAX_WEBHOOK_URL_LENGTH = 2048

export interface EgressRules {
  /** WEBHOOK_ALLOW_HTTP: plain http:// too (development and tests only). */
  allowHttp: boolean
  /** WEBHOOK_ALLOW_PRIVATE: any address, the service's own network included (development and tests only). */
  allowPrivate: boolean
}

/** ipaddr.js range names, as a reader knows them. */
const rangeNames: Record<string, string> = {
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link-local',
  uniqueLocal: 'unique-local',
  multicast: 'multicast',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  carrierGradeNat: 'carrier-grade NAT'
}

/**
 * Why `address` may not receive webhooks, or null when it is public. Only
 * globally routable unicast passes: besides the ranges the contract names, this
 * also refuses the other special-purpose ones (reserved, documentation, NAT64
 * with an embedded address, …). IPv4-mapped IPv6 is judged as its IPv4 address.
 */
export function refusedAddressReason (address: string): string | null {
  const parsed = ipaddr.process(address)
  const range = parsed.range()
  if (range === 'unicast') return null
  return `${parsed.toString()} is a ${rangeNames[range] ?? `special-purpose (${range})`} address`
}

/** The IP address a URL hostname spells, or null for a name. */
function literalAddress (hostname: string): string | null {
  if (hostname.startsWith('[')) return hostname.slice(1, -1)
  return ipaddr.IPv4.isValidFourPartDecimal(hostname) ? hostname : null
}

export type WebhookUrlCheck = { ok: true, url: string } | { ok: false, problem: string }

/**
 * Checks a webhook URL and returns it normalised (WHATWG form, as it will be
 * requested), or the problem in words.
 */
export function checkWebhookUrl (input: string, rules: EgressRules): WebhookUrlCheck {
  let url: URL
  try {
    url = new URL(input)
  } catch {
    return { ok: false, problem: 'must be an absolute URL' }
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && rules.allowHttp)) {
    return { ok: false, problem: 'must be an https:// URL' }
  }
  if (url.username !== '' || url.password !== '') return { ok: false, problem: 'must not contain a user name or password' }
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) return { ok: false, problem: `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters` }
  const address = literalAddress(url.hostname)
  if (address !== null && !rules.allowPrivate) {
    const reason = refusedAddressReason(address)
    if (reason !== null) return { ok: false, problem: `must point to a public address (${reason})` }
  }
  return { ok: true, url: url.href }
}
