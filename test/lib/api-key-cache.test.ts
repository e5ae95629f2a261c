// The API key cache on its own (lib/api-key-cache.ts): nothing is cached
// while revocation notices cannot be heard, a notice or a drop forgets every
// key, a read that raced a revocation is never kept, and with Redis a cached
// key must be confirmed by a rate-limit script sent after its request began.
import t from 'tap'
import type { AuthenticatedKey } from '../../db/shops/api-keys.js'
import { ApiKeyCache } from '../../lib/api-key-cache.js'

const key = (id: string): AuthenticatedKey => ({ id, shopId: `shop-${id}`, lastUsedAt: null })

t.test('database mode: cached only while the listener hears notices', async (t) => {
  const cache = new ApiKeyCache('database')
  cache.remember('h1', key('k1'), cache.mark)
  t.equal(cache.recall('h1'), undefined, 'nothing is kept before the listener is up')
  t.notOk(cache.active)

  cache.listenerUp()
  t.ok(cache.active)
  cache.remember('h1', key('k1'), cache.mark)
  t.match(cache.recall('h1'), { key: { id: 'k1' }, check: null }, 'no Redis: no check after the script')
  t.ok(cache.holds('h1'))

  cache.listenerDown()
  t.equal(cache.recall('h1'), undefined, 'a drop forgets every key: notices sent meanwhile are lost')
  t.notOk(cache.holds('h1'))
  cache.remember('h1', key('k1'), cache.mark)
  t.equal(cache.recall('h1'), undefined, 'and nothing is cached while it is down')
  cache.listenerUp()
  t.equal(cache.recall('h1'), undefined, 'coming back does not bring old entries back')
})

t.test('a revocation notice forgets every key; a read that raced it is not kept', async (t) => {
  const cache = new ApiKeyCache('database')
  cache.listenerUp()
  cache.remember('h1', key('k1'), cache.mark)
  const before = cache.mark // a database read of h2 starts here…
  cache.revoked() // …a revocation is heard while it runs…
  cache.remember('h2', key('k2'), before) // …and its result arrives
  t.equal(cache.recall('h1'), undefined, 'the notice dropped the cached key')
  t.equal(cache.recall('h2'), undefined, 'the read begun before the notice is not trusted')
  t.equal(cache.revocationsSeen, 1)
  cache.remember('h2', key('k2'), cache.mark)
  t.ok(cache.recall('h2'), 'a read begun after it is')
})

t.test('shared mode: an epoch must be known, and a cached key is confirmed by a later script', async (t) => {
  const cache = new ApiKeyCache('shared')
  cache.listenerUp()
  cache.remember('h1', key('k1'), cache.mark)
  t.equal(cache.recall('h1'), undefined, 'no epoch seen yet: nothing cached')

  cache.observe(cache.sending(), 'epoch-a')
  cache.remember('h1', key('k1'), cache.mark)
  const hit = cache.recall('h1')
  t.ok(hit?.check, 'a hit carries the check its request must pass')
  t.notOk(cache.confirms(hit!.check!), 'not confirmed before a script sent after the request began replies')
  cache.observe(cache.sending(), 'epoch-a')
  t.ok(cache.confirms(hit!.check!), 'confirmed by a later script carrying the same epoch')

  const second = cache.recall('h1')!
  cache.observe(cache.sending(), 'epoch-b')
  t.notOk(cache.confirms(second.check!), 'a new epoch (a revocation elsewhere) refuses it')
  t.equal(cache.recall('h1'), undefined, 'and forgets every key')

  const stale = cache.sending()
  cache.observe(cache.sending(), 'epoch-c')
  cache.observe(stale, 'epoch-b')
  cache.remember('h1', key('k1'), cache.mark)
  t.match(cache.recall('h1'), { check: { epoch: 'epoch-c' } }, 'a late reply to an older script does not move the epoch back')
})
