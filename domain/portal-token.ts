// The seller portal's secrets (docs/portal.md): the operator's link token and the
// session cookie's token, each a prefix and 43 characters of base64url (32 bytes
// from a CSPRNG), stored only as SHA-256 hashes; the prefixes let the logger
// redact them wherever they appear (lib/logging.ts). The CSRF token is random too
// but is given to the pages, so it is kept as it is.
import { createHash, randomBytes } from 'node:crypto'

export const LINK_TOKEN_PREFIX = 'portal_link_'
export const SESSION_TOKEN_PREFIX = 'portal_sess_'
const BODY = '[A-Za-z0-9_-]{43}'
const wellFormedLink = new RegExp(`^${LINK_TOKEN_PREFIX}${BODY}$`)
const wellFormedSession = new RegExp(`^${SESSION_TOKEN_PREFIX}${BODY}$`)

const randomBody = () => randomBytes(32).toString('base64url')

export const generateLinkToken = () => LINK_TOKEN_PREFIX + randomBody()
export const generateSessionToken = () => SESSION_TOKEN_PREFIX + randomBody()
export const generateCsrfToken = () => randomBody()

export const isWellFormedLinkToken = (token: string) => wellFormedLink.test(token)
export const isWellFormedSessionToken = (token: string) => wellFormedSession.test(token)

export const hashPortalToken = (token: string) => createHash('sha256').update(token).digest('hex')

/** A link's lifetime bounds and default, in seconds (1 h by default, at most 7 days). */
export const LINK_TTL = { min: 10, max: 604_800, default: 3600 } as const
/** A session ends this long after entering, or after this long without a request. */
export const SESSION_ABSOLUTE_MS = 12 * 3600_000
export const SESSION_IDLE_MS = 3600_000

export const PORTAL_LOCALES = ['ru', 'en'] as const
export type PortalLocale = typeof PORTAL_LOCALES[number]
