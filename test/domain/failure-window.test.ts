// Failed attempts per client in fixed windows (domain/failure-window.ts): refused
// after `max` failures until the window ends, and bounded under a flood.
import t from 'tap'
import { FailureWindows } from '../../domain/failure-window.js'

t.test('refused after max failures, until the window ends', async (t) => {
  const windows = new FailureWindows(3, 1000)
  const start = 1_000_000
  for (let i = 0; i < 2; i++) windows.record('203.0.113.1', start)
  t.equal(windows.blockedFor('203.0.113.1', start), 0, 'two failures: not yet')
  windows.record('203.0.113.1', start + 10)
  t.equal(windows.blockedFor('203.0.113.1', start + 10), 990, 'the third: refused for the rest of the window')
  t.equal(windows.blockedFor('203.0.113.2', start + 10), 0, 'another client is not')
  t.equal(windows.blockedFor('203.0.113.1', start + 1000), 0, 'the window ended')
  windows.record('203.0.113.1', start + 1000)
  t.equal(windows.blockedFor('203.0.113.1', start + 1000), 0, 'a new window counts from one')
})

t.test('bounded under a flood of addresses: the newest are kept', async (t) => {
  const windows = new FailureWindows(1, 60_000, 100)
  const now = Date.now()
  for (let i = 0; i < 1000; i++) windows.record(`10.0.${i >> 8}.${i & 255}`, now)
  let kept = 0
  for (let i = 0; i < 1000; i++) if (windows.blockedFor(`10.0.${i >> 8}.${i & 255}`, now) > 0) kept++
  t.ok(kept <= 100, `${kept} kept`)
  t.ok(windows.blockedFor('10.0.3.231', now) > 0, 'the newest is still refused')
})
