// The circuit breaker on its own (domain/circuit-breaker.ts): refuses at once
// while open, probes in the background, closes on the first successful probe,
// and reports each outage once.
import { setTimeout as pause } from 'node:timers/promises'
import t from 'tap'
import { CircuitBreaker, DependencyUnavailableError } from '../../domain/circuit-breaker.js'
import { until } from '../fixtures/until.js'

function breaker (probe: () => Promise<unknown>) {
  const b = new CircuitBreaker({ name: 'testdep', probe, probeIntervalMs: 10 })
  const opened: unknown[] = []
  const closed: number[] = []
  b.on('open', (err) => opened.push(err))
  b.on('close', (ms) => closed.push(ms))
  return { b, opened, closed }
}

t.test('closed: calls go through and their results come back', async (t) => {
  const { b, opened } = breaker(async () => {})
  t.teardown(() => b.stop())
  t.equal(b.state, 'closed')
  t.equal(b.name, 'testdep')
  t.equal(await b.call(async () => 42), 42)
  t.doesNotThrow(() => b.assertClosed())
  t.same(opened, [])
})

t.test('a failure opens it: the error is rethrown, later calls are refused without running', async (t) => {
  let up = false
  const { b, opened, closed } = breaker(async () => { if (!up) throw new Error('still down') })
  t.teardown(() => b.stop())
  const failure = new Error('connection refused')
  await t.rejects(b.call(async () => { throw failure }), failure)
  t.not(b.state, 'closed')
  t.equal(opened.length, 1)
  t.equal(opened[0], failure, 'the open event carries the error')

  let ran = false
  await t.rejects(b.call(async () => { ran = true }), DependencyUnavailableError)
  t.notOk(ran, 'a refused call never runs its operation')
  t.throws(() => b.assertClosed(), { name: 'DependencyUnavailableError', code: 'DEPENDENCY_UNAVAILABLE', dependency: 'testdep' })

  await pause(60)
  t.not(b.state, 'closed', 'failing probes keep it open')
  t.same(closed, [])

  up = true
  t.ok(await until(() => b.state === 'closed', 5000, 5), 'the first successful probe closes it')
  t.equal(closed.length, 1, 'one close event per outage')
  t.ok(closed[0] >= 0)
  t.equal(opened.length, 1, 'one open event per outage, however many calls were refused')
  t.equal(await b.call(async () => 'back'), 'back')
})

t.test('errors that are not outages leave it closed', async (t) => {
  const { b, opened } = breaker(async () => {})
  t.teardown(() => b.stop())
  const notOutage = new Error('unique violation')
  await t.rejects(b.call(async () => { throw notOutage }, () => false), notOutage)
  t.equal(b.state, 'closed')
  t.same(opened, [])
})

t.test('trip while already open is one outage; a stopped breaker neither trips nor probes', async (t) => {
  let probes = 0
  const { b, opened } = breaker(async () => { probes++; throw new Error('down') })
  b.trip(new Error('first'))
  b.trip(new Error('second'))
  t.equal(opened.length, 1)
  await until(() => probes > 0, 5000, 5)
  b.stop()
  const seen = probes
  await pause(60)
  t.ok(probes - seen <= 1, 'no probe is scheduled after stop()')

  const stopped = breaker(async () => {})
  stopped.b.stop()
  stopped.b.trip(new Error('after stop'))
  t.equal(stopped.b.state, 'closed')
  t.same(stopped.opened, [])
})
