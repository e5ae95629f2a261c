// Standard Webhooks signing (docs/webhooks.md): secrets are `whsec_` + base64
// of 32 random bytes; each delivery is signed with HMAC-SHA256, keyed with the
// decoded secret, over `{webhook-id}.{webhook-timestamp}.{body}`.
import { createHmac, randomBytes } from 'node:crypto'

const SECRET_PREFIX = 'whsec_'

export function generateWebhookSecret (): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64')
}

/** One `v1,<base64>` signature per secret, space-separated (two during a rotation). */
export function signatureHeader (secrets: string[], webhookId: string, timestamp: number, body: string): string {
  return secrets.map((secret) => {
    const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')
    return 'v1,' + createHmac('sha256', key).update(`${webhookId}.${timestamp}.${body}`).digest('base64')
  }).join(' ')
}
