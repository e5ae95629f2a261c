// The rules that turn what @fastify/swagger derives from the route schemas into
// the published OpenAPI 3.1 document: named components for the schemas that
// declare `x-component`, the error codes of each operation as enums on
// `error.code`, the response headers the plugins add, the service's own schema
// keywords in forms every validator reads alike, the media routes' non-JSON
// bodies and the webhooks (lib/openapi-webhooks.ts). Pure functions of the
// document; plugins/openapi.ts applies them.
import { STATUS_CODES } from 'node:http'
import { errors, type ErrorCode } from '../domain/errors.js'
import { codesByStatus, errorComponentName, errorExample, operationCodes } from '../schemas/error-codes.js'
import { ErrorBody } from '../schemas/common.js'
import { imageContentTypes, UploadImageBody } from '../schemas/media.js'
import recordedExamples from '../schemas/openapi-examples.json' with { type: 'json' }
import { webhooksSection } from './openapi-webhooks.js'

/** A real request and response of an operation, recorded by `npm run docs:examples`. */
export interface OperationExample {
  parameters: Record<string, string>
  request?: unknown
  response: { status: number, body?: unknown }
}
const examples = recordedExamples as Record<string, OperationExample>

type Json = Record<string, unknown>
interface Response {
  description?: string,
  content?: Record<string,
  { schema?: Json, example?: unknown, examples?: Json }>,
  headers?: Json
}
interface Operation {
  operationId?: string
  security?: unknown[]
  parameters?: Array<{
    in: string,
    name: string,
    required?: boolean,
    schema?: { default?: unknown },
    example?: unknown
  }>
  requestBody?: { required?: boolean, content?: Record<string, { schema?: Json, example?: unknown, examples?: Json }> }
  responses?: Record<string, Response>
}
export interface Document {
  paths?: Record<string, Record<string, Operation>>
  components?: { schemas?: Record<string, Json>, headers?: Record<string, Json>, [k: string]: unknown }
  [k: string]: unknown
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

/** The response headers the service sends: what each says and its shape. */
export const responseHeaders: Record<string, Json> = {
  'X-Request-Id': {
    description: 'The request\'s id (yours from `X-Request-Id` if it was 1–128 safe ' +
    'characters, else a new UUID); it is in every log line of the request.',
    schema: { type: 'string' }
  },
  'RateLimit-Limit': {
    description: 'Requests allowed per window for this key (for the public files: for this client IP).',
    schema: { type: 'integer' }
  },
  'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
  'RateLimit-Policy': {
    description: 'The limit as the IETF draft structured field: `"default";q=<limit>;w=<window seconds>`.',
    schema: { type: 'string' }
  },
  RateLimit: {
    description: 'The current window as the IETF draft structured field: `"default";r=<remaining>;t=<reset seconds>`.',
    schema: { type: 'string' }
  },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
  'Idempotency-Replayed': {
    description: '`true` when this is the stored response of an earlier request with the same `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] }
  },
  ETag: {
    description: 'Strong entity tag of the file (its SHA-256); send it in `If-None-Match`.',
    schema: { type: 'string' }
  },
  'Cache-Control': {
    description: 'The file never changes under its name: `public, max-age=31536000, immutable`.',
    schema: { type: 'string' }
  },
  'X-Content-Type-Options': {
    description: 'Browsers must not sniff another type than `Content-Type` into the file.',
    schema: { type: 'string', enum: ['nosniff'] }
  }
}

/**
 * The response headers as named components (`#/components/headers/…`), each
 * described once and referenced by every response that carries it. A header
 * required on some responses and optional on others has two components:
 * `Retry-After` is required on a 429, optional on a 503 (`Retry-After-Optional`).
 */
export function headerComponents (): Record<string, Json> {
  const alwaysSent = ['X-Request-Id', 'Retry-After', 'ETag', 'Cache-Control', 'X-Content-Type-Options']
  const components: Record<string, Json> = {}
  for (const [name, header] of Object.entries(responseHeaders)) {
    components[name] = { ...header, required: alwaysSent.includes(name) }
  }
  components['Retry-After-Optional'] = {
    ...responseHeaders['Retry-After'],
    description: 'Seconds to wait before retrying (1 when absent).',
    required: false
  }
  return components
}

/** Which headers an operation's responses carry, as references to the header components. */
function headersFor (
  operationId: string, status: number, authenticated: boolean, idempotent: boolean
): Record<string, Json> {
  const header = (component: string) => ({ $ref: `#/components/headers/${component}` })
  const headers: Record<string, Json> = { 'X-Request-Id': header('X-Request-Id') }
  if (authenticated || operationId === 'getMediaFile') {
    for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy',
      'RateLimit']) headers[name] = header(name)
  }
  if (status === 429) headers['Retry-After'] = header('Retry-After')
  if (status === 503) headers['Retry-After'] = header('Retry-After-Optional')
  if (idempotent && status < 500 && status !== 429) headers['Idempotency-Replayed'] = header('Idempotency-Replayed')
  if (operationId === 'getMediaFile' && (status === 200 || status === 304)) {
    headers.ETag = header('ETag')
    headers['Cache-Control'] = header('Cache-Control')
    headers['X-Content-Type-Options'] = header('X-Content-Type-Options')
  }
  return headers
}

/** Visits every schema object of the document (depth first, children before parents). */
function walk (node: unknown, visit: (schema: Json) => Json): unknown {
  if (Array.isArray(node)) return node.map((item) => walk(item, visit))
  if (node === null || typeof node !== 'object') return node
  const out: Json = {}
  for (const [key, value] of Object.entries(node)) out[key] = walk(value, visit)
  return visit(out)
}

/**
 * The service's own keywords, for other tools: the money rule `x-decimals` stays
 * (an extension) and is said in the description, never as `multipleOf`, which
 * validators check in binary floating point and so refuse valid amounts such as
 * 19.99 (the service checks the decimal text); `x-trimmed-length` becomes the
 * equivalent `pattern`; and `x-component` schemas move to components, referenced.
 */
function normalizeSchemas (document: Document): Document {
  const extracted: Record<string, Json> = {}
  const normalized = walk(document, (schema) => {
    const decimals = schema['x-decimals']
    if (typeof decimals === 'number') {
      const rule = `At most ${decimals} decimal places (\`x-decimals\`).`
      schema.description = typeof schema.description === 'string' ? `${schema.description} ${rule}` : rule
    }
    const trimmed = schema['x-trimmed-length']
    if (Array.isArray(trimmed)) {
      // 1–max characters after trimming: a non-space first and last, at most max - 2 between.
      schema.pattern = `^\\s*\\S(?:[\\s\\S]{0,${trimmed[1] - 2}}\\S)?\\s*$`
      delete schema['x-trimmed-length']
    }
    const name = schema['x-component']
    if (typeof name !== 'string') return schema
    const { 'x-component': _, ...component } = schema
    extracted[name] = component
    return ref(name)
  }) as Document
  // The components walked too (the named event schemas hold an Order), then those extracted.
  normalized.components = { ...normalized.components, schemas: { ...normalized.components?.schemas, ...extracted } }
  return normalized
}

const errorProperties = (ErrorBody.properties.error as unknown as { properties: Json }).properties

/** One named error response component per code: the error envelope (`ErrorResponse`) with `code` fixed to it. */
function errorComponents (): Record<string, Json> {
  const components: Record<string, Json> = {}
  for (const [code, { means }] of Object.entries(errors)) {
    components[errorComponentName(code as ErrorCode)] = {
      description: means,
      // The error's other properties are named again so that each branch accounts for all of them (example
      // validators hold unnamed ones to be unexpected).
      allOf: [ref('ErrorResponse'),
        {
          type: 'object',
          properties: {
            error: {
              type: 'object',
              properties: { ...errorProperties, code: { type: 'string', enum: [code] } }
            }
          }
        }]
    }
  }
  return components
}

/** One named example per code the status can carry, with the message the service really sends. */
function errorExamples (codes: ErrorCode[], status: number): Json {
  return Object.fromEntries(codes.map((code) => [code, {
    summary: code,
    value: { success: false, error: { code, ...errorExample(code, status) } }
  }]))
}

function errorSchema (codes: ErrorCode[]): Json {
  if (codes.length === 1) return ref(errorComponentName(codes[0]))
  return { oneOf: codes.map((code) => ref(errorComponentName(code))) }
}

/** Statuses every operation of a kind can answer with, whether or not its route schema lists them. */
const everyStatuses = [500, 503]
const authenticatedStatuses = [401, 429]
const bodyStatuses = [400, 413]

const isNullable = (schema: Json) =>
  schema.nullable === true || (Array.isArray(schema.type) && schema.type.includes('null'))

function notNullable (schema: Json) {
  delete schema.nullable
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((type) => type !== 'null')
    schema.type = types.length === 1 ? types[0] : types
  }
}

/**
 * A request body's example. One whose top level has a `value` property (the deliver call's
 * `{value}`) is given as a named Example Object: tools that also read a bare `example` as an
 * Example Object (openapi-to-postman, so Postman's import) would otherwise send its `value`
 * alone as the body.
 */
function describeRequestExample (json: { example?: unknown, examples?: Json }, request: unknown) {
  if (request !== null && typeof request === 'object' && 'value' in request) {
    json.examples = { recorded: { summary: 'A recorded request', value: request } }
  } else {
    json.example = request
  }
}

/** An operation's inputs: optional parameters and bodies, the examples, the multipart upload. */
function describeInputs (
  operation: Operation, example: OperationExample | undefined, resolve: (schema: Json | undefined) => Json | undefined
) {
  for (const parameter of operation.parameters ?? []) {
    // A query parameter with a default need not be sent.
    if (parameter.in === 'query' && parameter.schema?.default !== undefined) parameter.required = false
    const value = example?.parameters[parameter.name]
    const integer = (parameter.schema as Json | undefined)?.type === 'integer'
    if (value !== undefined) parameter.example = integer ? Number(value) : value
  }
  // A body that may be left out is an optional body, not a nullable schema (which
  // generated types would make `T | null` and validators would let `null` through).
  const body = operation.requestBody
  const bodySchemas = Object.values(body?.content ?? {}).map((media) => resolve(media.schema))
  if (body && bodySchemas.length > 0 && bodySchemas.every((schema) => schema !== undefined && isNullable(schema))) {
    body.required = false
    for (const schema of bodySchemas) notNullable(schema!)
  }
  const json = body?.content?.['application/json']
  if (json && example?.request !== undefined) describeRequestExample(json, example.request)
  if (operation.operationId === 'uploadImage') {
    operation.requestBody = {
      required: true,
      content: { 'multipart/form-data': { schema: UploadImageBody as unknown as Json } }
    }
  }
}

/** An operation's responses: every status it can give, its error codes, headers, the example, the image bodies. */
function describeResponses (operation: Operation, example: OperationExample | undefined) {
  const id = operation.operationId ?? ''
  const authenticated = (operation.security ?? []).length > 0
  const idempotent = (operation.parameters ?? []).some((p) => p.in === 'header' && p.name === 'idempotency-key')
  const responses = operation.responses ??= {}
  for (const status of everyStatuses) responses[status] ??= {}
  if (authenticated) for (const status of authenticatedStatuses) responses[status] ??= {}
  if (operation.requestBody) for (const status of bodyStatuses) responses[status] ??= {}
  for (const [statusText, response] of Object.entries(responses)) {
    const status = Number(statusText)
    if (status >= 400) {
      const codes = operationCodes[id]?.[status] ?? codesByStatus[status]
      if (!codes) throw new Error(`${id}: no error codes known for status ${status} (schemas/error-codes.ts)`)
      response.content = { 'application/json': { schema: errorSchema(codes), examples: errorExamples(codes, status) } }
      response.description = codes.map((code) => `\`${code}\`: ${errors[code].means}`).join(' ')
    } else if (!response.description || response.description === 'Default Response') {
      response.description = STATUS_CODES[status] ?? 'Success'
    }
    if (id === 'getMediaFile' && status === 200) {
      response.content = Object.fromEntries(imageContentTypes.map((type) => [type,
        { schema: { type: 'string', format: 'binary' } }]))
    }
    if (status === 304) delete response.content
    const media = response.content?.['application/json']
    if (example?.response.status === status && media && example.response.body !== undefined) {
      media.example = example.response.body
    }
    response.headers = { ...response.headers, ...headersFor(id, status, authenticated, idempotent) }
  }
}

/** Per operation: security, inputs and responses. */
function describeOperations (document: Document): Document {
  const resolve = (schema: Json | undefined) =>
    typeof schema?.$ref === 'string' ? document.components?.schemas?.[schema.$ref.split('/').pop()!] : schema
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      if ((operation.security ?? []).length === 0) operation.security = []
      const example = examples[operation.operationId ?? '']
      describeInputs(operation, example, resolve)
      describeResponses(operation, example)
    }
  }
  return document
}

/** Drops the schema and header components nothing in the document refers to (each document holds only its own). */
function pruneComponents (document: Document): Document {
  const schemas = document.components?.schemas ?? {}
  const used = new Set<string>()
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) { node.forEach(visit); return }
    if (node === null || typeof node !== 'object') return
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
        const name = value.slice('#/components/schemas/'.length)
        if (!used.has(name)) { used.add(name); visit(schemas[name]) }
      } else visit(value)
    }
  }
  const HEADER_REF = '#/components/headers/'
  const usedHeaders = new Set<string>()
  const visitHeaders = (node: unknown): void => {
    if (Array.isArray(node)) { node.forEach(visitHeaders); return }
    if (node === null || typeof node !== 'object') return
    for (const [key, value] of Object.entries(node)) {
      const header = key === '$ref' && typeof value === 'string' && value.startsWith(HEADER_REF) ? value : undefined
      if (header) usedHeaders.add(header.slice(HEADER_REF.length))
      else visitHeaders(value)
    }
  }
  visit([document.paths, document.webhooks])
  visitHeaders(document.paths)
  const headers = document.components?.headers ?? {}
  document.components = {
    ...document.components,
    schemas: Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name))),
    headers: Object.fromEntries(Object.entries(headers).filter(([name]) => usedHeaders.has(name)))
  }
  return document
}

/**
 * The published document: what the route schemas say, made exact and complete;
 * with `webhooks`, the requests the service sends.
 */
export function publishDocument (document: Document, options: { webhooks?: boolean } = {}): Document {
  if (options.webhooks) {
    const section = webhooksSection()
    document.webhooks = section.webhooks
    document.components = {
      ...document.components,
      schemas: { ...document.components?.schemas, ...section.schemas },
      parameters: { ...document.components?.parameters as Json, ...section.parameters }
    }
  }
  const normalized = normalizeSchemas(document)
  normalized.components = {
    ...normalized.components,
    schemas: { ...normalized.components?.schemas, ...errorComponents() },
    headers: headerComponents()
  }
  return pruneComponents(describeOperations(normalized))
}
