// Building blocks shared by every resource schema: ids, timestamps, money,
// paging, the response envelope and the error shape.
import { Type, type TSchema, type Static } from '@sinclair/typebox'

/** A string enum that compiles to `{type: string, enum: [...]}` (clear errors, clean OpenAPI). */
export function StringEnum<const T extends readonly string[]> (values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options })
}

/**
 * A secret an answer shows once (a signing secret, an API key, a portal link). Marked
 * `x-secret` in the document; every route whose answer holds one is sent with
 * `Cache-Control: no-store` (plugins/secret-answers.ts), so no cache keeps it.
 */
export const SecretString = (description: string) => Type.String({ description, 'x-secret': true })

// The pattern keeps out what ajv's `uuid` format also allows (`urn:uuid:…`) and Postgres would refuse.
export const Id = Type.String({
  format: 'uuid',
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  description: 'Opaque identifier (UUID).'
})
export const IdParams = Type.Object({ id: Id })
export type IdParams = Static<typeof IdParams>

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds.' })
/**
 * `T` or null, as a JSON Schema type array rather than anyOf: the response
 * serializer handles it without trying each branch, and the OpenAPI document
 * shows it as `nullable: true`.
 */
export function Nullable<T extends TSchema & { type: string }> (schema: T, options: { description?: string } = {}) {
  return Type.Unsafe<Static<T> | null>({ ...schema, ...options, type: [schema.type, 'null'] })
}

export const NullableTimestamp = Nullable(Timestamp)

/** Money: a JSON number with at most two decimals (checked by the `x-decimals` keyword). */
export function Money (options: { minimum?: number, maximum?: number, description?: string } = {}) {
  return Type.Number({ minimum: 0, maximum: 1_000_000_000, 'x-decimals': 2, ...options })
}

export function PageQuery (defaultLimit: number) {
  return {
    page: Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      default: 1,
      description: 'Page number, starting at 1 (at most 1 000 000).'
    }),
    limit: Type.Integer({
      minimum: 1,
      maximum: 100,
      default: defaultLimit,
      description: 'Items per page ' +
      `(1–100, default ${defaultLimit}).`
    })
  }
}

export const ErrorBody = Type.Object({
  success: Type.Literal(false),
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    details: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() })))
  })
}, { $id: 'ErrorResponse', title: 'Error response' })

/** The success envelope around a route's `data`. */
export function Envelope<T extends TSchema> (data: T) {
  return Type.Object({ success: Type.Literal(true), data })
}

/** Error responses every authenticated seller route may give. */
export const CommonErrors = {
  400: Type.Ref(ErrorBody),
  401: Type.Ref(ErrorBody),
  404: Type.Ref(ErrorBody),
  429: Type.Ref(ErrorBody),
  500: Type.Ref(ErrorBody),
  503: Type.Ref(ErrorBody)
}

/** A JSON body the client may also leave out entirely (Fastify validates a missing body as null). */
export function OptionalBody<T extends TSchema> (schema: T) {
  return Type.Unsafe<Static<T> | null>({ ...schema, nullable: true })
}

/** How a seller route is authenticated (OpenAPI security requirement). */
export const sellerSecurity: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { apiKeyHeader: [] }]
