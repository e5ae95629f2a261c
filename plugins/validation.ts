// Request validation with Ajv. Bodies are validated strictly (a JSON string is
// never coerced into a number or a boolean); query strings, params and headers
// arrive as text, so there types are coerced. Every problem is reported at once.
// The `x-decimals` keyword checks money: at most N digits after the point, judged
// on the number's shortest decimal form (floating-point safe, unlike multipleOf).
import { Ajv, type Options, type SchemaValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

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
  const ajv = new Ajv({ useDefaults: true, removeAdditional: true, allErrors: true, ...options })
  addFormats.default(ajv)
  const validateDecimals: SchemaValidateFunction = function (places: number, value: number) {
    if (decimalPlaces(value) <= places) return true
    validateDecimals.errors = [{ keyword: 'x-decimals', message: `must have at most ${places} decimal places`, params: { places } }]
    return false
  }
  ajv.addKeyword({ keyword: 'x-decimals', type: 'number', schemaType: 'number', errors: true, validate: validateDecimals })
  return ajv
}

async function validationPlugin (fastify: FastifyInstance) {
  const bodyAjv = createAjv({ coerceTypes: false })
  const textAjv = createAjv({ coerceTypes: 'array' })
  fastify.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodyAjv : textAjv).compile(schema))
}

export default fp(validationPlugin, { name: 'validation' })
