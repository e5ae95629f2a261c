// The portal's words for the values of the service's enums (a claim's status, a
// stock's delivery mode, an activity record's action…): one typed map per enum, each
// value with its word in both languages (`{ en, ru }`), so a value added to an enum
// in domain/ is a type error here until it has both words — one file to edit, not a
// key found missing at run time. The texts with a count hold each language's plural
// forms (words.ts). routes/portal/i18n/index.ts picks one language's words from here.
import type { EnumWords } from './words.js'

export const enumWords: EnumWords = {
  claimStatus: {
    open: { en: 'Open', ru: 'Открыта' },
    escalated: { en: 'Escalated', ru: 'У маркетплейса' },
    replaced: { en: 'Replaced', ru: 'Заменено' },
    refunded: { en: 'Refunded', ru: 'Возврат' },
    rejected: { en: 'Rejected', ru: 'Отклонена' }
  },
  claimReason: {
    not_working: { en: 'Does not work', ru: 'Не работает' },
    already_used: { en: 'Already used', ru: 'Уже использован' },
    wrong_item: { en: 'Wrong item', ru: 'Не тот товар' },
    other: { en: 'Other', ru: 'Другое' }
  },
  resolvedBy: {
    seller: { en: 'by the shop', ru: 'магазином' },
    auto: { en: 'automatically', ru: 'автоматически' },
    operator: { en: 'by the marketplace', ru: 'маркетплейсом' }
  },
  autoDelivery: {
    off: { en: 'Off', ru: 'Выключена' },
    stock: { en: 'From stock', ru: 'Со склада' },
    endpoint: { en: 'From your delivery endpoint', ru: 'С вашего адреса выдачи' }
  },
  stockItemStatus: {
    available: { en: 'Available', ru: 'В наличии' },
    delivered: { en: 'Delivered', ru: 'Выданы' },
    removed: { en: 'Removed', ru: 'Сняты' },
    defective: { en: 'Defective', ru: 'Брак' }
  },
  salesGrouping: {
    day: { en: 'Day', ru: 'По дням' },
    week: { en: 'Week (from Monday)', ru: 'По неделям (с понедельника)' },
    month: { en: 'Month', ru: 'По месяцам' },
    product: { en: 'Product', ru: 'По товарам' }
  },
  salesPreset: {
    last7Days: { en: 'Last 7 days', ru: 'Последние 7 дней' },
    lastWeek: { en: 'Last week', ru: 'Прошлая неделя' },
    thisMonth: { en: 'This month', ru: 'Этот месяц' },
    lastMonth: { en: 'Last month', ru: 'Прошлый месяц' }
  },
  attemptStatus: {
    pending: { en: 'Pending', ru: 'Ожидает' },
    succeeded: { en: 'Delivered', ru: 'Доставлено' },
    failed: { en: 'Failed', ru: 'Не доставлено' }
  },
  deliveryRequestStatus: {
    pending: { en: 'Pending', ru: 'Ожидает' },
    succeeded: { en: 'Delivered', ru: 'Выдан' },
    failed: { en: 'Failed', ru: 'Не выдан' },
    discarded: { en: 'Not used', ru: 'Не понадобился' }
  },
  activity: {
    'session.entered': { en: 'Opened the portal{readOnly}', ru: 'Вход в кабинет{readOnly}' },
    'session.signedOut': { en: 'Signed out', ru: 'Выход из кабинета' },
    'apiKey.created': { en: 'Created the API key “{name}” ({prefix}…)', ru: 'Создан ключ API «{name}» ({prefix}…)' },
    'apiKey.revoked': { en: 'Revoked the API key “{name}” ({prefix}…)', ru: 'Отозван ключ API «{name}» ({prefix}…)' },
    'webhook.created': { en: 'Added the webhook endpoint {host}', ru: 'Добавлен адрес для вебхуков {host}' },
    'webhook.updated': { en: 'Changed the webhook endpoint {host}', ru: 'Изменён адрес для вебхуков {host}' },
    'webhook.deleted': { en: 'Deleted the webhook endpoint {host}', ru: 'Удалён адрес для вебхуков {host}' },
    'webhook.rotated': { en: 'Rotated the signing secret of {host}', ru: 'Сменён секрет подписи {host}' },
    'webhook.tested': { en: 'Sent a test event to {host}', ru: 'Отправлено пробное событие на {host}' },
    'webhook.retried': { en: 'Retried a delivery to {host}', ru: 'Повторена отправка на {host}' },
    'webhook.retriedFailed': {
      en: 'Retried the failed deliveries to {host}',
      ru: 'Повторены неудачные отправки на {host}'
    },
    'delivery.saved': { en: 'Set the delivery endpoint to {host}', ru: 'Задан адрес выдачи {host}' },
    'delivery.deleted': { en: 'Deleted the delivery endpoint {host}', ru: 'Удалён адрес выдачи {host}' },
    'delivery.rotated': {
      en: 'Rotated the delivery endpoint\'s signing secret',
      ru: 'Сменён секрет подписи адреса выдачи'
    },
    'delivery.tested': {
      en: 'Tested the delivery endpoint with “{product}”: {result}',
      ru: 'Пробный запрос на адрес выдачи для «{product}»: {result}'
    },
    'claim.replaced': {
      en: {
        one: 'Replaced {count} code of the claim on order {order} from stock',
        other: 'Replaced {count} codes of the claim on order {order} from stock'
      },
      ru: {
        one: 'Заменён со склада {count} код из претензии к заказу {order}',
        few: 'Заменены со склада {count} кода из претензии к заказу {order}',
        many: 'Заменены со склада {count} кодов из претензии к заказу {order}',
        other: 'Заменены со склада {count} кода из претензии к заказу {order}'
      }
    },
    'claim.refunded': {
      en: 'Refunded order {order} on its claim',
      ru: 'Возвращены деньги за заказ {order} по претензии'
    },
    'claim.rejected': { en: 'Rejected the claim on order {order}', ru: 'Отклонена претензия к заказу {order}' },
    'stock.added': {
      en: {
        one: 'Uploaded {count} code to “{product}” ({duplicates} not added)',
        other: 'Uploaded {count} codes to “{product}” ({duplicates} not added)'
      },
      ru: {
        one: 'Загружен {count} код в «{product}» (не добавлено: {duplicates})',
        few: 'Загружено {count} кода в «{product}» (не добавлено: {duplicates})',
        many: 'Загружено {count} кодов в «{product}» (не добавлено: {duplicates})',
        other: 'Загружено {count} кода в «{product}» (не добавлено: {duplicates})'
      }
    },
    'stock.removed': {
      en: { one: 'Removed {count} code from “{product}”', other: 'Removed {count} codes from “{product}”' },
      ru: {
        one: 'Снят {count} код из «{product}»',
        few: 'Снято {count} кода из «{product}»',
        many: 'Снято {count} кодов из «{product}»',
        other: 'Снято {count} кода из «{product}»'
      }
    },
    'stock.updated': { en: 'Changed the stock settings of “{product}”', ru: 'Изменены настройки склада «{product}»' },
    'chatRule.created': { en: 'Added the auto-reply “{name}”', ru: 'Добавлен автоответ «{name}»' },
    'chatRule.updated': { en: 'Changed the auto-reply “{name}”', ru: 'Изменён автоответ «{name}»' },
    'chatRule.enabled': { en: 'Enabled the auto-reply “{name}”', ru: 'Включён автоответ «{name}»' },
    'chatRule.disabled': { en: 'Disabled the auto-reply “{name}”', ru: 'Выключен автоответ «{name}»' },
    'chatRule.deleted': { en: 'Deleted the auto-reply “{name}”', ru: 'Удалён автоответ «{name}»' },
    'order.taken': { en: 'Took order {order} into work', ru: 'Заказ {order} взят в работу' },
    'order.delivered': { en: 'Delivered order {order}', ru: 'Выдан заказ {order}' },
    'order.cancelled': { en: 'Cancelled order {order}', ru: 'Отменён заказ {order}' },
    'order.replied': { en: 'Replied in the chat of order {order}', ru: 'Ответ в чате заказа {order}' },
    'order.revealed': { en: 'Showed the delivered codes of order {order}', ru: 'Показаны выданные коды заказа {order}' }
  },
  orderStatus: {
    paid: { en: 'Paid, waiting', ru: 'Оплачен, ждёт' },
    processing: { en: 'In work', ru: 'В работе' },
    awaiting_confirmation: { en: 'Delivered, awaiting confirmation', ru: 'Выдан, ждёт подтверждения' },
    completed: { en: 'Completed', ru: 'Завершён' },
    cancelled: { en: 'Cancelled', ru: 'Отменён' }
  },
  assignee: {
    user: { en: 'A person', ru: 'Человек' },
    api: { en: 'The API', ru: 'Через API' },
    auto: { en: 'The service, automatically', ru: 'Сервис, автоматически' }
  },
  senderRole: {
    buyer: { en: 'Buyer', ru: 'Покупатель' },
    seller: { en: 'You', ru: 'Вы' },
    system: { en: 'System', ru: 'Система' }
  },
  eventType: {
    'order.paid': { en: 'Paid', ru: 'Оплачен' },
    'order.taken': { en: 'Taken into work', ru: 'Взят в работу' },
    'order.delivered': { en: 'Delivered', ru: 'Выдан' },
    'order.cancelled': { en: 'Cancelled', ru: 'Отменён' },
    'order.completed': { en: 'The buyer confirmed receipt', ru: 'Покупатель подтвердил получение' },
    'message.created': { en: 'A chat message', ru: 'Сообщение в чате' },
    'stock.low': { en: 'Stock is low', ru: 'Склад на исходе' },
    'stock.empty': { en: 'Stock ran out', ru: 'Склад закончился' },
    'order.delivery_failed': {
      en: 'The delivery endpoint could not supply it',
      ru: 'Адрес выдачи не смог выдать заказ'
    },
    'claim.opened': { en: 'A claim was opened', ru: 'Открыта претензия' },
    'claim.escalated': { en: 'The claim was escalated to the marketplace', ru: 'Претензия передана маркетплейсу' },
    'claim.resolved': { en: 'The claim was settled', ru: 'Претензия решена' },
    'order.updated': { en: 'Its codes changed', ru: 'Изменились коды' },
    'chat.seller_called': { en: 'An auto-reply called you', ru: 'Автоответ позвал вас' }
  },
  eventMeaning: {
    'order.paid': {
      en: 'A buyer paid for an order: it waits for you, or is delivered at once',
      ru: 'Покупатель оплатил заказ: он ждёт вас или выдаётся сразу'
    },
    'order.taken': { en: 'An order was taken into work', ru: 'Заказ взят в работу' },
    'order.delivered': {
      en: 'An order\'s codes went to the buyer, who now confirms receipt',
      ru: 'Коды заказа ушли покупателю, он подтверждает получение'
    },
    'order.cancelled': { en: 'An order was cancelled and its money refunded', ru: 'Заказ отменён, деньги возвращены' },
    'order.completed': {
      en: 'The buyer confirmed receipt: the money is credited to the shop',
      ru: 'Покупатель подтвердил получение: деньги зачислены магазину'
    },
    'message.created': { en: 'A new message in an order\'s chat', ru: 'Новое сообщение в чате заказа' },
    'stock.low': {
      en: 'A product\'s stock fell to its low-stock threshold',
      ru: 'Остаток товара дошёл до порога'
    },
    'stock.empty': { en: 'A product\'s stock ran out', ru: 'Товар закончился на складе' },
    'order.delivery_failed': {
      en: 'Your delivery endpoint could not supply an order\'s codes',
      ru: 'Адрес выдачи не смог выдать коды заказа'
    },
    'claim.opened': { en: 'A buyer reported a delivered code', ru: 'Покупатель пожаловался на выданный код' },
    'claim.escalated': {
      en: 'A claim went to the marketplace: you did not answer in time',
      ru: 'Претензия ушла маркетплейсу: ответа не было вовремя'
    },
    'claim.resolved': {
      en: 'A claim was settled: replaced, refunded or rejected',
      ru: 'Претензия решена: замена, возврат или отказ'
    },
    'order.updated': { en: 'An order\'s codes changed (a replacement)', ru: 'Коды заказа изменились (замена)' },
    'chat.seller_called': {
      en: 'An auto-reply asked for a person to answer a buyer',
      ru: 'Автоответ позвал человека ответить покупателю'
    }
  },
  chatRuleTrigger: {
    'order.paid': { en: 'An order is paid', ru: 'Заказ оплачен' },
    'order.delivered': { en: 'An order is delivered', ru: 'Заказ выдан' },
    'order.completed': { en: 'The buyer confirms receipt', ru: 'Покупатель подтвердил получение' },
    'order.cancelled': { en: 'An order is cancelled', ru: 'Заказ отменён' },
    'claim.opened': { en: 'A claim is opened', ru: 'Открыта претензия' },
    'claim.resolved': { en: 'A claim is settled', ru: 'Претензия решена' },
    'message.first': { en: 'The buyer\'s first message', ru: 'Первое сообщение покупателя' },
    'message.keyword': { en: 'A buyer\'s message with a keyword', ru: 'Сообщение покупателя с ключевым словом' },
    'order.unconfirmed': { en: 'Receipt not confirmed after a while', ru: 'Получение долго не подтверждено' }
  },
  removeCodes: {
    en: { one: 'Remove {count} code?', other: 'Remove {count} codes?' },
    ru: {
      one: 'Снять со склада {count} код?',
      few: 'Снять со склада {count} кода?',
      many: 'Снять со склада {count} кодов?',
      other: 'Снять со склада {count} кода?'
    }
  },
  waitingOrders: {
    en: { one: '{count} paid order is waiting for codes', other: '{count} paid orders are waiting for codes' },
    ru: {
      one: '{count} оплаченный заказ ждёт кодов',
      few: '{count} оплаченных заказа ждут кодов',
      many: '{count} оплаченных заказов ждут кодов',
      other: '{count} оплаченного заказа ждут кодов'
    }
  },
  filledOrders: {
    en: {
      one: 'Delivered from stock to {count} waiting order:',
      other: 'Delivered from stock to {count} waiting orders:'
    },
    ru: {
      one: 'Со склада выдан {count} ожидавший заказ:',
      few: 'Со склада выданы {count} ожидавших заказа:',
      many: 'Со склада выдано {count} ожидавших заказов:',
      other: 'Со склада выдано {count} ожидавшего заказа:'
    }
  },
  selectCodes: {
    en: { one: 'Select the {count} code on this page', other: 'Select all {count} codes on this page' },
    ru: {
      one: 'Выбрать {count} код на этой странице',
      few: 'Выбрать {count} кода на этой странице',
      many: 'Выбрать {count} кодов на этой странице',
      other: 'Выбрать {count} кода на этой странице'
    }
  },
  rulePosted: {
    en: { one: '{count} message', other: '{count} messages' },
    ru: { one: '{count} сообщение', few: '{count} сообщения', many: '{count} сообщений', other: '{count} сообщения' }
  },
  replaceCodes: {
    en: {
      one: '{count} code goes out to the buyer, in place of the reported one.',
      other: '{count} codes go out to the buyer, in place of the reported ones.'
    },
    ru: {
      one: 'Покупателю уйдёт {count} код вместо того, что в претензии.',
      few: 'Покупателю уйдут {count} кода вместо тех, что в претензии.',
      many: 'Покупателю уйдут {count} кодов вместо тех, что в претензии.',
      other: 'Покупателю уйдут {count} кода вместо тех, что в претензии.'
    }
  },
  retriedFailed: {
    en: {
      one: '{count} failed delivery is being attempted again now.',
      other: '{count} failed deliveries are being attempted again now.'
    },
    ru: {
      one: '{count} неудачная отправка повторяется сейчас.',
      few: '{count} неудачные отправки повторяются сейчас.',
      many: '{count} неудачных отправок повторяются сейчас.',
      other: '{count} неудачной отправки повторяются сейчас.'
    }
  }
}
