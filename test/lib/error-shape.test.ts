// lib/error-shape.ts: a thrown value of any shape gives a code only when it is a
// string, a table lookup that never returns Object.prototype's members, and a
// text, never a throw. (The sender, the media upload and the error handler read
// errors through it; test/delivery-endpoint/test-call-socket.test.ts shows the
// abort error, whose code is a number, through HTTP.)
import t from 'tap'
import { byCode, errorText, stringCode } from '../../lib/error-shape.js'

const abort = (() => { const c = new AbortController(); c.abort(); return c.signal.reason })()
const throwingGetter = Object.defineProperties({}, {
  code: { get () { throw new Error('no code') } },
  message: { get () { throw new Error('no message') } }
})
const shapes: Array<[string, unknown]> = [
  ['an abort (DOMException, code 20)', abort],
  ['a timeout (DOMException, code 23)', new DOMException('timed out', 'TimeoutError')],
  ['undefined', undefined],
  ['null', null],
  ['a string', 'boom'],
  ['a number', 42],
  ['an object without a prototype', Object.create(null)],
  ['an object with a numeric code', { code: 503, message: 'Service Unavailable' }],
  ['an object with an object code', { code: { nested: true } }],
  ['throwing getters', throwingGetter],
  ['a code named after a prototype member', Object.assign(new Error('odd'), { code: 'constructor' })]
]

t.test('stringCode: the code only when it is a string', async (t) => {
  t.equal(stringCode(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })), 'ECONNREFUSED')
  for (const [name, err] of shapes.slice(0, -1)) t.equal(stringCode(err), undefined, name)
})

t.test('byCode: a member of the table, never one of Object.prototype', async (t) => {
  const table = { ECONNREFUSED: 'refused' }
  t.equal(byCode(table, { code: 'ECONNREFUSED' }), 'refused')
  for (const code of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) t.equal(byCode(table, { code }), undefined, code)
  for (const [name, err] of shapes) t.equal(byCode(table, err), undefined, name)
})

t.test('errorText: a string for any shape, never a throw', async (t) => {
  t.equal(errorText(new Error('socket hang up'), 'x'), 'socket hang up')
  t.equal(errorText(new Error('y'.repeat(1000)), 'x').length, 300)
  t.equal(errorText(abort, 'x'), 'This operation was aborted')
  for (const [name, err] of shapes) t.type(errorText(err, 'fallback'), 'string', name)
  t.equal(errorText(Object.create(null), 'fallback'), 'fallback')
  t.equal(errorText(throwingGetter, 'fallback'), 'fallback')
  t.equal(errorText('', 'fallback'), 'fallback')
})
