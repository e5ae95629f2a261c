// The portal's texts (routes/portal/i18n/): both languages have every text, with the
// same {parameters}; every value of the enums the pages show has its word in both;
// the texts with a count agree with it in each language (Intl.PluralRules).
import t from 'tap'
import { claimReasons, claimStatuses } from '../../domain/claims.js'
import { SALES_GROUPINGS } from '../../domain/sales-stats.js'
import { sendStatuses } from '../../domain/webhook-sends.js'
import { en } from '../../routes/portal/i18n/en.js'
import { enumWords } from '../../routes/portal/i18n/enum-words.js'
import { pluralizer } from '../../routes/portal/i18n/index.js'
import { ru } from '../../routes/portal/i18n/ru.js'
import { ACTIVITY_ACTIONS, wordsIn, type Plural } from '../../routes/portal/i18n/words.js'
import { deliveryRequestStatuses } from '../../schemas/delivery-endpoint.js'
import { AUTO_DELIVERY } from '../../schemas/stock.js'

const [enWords, ruWords] = [wordsIn(enumWords, 'en'), wordsIn(enumWords, 'ru')]
const parameters = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()
const texts = (value: string | Plural) => (typeof value === 'string' ? [value] : Object.values(value))

t.test('both languages have every text, none empty, with the same parameters', async (t) => {
  t.same(Object.keys(ru).sort(), Object.keys(en).sort(), 'the same keys')
  for (const [key, text] of Object.entries(en) as Array<[keyof typeof en, string]>) {
    if (text.trim() === '' || ru[key].trim() === '') t.fail(`${key}: empty`)
    if (parameters(text).join() !== parameters(ru[key]).join()) t.fail(`${key}: {parameters} differ between en and ru`)
  }
})

t.test('every value of the enums has its word in both languages', async (t) => {
  const enums = {
    claimStatus: claimStatuses,
    claimReason: claimReasons,
    resolvedBy: ['seller', 'auto', 'operator'],
    autoDelivery: AUTO_DELIVERY,
    salesGrouping: SALES_GROUPINGS,
    attemptStatus: sendStatuses,
    deliveryRequestStatus: deliveryRequestStatuses,
    activity: ACTIVITY_ACTIONS
  }
  for (const [name, values] of Object.entries(enums) as Array<[keyof typeof enums, readonly string[]]>) {
    for (const [language, words] of [['en', enWords], ['ru', ruWords]] as const) {
      const map = words[name] as Record<string, string | Plural>
      t.same(Object.keys(map).sort(), [...values].sort(), `${language}: a word for every ${name}`)
      for (const value of values) {
        for (const text of texts(map[value] ?? '')) if (text.trim() === '') t.fail(`${language} ${name}.${value}: empty`)
      }
    }
    for (const value of values) {
      const [english, russian] = [enWords[name] as Record<string, string | Plural>, ruWords[name] as Record<string, string | Plural>]
      const params = (value: string | Plural) => [...new Set(texts(value).flatMap(parameters))].sort().join()
      t.equal(params(russian[value]!), params(english[value]!), `${name}.${value}: the same parameters in en and ru`)
    }
  }
})

t.test('a text with a count takes the form the count needs', async (t) => {
  const [english, russian] = [pluralizer('en'), pluralizer('ru')]
  t.same([1, 2, 5, 21].map((n) => english(enWords.removeCodes, n)),
    ['Remove 1 code?', 'Remove 2 codes?', 'Remove 5 codes?', 'Remove 21 codes?'])
  t.same([1, 2, 5, 11, 21, 22, 25, 111].map((n) => russian(ruWords.removeCodes, n)), [
    'Снять со склада 1 код?', 'Снять со склада 2 кода?', 'Снять со склада 5 кодов?', 'Снять со склада 11 кодов?',
    'Снять со склада 21 код?', 'Снять со склада 22 кода?', 'Снять со склада 25 кодов?', 'Снять со склада 111 кодов?'
  ])
  t.equal(english(enWords.activity['stock.removed'], 1, { product: 'Key' }), 'Removed 1 code from “Key”')
  t.equal(russian(ruWords.activity['stock.removed'], 3, { product: 'Ключ' }), 'Снято 3 кода из «Ключ»')
  t.equal(russian(ruWords.activity['claim.replaced'], 1, { order: 'ab12cd34' }),
    'Заменён со склада 1 код из претензии к заказу ab12cd34')

  // Every form of every text with a count says the count.
  for (const [language, words] of [['en', enWords], ['ru', ruWords]] as const) {
    const plurals = [words.removeCodes, ...Object.values(words.activity).filter((text) => typeof text !== 'string')]
    for (const text of plurals) {
      for (const form of Object.values(text)) t.match(form, /\{count\}/, `${language}: "${form}" says the count`)
    }
  }
})
