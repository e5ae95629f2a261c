// Compiled request validators and response serializers shared between the app
// builds of one process. The service builds its app once and passes none; a test
// file builds dozens (test/helper.ts), and compiling every route's schemas again
// (Ajv and fast-json-stringify) was about half of each build's CPU. A compiled
// function depends only on its schema, the compiler's options and the named
// schemas it may refer to, so the function compiled for an equal schema in an
// equal setting is reused. Many routes build their schemas inline, so a schema is
// recognised by its JSON text; the object is remembered too, to skip re-reading it.
import fastJson from 'fast-json-stringify'
import type { FastifyServerOptions } from 'fastify'

type Schema = Parameters<typeof fastJson>[0] & { $id?: string }
type Compilers = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>

export class CompileCache {
  private readonly byObject = new WeakMap<object, Map<string, unknown>>()
  private readonly byText = new Map<string, unknown>()

  /** What `compile()` gives for `schema` in `setting` (a string naming the compiler and its options). */
  get<T> (schema: object, setting: string, compile: () => T): T {
    let ofObject = this.byObject.get(schema)
    if (ofObject?.has(setting)) return ofObject.get(setting) as T
    const key = `${setting}\n${JSON.stringify(schema)}`
    if (!this.byText.has(key)) this.byText.set(key, compile())
    if (!ofObject) this.byObject.set(schema, ofObject = new Map())
    ofObject.set(setting, this.byText.get(key))
    return this.byText.get(key) as T
  }

  /**
   * Fastify's `schemaController.compilersFactory.buildSerializer`: what Fastify's
   * default (@fastify/fast-json-stringify-compiler) compiles, through this cache.
   */
  readonly buildSerializer: NonNullable<Compilers['buildSerializer']> = (externalSchemas, serializerOpts) => {
    const options = { ...serializerOpts, schema: externalSchemas as Record<string, Schema> }
    let setting = `serializer ${JSON.stringify(options)}`
    return ({ schema }) => {
      const { $id } = schema as Schema
      // As the default does: a named schema is compiled without its own entry among the named ones.
      if ($id && options.schema[$id]) {
        options.schema = { ...options.schema }
        delete options.schema[$id]
        setting = `serializer ${JSON.stringify(options)}`
      }
      return this.get(schema as Schema, setting, () => fastJson(schema as Schema, options))
    }
  }
}
