// Demo data for a first look: a shop with a USD rate, an externally automated
// product priced in dollars, and an API key; on the first embedded start also
// two chat rules (seedDemoChatRules), so the tour shows the shop answering by itself.
import { createApiKey } from '../../db/shops/api-keys.js'
import { listCategories } from '../../db/catalog/categories.js'
import type { Db } from '../../db/core/client.js'
import { upsertCurrencyRate } from '../../db/catalog/currency-rates.js'
import { createProduct } from '../catalog/service.js'
import { createShop } from '../../db/shops/shops.js'
import { createChatRule } from '../../db/chat-rules/rules.js'
import { chatRuleFields } from '../../domain/chat-rules.js'

export async function seedDemoShop (
  db: Db, name = 'Demo shop'
): Promise<{ shopId: string, productId: string, secret: string }> {
  const shop = await createShop(db, name)
  const usd = await upsertCurrencyRate(db, shop.id, 'USD', '92.500000')
  const categories = await listCategories(db)
  const category = categories.find((c) => c.pathEn === 'gift-cards/steam') ?? categories[0]
  const region = category.filters[0]
  const product = await createProduct({ db }, shop.id, {
    categoryId: category.id,
    title: 'Steam wallet code, $10',
    description: 'A Steam wallet top-up code. Delivered automatically within minutes of payment.',
    isActive: true,
    external: true,
    currencyRateId: usd.id,
    price: 10,
    imageId: '',
    employeeReward: { type: 'percent', value: 0 },
    fields: [
      { type: 'text', label: 'Steam profile link', required: false, multiple: false, options: [] },
      {
        type: 'select',
        label: 'Delivery',
        required: false,
        multiple: false,
        options: [{ label: 'Code in chat', price: 0 }, { label: 'Top-up to my account', price: 0.5 }]
      }
    ],
    filters: region ? [{ filterId: region.id, optionIds: [region.options[0].id] }] : []
  })
  const { secret } = await createApiKey(db, shop.id, 'demo')
  return { shopId: shop.id, productId: product.id, secret }
}

/** The demo shop's chat rules (docs/chat-rules.md): a thank-you after delivery and a `!help` command. */
export async function seedDemoChatRules (db: Db, shopId: string): Promise<void> {
  await db.transaction((tx) => createChatRule(tx, shopId, chatRuleFields({
    name: 'Thank you',
    trigger: 'order.delivered',
    text: 'Спасибо за покупку! Thank you for your order {{orderId}} ({{productTitle}}). ' +
      'Questions? Write !help.'
  })))
  await db.transaction((tx) => createChatRule(tx, shopId, chatRuleFields({
    name: 'Help',
    trigger: 'message.keyword',
    keywords: ['!help', '!помощь'],
    cooldownSeconds: 60,
    text: 'Your code is in this chat once the order is delivered; please confirm receipt after activating it. ' +
      'If the code does not work, open a claim on the order. Ваш код придёт в этот чат.'
  })))
}
