// The operator's seller-portal calls (docs/portal.md): a link into a shop's
// portal, and the end of a shop's portal sessions.
import { Type } from '@sinclair/typebox'
import { LINK_TTL, PORTAL_LOCALES } from '../domain/portal-token.js'
import { SecretString, StringEnum, Timestamp } from './common.js'

export const PortalLinkBody = Type.Object(
  {
    ttlSeconds: Type.Optional(
      Type.Integer({
        minimum: LINK_TTL.min,
        maximum: LINK_TTL.max,
        default: LINK_TTL.default,
        description: `How long the link can be opened, in seconds (${LINK_TTL.min}–${LINK_TTL.max}, ` +
          `default ${LINK_TTL.default}).`
      })
    ),
    readOnly: Type.Optional(
      Type.Boolean({ default: false, description: 'A session that shows the settings but changes nothing.' })
    ),
    locale: Type.Optional(
      StringEnum(PORTAL_LOCALES, {
        default: 'ru',
        description: "The pages' language until the seller switches it (`ru` or `en`)."
      })
    )
  },
  { additionalProperties: Type.Not(Type.Any(), { description: 'no other property' }), 'x-component': 'PortalLinkInput' }
)

export const PortalLinkSchema = Type.Object(
  {
    url: SecretString(
      "Open once, before `expiresAt`: `PUBLIC_BASE_URL/portal/enter?token=…`. Hand it to the seller's browser only."),
    expiresAt: Timestamp
  },
  { 'x-component': 'PortalLink', title: 'PortalLink' }
)
