// Where webhooks may go (docs/webhooks.md, docs/security.md): https:// URLs of public hosts.
// IP literals are judged here, when an endpoint is saved; names are judged by the
// sender when they resolve, on the address it then connects to.
import ipaddr from 'ipaddr.js'
import { ruleOf, type DetailRule } from './errors.js'

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

const describe = (address: string, range: string) => `${address} is a ` +
  `${rangeNames[range] ?? `special-purpose (${range})`} address`

/** The only IPv6 block with public unicast addresses (RFC 4291, IANA's global unicast allocation). */
const GLOBAL_UNICAST: [ipaddr.IPv6, number] = ipaddr.IPv6.parseCIDR('2000::/3')

/**
 * The IPv4 address an IPv6 address carries in a form that reaches IPv4 hosts,
 * or null: IPv4-compatible (::a.b.c.d, ::/96), IPv4-mapped (::ffff:a.b.c.d),
 * NAT64 (64:ff9b::/96, RFC 6052) and 6to4 (2002:AABB:CCDD::/48, RFC 3056).
 */
function embeddedIPv4 (address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const parts = address.parts
  const low32 = () => new ipaddr.IPv4([parts[6] >> 8, parts[6] & 0xff, parts[7] >> 8, parts[7] & 0xff])
  const zeroUpTo = (n: number) => parts.slice(0, n).every((p) => p === 0)
  if (zeroUpTo(6)) return low32()
  if (zeroUpTo(5) && parts[5] === 0xffff) return low32()
  if (parts[0] === 0x64 && parts[1] === 0xff9b && parts.slice(2, 6).every((p) => p === 0)) return low32()
  if (parts[0] === 0x2002) return new ipaddr.IPv4([parts[1] >> 8, parts[1] & 0xff, parts[2] >> 8, parts[2] & 0xff])
  return null
}

/**
 * Why `address` may not receive webhooks, or null when it may: an allow-list
 * (docs/security.md, Addresses). IPv4: public unicast only (ipaddr.js' `unicast`,
 * none of the private, loopback, link-local, shared, reserved, documentation …
 * ranges). IPv6: an address with an IPv4 address embedded in a form that reaches
 * it (::a.b.c.d, ::ffff:a.b.c.d, NAT64, 6to4) is judged as that IPv4 address;
 * any other must be in the global unicast block 2000::/3 and in none of its
 * special-purpose ranges (Teredo, documentation, benchmarking, ORCHID …).
 * The one check for every outbound address, when a URL is saved and when it is
 * connected to (services/webhooks/sender.ts).
 */
export function refusedAddressReason (address: string): string | null {
  const parsed = ipaddr.parse(address)
  if (parsed.kind() === 'ipv4') {
    const range = parsed.range()
    return range === 'unicast' ? null : describe(parsed.toString(), range)
  }
  const v6 = parsed as ipaddr.IPv6
  const ownRange = v6.range()
  if (ownRange === 'loopback' || ownRange === 'unspecified') return describe(v6.toString(), ownRange)
  const embedded = embeddedIPv4(v6)
  if (embedded !== null) {
    const range = embedded.range()
    return range === 'unicast' ? null : describe(embedded.toString(), range) + ` (inside ${v6.toString()})`
  }
  if (!v6.match(GLOBAL_UNICAST)) {
    return ownRange === 'unicast'
      ? `${v6.toString()} is not a global unicast address ` +
      '(2000::/3)'
      : describe(v6.toString(), ownRange)
  }
  return ownRange === 'unicast' ? null : describe(v6.toString(), ownRange)
}

/** The IP address a URL hostname spells, or null for a name. */
function literalAddress (hostname: string): string | null {
  if (hostname.startsWith('[')) return hostname.slice(1, -1)
  return ipaddr.IPv4.isValidFourPartDecimal(hostname) ? hostname : null
}

export type WebhookUrlCheck = { ok: true, url: string } | { ok: false, problem: string, rule: DetailRule }

/**
 * Checks a webhook URL and returns it normalised (WHATWG form, as it will be
 * requested), or the problem in words.
 */
export function checkWebhookUrl (input: string, rules: EgressRules): WebhookUrlCheck {
  let url: URL
  try {
    url = new URL(input)
  } catch {
    return { ok: false, problem: 'must be an absolute URL', rule: ruleOf('x-absolute-url', {}) }
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && rules.allowHttp)) {
    return { ok: false, problem: 'must be an https:// URL', rule: ruleOf('x-https-url', {}) }
  }
  if (url.username !== '' || url.password !== '') {
    return {
      ok: false,
      problem: 'must not contain a user name or password',
      rule: ruleOf('x-url-credentials', {})
    }
  }
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) {
    return {
      ok: false,
      problem: 'must be at most ' +
    `${MAX_WEBHOOK_URL_LENGTH} characters`,
      rule: ruleOf('x-url-length', { max: MAX_WEBHOOK_URL_LENGTH })
    }
  }
  const address = literalAddress(url.hostname)
  if (address !== null && !rules.allowPrivate) {
    const reason = refusedAddressReason(address)
    if (reason !== null) {
      const problem = `must point to a public address (${reason})`
      return { ok: false, problem, rule: ruleOf('x-public-address', { reason }) }
    }
  }
  return { ok: true, url: url.href }
}
