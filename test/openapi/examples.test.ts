// Every operation of both documents shows a real example (recorded by
// `npm run docs:examples`), and each example is valid: its parameters and
// request body against the operation's schemas, its response against the
// declared response (the drift check's rules).
import t from 'tap'
import { build } from '../helper.js'
import { driftProblems, validateAgainst } from '../fixtures/openapi-drift.js'

type Json = Record<string, any>

t.test('every operation has a real example request and response that match its schemas', async (t) => {
  const app = await build(t)
  const documents = { seller: app.swagger(), operator: app.internalSwagger() } as Record<string, Json>
  let operations = 0
  for (const document of Object.values(documents)) {
    const valid = (schema: Json, value: unknown) => validateAgainst(document, schema, value).ok
    for (const [template, byMethod] of Object.entries<Json>(document.paths)) {
      for (const [method, operation] of Object.entries<Json>(byMethod)) {
        operations++
        const id = operation.operationId
        let url = template
        const query = new URLSearchParams()
        for (const parameter of operation.parameters ?? []) {
          if (parameter.example === undefined) {
            t.notOk(parameter.required && parameter.in === 'path', `${id}: path parameter ${parameter.name} has an example`)
            continue
          }
          t.ok(valid(parameter.schema, parameter.example), `${id}: example of ${parameter.name} matches its schema`)
          if (parameter.in === 'path') url = url.replace(`{${parameter.name}}`, encodeURIComponent(parameter.example))
          if (parameter.in === 'query') query.set(parameter.name, String(parameter.example))
        }
        const json = operation.requestBody?.content?.['application/json']
        if (json) {
          const example = json.example ?? Object.values<Json>(json.examples ?? {})[0]?.value
          if (operation.requestBody.required) t.not(example, undefined, `${id}: example request body`)
          if (example !== undefined) t.ok(valid(json.schema, example), `${id}: example request body matches its schema`)
          if (json.example !== null && typeof json.example === 'object') {
            t.notOk('value' in json.example, `${id}: a bare example has no top-level \`value\` (tools read it as an Example Object)`)
          }
        }
        const examples = Object.entries<Json>(operation.responses).filter(([, response]) => response.content?.['application/json']?.example !== undefined)
        const binary = Object.values<Json>(operation.responses).some((response) => Object.keys(response.content ?? {}).some((type) => type.startsWith('image/')))
        t.ok(examples.length > 0 || binary, `${id}: an example response`)
        for (const [status, response] of examples) {
          t.ok(Number(status) < 300, `${id}: the example is a success (${status})`)
          const body = JSON.stringify(response.content['application/json'].example)
          const problems = driftProblems(documents, method.toUpperCase(), `${url}?${query}`, { statusCode: Number(status), headers: { 'x-request-id': 'example', 'content-type': 'application/json' }, body })
          t.same(problems, [], `${id}: the example response matches the document`)
        }
      }
    }
  }
  t.equal(operations, 67, 'both documents together: 67 operations')
})
