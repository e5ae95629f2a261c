// The in-memory list of IPs refused for failed authentication: expiry and bound.
import t from 'tap'
import { ExhaustedIps } from '../../plugins/rate-limit.js'

t.test('an IP is exhausted until its window resets', async (t) => {
  const ips = new ExhaustedIps()
  ips.add('203.0.113.1', Date.now() + 60_000)
  ips.add('203.0.113.2', Date.now() - 1)
  t.ok(ips.has('203.0.113.1'))
  t.notOk(ips.has('203.0.113.2'), 'expired')
  t.notOk(ips.has('203.0.113.3'), 'never refused')
})

t.test('the list stays bounded under a flood of addresses', async (t) => {
  const ips = new ExhaustedIps(100)
  for (let i = 0; i < 1000; i++) ips.add(`10.0.${i >> 8}.${i & 255}`, Date.now() + 60_000)
  let kept = 0
  for (let i = 0; i < 1000; i++) if (ips.has(`10.0.${i >> 8}.${i & 255}`)) kept++
  t.ok(kept <= 100, `${kept} kept`)
  t.ok(ips.has('10.0.3.231'), 'the newest are kept')
})
