// The pure webhook rules: signatures (checked with the standardwebhooks package,
// not with our own code), the retry schedule, and which addresses and URLs
// webhooks may go to.
import { Webhook } from 'standardwebhooks'
import t from 'tap'
import { loadConfig } from '../../plugins/config.js'
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule, retryDelayMs } from '../../domain/webhook-retry.js'
import { generateWebhookSecret, signatureHeader } from '../../domain/webhook-signing.js'
import { checkWebhookUrl, refusedAddressReason } from '../../domain/webhook-url.js'

t.test('signatures verify with standardwebhooks, one per secret', async (t) => {
  const current = generateWebhookSecret()
  const previous = generateWebhookSecret()
  t.match(current, /^whsec_[A-Za-z0-9+/]{43}=$/)
  t.not(current, previous)
  const id = 'f3b1c1de-8f0e-4d55-9a3e-6c7f0b1d2e3f'
  const timestamp = Math.floor(Date.now() / 1000)
  const body = '{"type":"order.paid","timestamp":"2026-11-21T10:00:00.000Z","data":{"text":"ключ №1 ✓"}}'
  const headers = (signature: string) => ({ 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature })

  const single = signatureHeader([current], id, timestamp, body)
  t.match(single, /^v1,[A-Za-z0-9+/]{43}=$/)
  t.same(new Webhook(current).verify(body, headers(single)), JSON.parse(body))
  t.throws(() => new Webhook(previous).verify(body, headers(single)))
  t.throws(() => new Webhook(current).verify(body.replace('№1', '№2'), headers(single)), 'a changed body does not verify')

  const both = signatureHeader([current, previous], id, timestamp, body)
  t.equal(both.split(' ').length, 2)
  t.ok(new Webhook(current).verify(body, headers(both)))
  t.ok(new Webhook(previous).verify(body, headers(both)))
  t.throws(() => new Webhook(generateWebhookSecret()).verify(body, headers(both)))
})

t.test('the retry schedule: 8 attempts over about 28 hours, ±10 % jitter', async (t) => {
  const schedule = parseRetrySchedule(DEFAULT_RETRY_SCHEDULE)
  t.same(schedule, [5, 300, 1800, 7200, 18000, 36000, 36000])
  t.equal(retryDelayMs(1, schedule, () => 0.5), 5000, 'after the first attempt: 5 s')
  t.equal(retryDelayMs(1, schedule, () => 0), 4500, '-10 %')
  t.equal(retryDelayMs(1, schedule, () => 1), 5500, '+10 %')
  t.equal(retryDelayMs(2, schedule, () => 0.5), 300_000)
  t.equal(retryDelayMs(7, schedule, () => 0.5), 36_000_000, 'after the 7th: 10 h')
  t.equal(retryDelayMs(8, schedule), null, 'the 8th attempt was the last')
  t.equal(retryDelayMs(12, schedule), null)
  for (let i = 0; i < 200; i++) {
    const delay = retryDelayMs(3, schedule)!
    t.ok(delay >= 1_620_000 && delay <= 1_980_000, 'within ±10 % of 30 min')
  }
  t.same(parseRetrySchedule('0.2,1.5,60'), [0.2, 1.5, 60])
})

t.test('WEBHOOK_* configuration is validated', async (t) => {
  const config = loadConfig({})
  t.match(config, { WEBHOOK_ALLOW_HTTP: false, WEBHOOK_ALLOW_PRIVATE: false, WEBHOOK_TIMEOUT_MS: 10_000, WEBHOOK_RETRY_SCHEDULE: DEFAULT_RETRY_SCHEDULE })
  t.equal(loadConfig({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_RETRY_SCHEDULE: '1,2.5' }).WEBHOOK_ALLOW_HTTP, true)
  for (const [name, value] of [['WEBHOOK_RETRY_SCHEDULE', '5,,10'], ['WEBHOOK_RETRY_SCHEDULE', '-1'], ['WEBHOOK_RETRY_SCHEDULE', '5 min'],
    ['WEBHOOK_TIMEOUT_MS', '0'], ['WEBHOOK_ALLOW_PRIVATE', 'yes'], ['WEBHOOK_CONCURRENCY', '0'], ['WEBHOOK_POLL_INTERVAL_MS', 'fast']]) {
    t.throws(() => loadConfig({ [name]: value }), new RegExp(name), `${name}=${value} is refused`)
  }
})

t.test('only public unicast addresses may receive webhooks', async (t) => {
  for (const address of ['93.184.215.14', '8.8.8.8', '2606:4700::1111', '2001:4860:4860::8888',
    '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1', '::808:808']) {
    t.equal(refusedAddressReason(address), null, `${address} is public`)
  }
  const refused: Array<[string, RegExp]> = [
    ['127.0.0.1', /loopback/], ['127.255.0.9', /loopback/], ['::1', /loopback/], ['::ffff:127.0.0.1', /127\.0\.0\.1 is a loopback/],
    ['10.2.3.4', /private/], ['172.31.0.1', /private/], ['192.168.0.10', /private/], ['::ffff:192.168.0.10', /private/],
    ['169.254.169.254', /link-local/], ['fe80::1', /link-local/], ['fc00::1', /unique-local/], ['fd00:ec2::254', /unique-local/],
    ['224.0.0.251', /multicast/], ['ff02::1', /multicast/], ['0.0.0.0', /unspecified/], ['::', /unspecified/],
    ['100.64.1.1', /carrier-grade NAT/], ['255.255.255.255', /broadcast/], ['192.0.2.1', /special-purpose \(reserved\)/],
    ['64:ff9b::a00:1', /10\.0\.0\.1 is a private address/],
    // IPv6 forms that carry an IPv4 address: judged as that address.
    ['::7f00:1', /127\.0\.0\.1 is a loopback address \(inside ::7f00:1\)/], ['::a9fe:a9fe', /169\.254\.169\.254 is a link-local/],
    ['::127.0.0.1', /127\.0\.0\.1 is a loopback/], ['64:ff9b::7f00:1', /127\.0\.0\.1 is a loopback/],
    ['2002:7f00:1::', /127\.0\.0\.1 is a loopback/], ['2002:a9fe:a9fe::1', /169\.254\.169\.254 is a link-local/],
    ['2002:c0a8:1::', /192\.168\.0\.1 is a private/],
    // Outside the global unicast block, or special-purpose inside it.
    ['64:ff9b:1::1', /special-purpose \(rfc6052\)|not a global unicast/], ['100::1', /special-purpose|not a global unicast/], ['4000::1', /not a global unicast/],
    ['2001:db8::1', /special-purpose/], ['2001::1', /special-purpose \(teredo\)/], ['::ffff:0:7f00:1', /special-purpose|not a global unicast/]
  ]
  for (const [address, reason] of refused) t.match(refusedAddressReason(address), reason, `${address} refused`)
})

t.test('webhook URL rules', async (t) => {
  const strict = { allowHttp: false, allowPrivate: false }
  t.same(checkWebhookUrl('https://Hooks.Example.invalid:443/x?y=1#frag', strict), { ok: true, url: 'https://hooks.example.invalid/x?y=1#frag' })
  t.same(checkWebhookUrl('http://hooks.example.invalid/', strict),
    { ok: false, problem: 'must be an https:// URL', rule: { keyword: 'x-https-url', params: {} } },
    'the refusal names its rule, for the portal\'s sentence')
  t.same(checkWebhookUrl('http://hooks.example.invalid/', { ...strict, allowHttp: true }), { ok: true, url: 'http://hooks.example.invalid/' })
  t.match(checkWebhookUrl('not a url', strict), { ok: false, problem: 'must be an absolute URL' })
  t.match(checkWebhookUrl('https://a:b@hooks.example.invalid/', strict), { ok: false, problem: /user name or password/ })
  t.match(checkWebhookUrl(`https://hooks.example.invalid/${'x'.repeat(2048)}`, strict), { ok: false, problem: /at most 2048/ })
  t.match(checkWebhookUrl('https://[::ffff:7f00:1]/', strict), { ok: false, problem: /127\.0\.0\.1 is a loopback address/ })
  t.match(checkWebhookUrl('https://0177.0.0.1/', strict), { ok: false }, 'octal IPv4 is normalised by the URL parser, then refused')
  t.same(checkWebhookUrl('https://10.0.0.1/', { ...strict, allowPrivate: true }), { ok: true, url: 'https://10.0.0.1/' })
  t.same(checkWebhookUrl('https://localhost/', strict), { ok: true, url: 'https://localhost/' }, 'names are judged when they resolve')
})
