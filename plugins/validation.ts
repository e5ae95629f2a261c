// Request validation with Ajv. Bodies are validated strictly (a JSON string is
// never coerced into a number or a boolean); query strings, params and headers
// arrive as text, so there types are coerced. Every problem is reported at once.
// The `x-decimals` keyword checks money: at most N digits after the point, judged
// on the number's shortest decimal form (floating-point safe, unlike multipleOf).
// Numbers must be finite and date-times must be ones JavaScript and Postgres
// read alike, wherever they appear: an input that passed here never makes the
// database or a Date throw.
import { Ajv, type ErrorObject, type Options, type SchemaValidateFunction, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { parseDateTime } from '../domain/date-time.js'
import type { CompileCache } from '../lib/compile-cache.js'

export function decimalPlaces (value: number): number {
  const text = String(value)
  const exponent = /e-(\d+)$/.exec(text)
  if (exponent) {
    const mantissa = text.slice(0, exponent.index)
    const dot = mantissa.indexOf('.')
    return Number(exponent[1]) + (dot === -1 ? 0 : mantissa.length - dot - 1)
  }
  const dot = text.indexOf('.')
  return dot === -1 ? 0 : text.length - dot - 1
}

function createAjv (options: Options): Ajv {
  // strictNumbers: a JSON body's 1e400 parses as Infinity, which Ajv would
  // otherwise take for a number and skip its minimum / maximum.
  const ajv = new Ajv({ useDefaults: true, removeAdditional: true, allErrors: true, strictNumbers: true, ...options })
  addFormats.default(ajv)
  ajv.addFormat('date-time', { type: 'string', validate: (text: string) => parseDateTime(text) !== null })
  const validateDecimals: SchemaValidateFunction = function (places: number, value: number) {
    if (decimalPlaces(value) <= places) return true
    validateDecimals.errors = [{
      keyword: 'x-decimals',
      message: `must have at most ${places} decimal ` +
      'places',
      params: { places }
    }]
    return false
  }
  ajv.addKeyword({
    keyword: 'x-decimals',
    type: 'number',
    schemaType: 'number',
    errors: true,
    validate: validateDecimals
  })
  // `x-trimmed-length: [min, max]`: the length once surrounding whitespace is trimmed, in code points
  // (a title, a message); the OpenAPI document states it as a pattern (lib/openapi-document.ts).
  const validateTrimmedLength: SchemaValidateFunction = function (bounds: [number, number], text: string) {
    const length = [...text.trim()].length
    if (length >= bounds[0] && length <= bounds[1]) return true
    validateTrimmedLength.errors = [{
      keyword: 'x-trimmed-length',
      message: 'must be ' +
      `${bounds[0]}–${bounds[1]} characters after trimming surrounding ` +
      'whitespace',
      params: { min: bounds[0], max: bounds[1] }
    }]
    return false
  }
  ajv.addKeyword({
    keyword: 'x-trimmed-length',
    type: 'string',
    schemaType: 'array',
    errors: true,
    validate: validateTrimmedLength
  })
  // Names a schema's OpenAPI component (lib/openapi-document.ts); no rule to check.
  ajv.addKeyword({ keyword: 'x-component', schemaType: 'string' })
  // Marks a secret shown once (schemas/common.ts SecretString); no rule to check.
  ajv.addKeyword({ keyword: 'x-secret', schemaType: 'boolean' })
  return ajv
}

/** The path of the first number in `data` (an object of query, params or headers) that is not finite. */
function nonFinitePath (data: unknown): string | null {
  if (data === null || typeof data !== 'object') return null
  for (const [key, value] of Object.entries(data)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === 'number' && !Number.isFinite(item)) return `/${key}`
    }
  }
  return null
}

/**
 * Ajv coerces the text `1e309` (or `Infinity`) into Infinity and then skips the
 * number's range keywords, strictNumbers or not; so a coerced query, path or
 * header value gets one more check here, before it can reach the database.
 */
function withFiniteNumbers (validate: ValidateFunction): ValidateFunction {
  const checked = function (data: unknown) {
    const valid = validate(data)
    const path = valid ? nonFinitePath(data) : null
    checked.errors = path === null
      ? validate.errors
      : [{
        instancePath: path,
        schemaPath: '#/type',
        keyword: 'type',
        params: {},
        message: 'must be a finite number'
      } satisfies ErrorObject]
    return valid && path === null
  } as ValidateFunction
  return checked
}

const sharedBodyAjv = { ajv: undefined as Ajv | undefined, compiled: new WeakMap<object, ValidateFunction>() }

/**
 * The validator of a JSON body schema, built as the routes' own are: for input
 * that reaches the API's rules by another way than a JSON body (the seller
 * portal's forms), checked against the same schema with the same messages.
 */
export function bodyValidator (schema: object): ValidateFunction {
  sharedBodyAjv.ajv ??= createAjv({ coerceTypes: false })
  let validate = sharedBodyAjv.compiled.get(schema)
  if (!validate) sharedBodyAjv.compiled.set(schema, validate = sharedBodyAjv.ajv.compile(schema))
  return validate
}

/** `compileCache`: validators compiled by an earlier app of this process are reused (lib/compile-cache.ts). */
async function validationPlugin (fastify: FastifyInstance, options: { compileCache?: CompileCache }) {
  const bodyAjv = createAjv({ coerceTypes: false })
  const textAjv = createAjv({ coerceTypes: 'array' })
  const compile = (schema: object, httpPart?: string) =>
    httpPart === 'body' ? bodyAjv.compile(schema) : withFiniteNumbers(textAjv.compile(schema))
  const cache = options.compileCache
  fastify.setValidatorCompiler(({ schema, httpPart }) => cache
    ? cache.get(schema, httpPart === 'body' ? 'body validator' : 'text validator', () => compile(schema, httpPart))
    : compile(schema, httpPart))
}

export default fp(validationPlugin, { name: 'validation' })
