// Pure rules of the chat rules: templates, keyword folding and matching, the rule against its trigger.
import t from 'tap'
import { parseTemplate } from '../../domain/chat-rule-template.js'
import { compileKeywordRules, foldText, keywordMatcher } from '../../domain/chat-rule-keywords.js'
import { chatRuleFields } from '../../domain/chat-rules.js'

t.test('templates: segments, spaces inside braces, the field label, and each problem named', async (t) => {
  t.same(parseTemplate('Hi {{ orderId }}, {{field: Email }}!', 'order.paid'), {
    ok: true, segments: [{ text: 'Hi ' }, { placeholder: 'orderId' }, { text: ', ' }, { field: 'Email' }, { text: '!' }]
  })
  t.same(parseTemplate('plain', 'message.first'), { ok: true, segments: [{ text: 'plain' }] })
  t.match(parseTemplate('{{claimReason}}', 'order.paid'), { ok: false, problem: /\{\{claimReason\}\} is only for the claim/ })
  t.same(parseTemplate('{{claimReason}}', 'claim.resolved'), { ok: true, segments: [{ placeholder: 'claimReason' }] })
  t.match(parseTemplate('a {{nope}}', 'order.paid'), { ok: false, problem: 'unknown placeholder {{nope}}' })
  t.match(parseTemplate('a {{orderId', 'order.paid'), { ok: false, problem: /no closing/ })
  t.match(parseTemplate('{{field:}}', 'order.paid'), { ok: false, problem: 'unknown placeholder {{field:}}' })
  t.same(parseTemplate('} {{amount}} }}', 'order.paid'), { ok: true, segments: [{ text: '} ' }, { placeholder: 'amount' }, { text: ' }}' }] })
})

t.test('folding: NFKC, Unicode lower case, runs of white space', async (t) => {
  t.equal(foldText('  ＨＥＬＬＯ\t\n  Мир  '), 'hello мир')
  t.equal(foldText('İ'), 'i̇')
})

t.test('keywords: whole words in any script, commands at the start', async (t) => {
  const privet = keywordMatcher(['привет'])
  t.ok(privet(foldText('Привет, ключ не работает')))
  t.notOk(keywordMatcher(['вет'])(foldText('Привет, ключ не работает')))
  t.ok(keywordMatcher(['key'])(foldText('my_key!')), '_ is a boundary')
  t.notOk(keywordMatcher(['key'])(foldText('key2')), 'a digit is not')
  t.notOk(keywordMatcher(['ключ'])(foldText('ключ1')))
  t.ok(keywordMatcher(['не работает'])(foldText('Ключ НЕ   работает')), 'runs of white space')
  t.ok(keywordMatcher(['при', 'привет'])(foldText('привет')), 'a shorter keyword does not hide a longer one')
  const help = keywordMatcher(['!help'])
  t.ok(help(foldText('!help')))
  t.ok(help(foldText('  !HELP please')))
  t.notOk(help(foldText('!helpme')))
  t.notOk(help(foldText('please !help')))
  t.ok(keywordMatcher(['a.b'])(foldText('x a.b y')))
  t.notOk(keywordMatcher(['a.b'])(foldText('axb')), 'keywords are literal text')
  const match = compileKeywordRules([{ id: 'one', keywords: ['key'] }, { id: 'two', keywords: ['!help'] }, { id: 'three', keywords: ['KEY'] }])
  t.same(match('!help key'), ['one', 'two', 'three'])
  t.same(match('!help, key'), ['one', 'three'], 'a command is followed by white space')
  t.same(match('nothing'), [])
})

t.test('a rule against its trigger: defaults, neutral values, every problem named', async (t) => {
  const fields = chatRuleFields({ name: ' A ', trigger: 'order.paid', text: ' Hi ', keywords: [], cooldownSeconds: 0, afterMinutes: null, callSeller: false })
  t.same(fields, {
    name: 'A',
    enabled: true,
    trigger: 'order.paid',
    priority: 100,
    productIds: [],
    keywords: [],
    cooldownSeconds: 0,
    afterMinutes: null,
    callSeller: false,
    text: 'Hi',
    template: [{ text: 'Hi' }]
  })
  t.throws(() => chatRuleFields({ name: 'A', trigger: 'order.paid', text: '{{x}}', keywords: ['a'], cooldownSeconds: 1, afterMinutes: 10, callSeller: true }),
    { code: 'VALIDATION_ERROR', details: ['keywords', 'cooldownSeconds', 'callSeller', 'afterMinutes', 'text'].map((f) => ({ path: `body.${f}` })) })
  t.throws(() => chatRuleFields({ name: 'A', trigger: 'order.unconfirmed', text: 'x' }), { message: /body\.afterMinutes/ })
  t.throws(() => chatRuleFields({ name: 'A', trigger: 'message.keyword', text: 'x', keywords: ['Ключ', 'КЛЮЧ'] }),
    { message: /body\.keywords has "КЛЮЧ" twice/ })
  t.equal(chatRuleFields({ name: 'A', trigger: 'message.keyword', text: 'x', keywords: [' !help '], cooldownSeconds: 60, callSeller: true }).keywords[0], '!help')
})
