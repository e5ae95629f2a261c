// The documents as Postman imports them: openapi-to-postman (Postman's own converter,
// its v2 interface) with the request bodies taken from the documents' examples. Every
// JSON request body it makes must be a JSON object, as the service takes: a bare
// example with a top-level `value` is read as an Example Object and would send the
// string alone (docs/api-document.md).
import converter from 'openapi-to-postmanv2'
import { readFileSync } from 'node:fs'

function convert (document, options) {
  return new Promise((resolve, reject) => {
    converter.convertV2({ type: 'string', data: readFileSync(document, 'utf8') }, options, (err, result) => {
      if (err || !result.result) reject(err ?? new Error(result.reason))
      else resolve(result.output[0].data)
    })
  })
}

function requests (items) {
  return items.flatMap((item) => item.item ? requests(item.item) : [item])
}

/** Each JSON request body of `document`'s collection that is not a JSON object, as `name: body`; and the count. */
export async function postmanBodyProblems (document) {
  const collection = await convert(document, { parametersResolution: 'Example', folderStrategy: 'Paths' })
  const bodies = requests(collection.item)
    .filter((item) => item.request.body?.mode === 'raw' && item.request.body.options?.raw?.language === 'json')
  const problems = []
  for (const item of bodies) {
    let parsed
    try { parsed = JSON.parse(item.request.body.raw) } catch { parsed = undefined }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      problems.push(`${item.name}: ${JSON.stringify(item.request.body.raw).slice(0, 120)}`)
    }
  }
  return { problems, count: bodies.length }
}
