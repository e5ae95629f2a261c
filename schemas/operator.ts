// The operator API's own shapes: shops and API keys.
import { Type } from '@sinclair/typebox'
import { Id, NullableTimestamp, Timestamp } from './common.js'

export const ShopParams = Type.Object({ shopId: Id })

export const ShopSchema = Type.Object({ id: Id, name: Type.String(), createdAt: Timestamp },
  { 'x-component': 'Shop', title: 'Shop' })

export const NameInput = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }) })

export const ApiKeySchema = Type.Object({
  id: Id,
  name: Type.String(),
  prefix: Type.String({ description: 'The first 4 characters after `service_sk_`, to recognise a key.' }),
  createdAt: Timestamp,
  lastUsedAt: NullableTimestamp,
  revokedAt: NullableTimestamp
}, { 'x-component': 'ApiKey', title: 'ApiKey' })

export const internalSecurity = [{ internalToken: [] }]
