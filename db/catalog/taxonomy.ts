// The default category taxonomy of a digital-goods marketplace, seeded on start.
// Seeding is idempotent: a category whose English path exists is left alone.
import { count } from 'drizzle-orm'
import { insertCategory, type CategoryInput } from './categories.js'
import type { Db } from '../core/client.js'
import { categories } from '../tables.js'

const buttons = (name: string, labels: string[], affectsPrice = false) =>
  ({ name, type: 'buttons' as const, affectsPrice, options: labels.map((label) => ({ label })) })

const region = buttons('Регион', ['Россия и СНГ', 'Европа', 'США', 'Турция', 'Весь мир'], true)
const platform = buttons('Платформа', ['PC', 'PlayStation', 'Xbox', 'Nintendo Switch'])
const term = buttons('Срок', ['1 месяц', '3 месяца', '6 месяцев', '12 месяцев'], true)

export const defaultTaxonomy: CategoryInput[] = [
  { pathRu: 'Игры / Ключи Steam', pathEn: 'games/steam-keys', filters: [region] },
  { pathRu: 'Игры / Аккаунты Steam', pathEn: 'games/steam-accounts', filters: [region] },
  { pathRu: 'Игры / Гифты Steam', pathEn: 'games/steam-gifts', filters: [region] },
  { pathRu: 'Игры / Ключи консолей', pathEn: 'games/console-keys', filters: [platform, region] },
  { pathRu: 'Игры / Epic Games Store', pathEn: 'games/epic-games', filters: [] },
  { pathRu: 'Игры / Battle.net', pathEn: 'games/battle-net', filters: [region] },
  {
    pathRu: 'Игровая валюта / Genshin Impact',
    pathEn: 'game-currency/genshin-impact',
    filters: [buttons('Сервер', ['Europe', 'America', 'Asia', 'TW/HK/MO'])]
  },
  { pathRu: 'Игровая валюта / PUBG Mobile', pathEn: 'game-currency/pubg-mobile', filters: [] },
  { pathRu: 'Игровая валюта / Roblox', pathEn: 'game-currency/roblox', filters: [] },
  {
    pathRu: 'Игровая валюта / World of Warcraft',
    pathEn: 'game-currency/world-of-warcraft',
    filters: [buttons('Фракция', ['Альянс', 'Орда']), buttons('Регион', ['Европа', 'США'])]
  },
  { pathRu: 'Игровая валюта / Brawl Stars', pathEn: 'game-currency/brawl-stars', filters: [] },
  { pathRu: 'Подарочные карты / Steam', pathEn: 'gift-cards/steam', filters: [region] },
  { pathRu: 'Подарочные карты / PlayStation Store', pathEn: 'gift-cards/playstation-store', filters: [region] },
  { pathRu: 'Подарочные карты / Xbox', pathEn: 'gift-cards/xbox', filters: [region] },
  { pathRu: 'Подарочные карты / Apple', pathEn: 'gift-cards/apple', filters: [region] },
  { pathRu: 'Подарочные карты / Google Play', pathEn: 'gift-cards/google-play', filters: [region] },
  {
    pathRu: 'Программы / Windows',
    pathEn: 'software/windows',
    filters: [buttons('Редакция', ['Home', 'Pro', 'Enterprise'], true)]
  },
  {
    pathRu: 'Программы / Microsoft Office',
    pathEn: 'software/microsoft-office',
    filters: [buttons('Версия', ['2019', '2021', '2024', '365'], true)]
  },
  {
    pathRu: 'Программы / Антивирусы',
    pathEn: 'software/antivirus',
    filters: [buttons('Устройств', ['1', '3', '5'], true), term]
  },
  { pathRu: 'Программы / VPN', pathEn: 'software/vpn', filters: [term] },
  { pathRu: 'Подписки / Spotify', pathEn: 'subscriptions/spotify', filters: [term] },
  { pathRu: 'Подписки / YouTube Premium', pathEn: 'subscriptions/youtube-premium', filters: [term] },
  {
    pathRu: 'Подписки / Xbox Game Pass',
    pathEn: 'subscriptions/xbox-game-pass',
    filters: [buttons('Тариф', ['Core', 'Standard', 'Ultimate'], true), term]
  },
  {
    pathRu: 'Подписки / PlayStation Plus',
    pathEn: 'subscriptions/playstation-plus',
    filters: [buttons('Тариф', ['Essential', 'Extra', 'Deluxe'], true), term, region]
  },
  { pathRu: 'Подписки / ChatGPT', pathEn: 'subscriptions/chatgpt', filters: [buttons('Тариф', ['Plus', 'Pro'], true)] },
  {
    pathRu: 'Подписки / Discord Nitro',
    pathEn: 'subscriptions/discord-nitro',
    filters: [buttons('Тариф', ['Basic', 'Nitro'], true), term]
  },
  {
    pathRu: 'Аккаунты / Социальные сети',
    pathEn: 'accounts/social-networks',
    filters: [buttons('Сеть', ['Telegram', 'VK', 'Instagram', 'TikTok'])]
  },
  {
    pathRu: 'Аккаунты / Почта',
    pathEn: 'accounts/email',
    filters: [buttons('Сервис', ['Gmail', 'Outlook', 'Яндекс', 'Mail.ru'])]
  },
  { pathRu: 'Аккаунты / Игровые', pathEn: 'accounts/games', filters: [platform] },
  { pathRu: 'Услуги / Буст рейтинга', pathEn: 'services/rank-boost', filters: [platform] },
  { pathRu: 'Услуги / Прокачка аккаунта', pathEn: 'services/account-leveling', filters: [] }
]

/** Seeds the default taxonomy into an empty category table; leaves an existing one alone. */
export async function seedTaxonomy (db: Db): Promise<void> {
  const [{ existing }] = await db.select({ existing: count() }).from(categories)
  if (existing > 0) return
  await db.transaction(async (tx) => {
    for (const category of defaultTaxonomy) await insertCategory(tx, category)
  })
}
