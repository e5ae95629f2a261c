// The portal's Russian words for the values of the service's enums (words.ts says why typed maps).
import type { RuPlural, Words } from './words.js'

export const ruWords: Words<RuPlural> = {
  claimStatus: {
    open: 'Открыта',
    escalated: 'У маркетплейса',
    replaced: 'Заменено',
    refunded: 'Возврат',
    rejected: 'Отклонена'
  },
  claimReason: {
    not_working: 'Не работает',
    already_used: 'Уже использован',
    wrong_item: 'Не тот товар',
    other: 'Другое'
  },
  resolvedBy: { seller: 'магазином', auto: 'автоматически', operator: 'маркетплейсом' },
  autoDelivery: { off: 'Выключена', stock: 'Со склада', endpoint: 'С вашего адреса выдачи' },
  stockItemStatus: { available: 'В наличии', delivered: 'Выданы', removed: 'Сняты', defective: 'Брак' },
  salesGrouping: { day: 'По дням', week: 'По неделям (с понедельника)', month: 'По месяцам', product: 'По товарам' },
  attemptStatus: { pending: 'Ожидает', succeeded: 'Доставлено', failed: 'Не доставлено' },
  deliveryRequestStatus: { pending: 'Ожидает', succeeded: 'Выдан', failed: 'Не выдан', discarded: 'Не понадобился' },
  activity: {
    'session.entered': 'Вход в кабинет{readOnly}',
    'session.signedOut': 'Выход из кабинета',
    'apiKey.created': 'Создан ключ API «{name}» ({prefix}…)',
    'apiKey.revoked': 'Отозван ключ API «{name}» ({prefix}…)',
    'webhook.created': 'Добавлен адрес для вебхуков {host}',
    'webhook.updated': 'Изменён адрес для вебхуков {host}',
    'webhook.deleted': 'Удалён адрес для вебхуков {host}',
    'webhook.rotated': 'Сменён секрет подписи {host}',
    'webhook.tested': 'Отправлено пробное событие на {host}',
    'webhook.retried': 'Повторена отправка на {host}',
    'delivery.saved': 'Задан адрес выдачи {host}',
    'delivery.deleted': 'Удалён адрес выдачи {host}',
    'delivery.rotated': 'Сменён секрет подписи адреса выдачи',
    'delivery.tested': 'Пробный запрос на адрес выдачи для «{product}»: {result}',
    'claim.replaced': {
      one: 'Заменён со склада {count} код из претензии к заказу {order}',
      few: 'Заменены со склада {count} кода из претензии к заказу {order}',
      many: 'Заменены со склада {count} кодов из претензии к заказу {order}',
      other: 'Заменены со склада {count} кода из претензии к заказу {order}'
    },
    'claim.refunded': 'Возвращены деньги за заказ {order} по претензии',
    'claim.rejected': 'Отклонена претензия к заказу {order}',
    'stock.added': {
      one: 'Загружен {count} код в «{product}» (не добавлено: {duplicates})',
      few: 'Загружено {count} кода в «{product}» (не добавлено: {duplicates})',
      many: 'Загружено {count} кодов в «{product}» (не добавлено: {duplicates})',
      other: 'Загружено {count} кода в «{product}» (не добавлено: {duplicates})'
    },
    'stock.removed': {
      one: 'Снят {count} код из «{product}»',
      few: 'Снято {count} кода из «{product}»',
      many: 'Снято {count} кодов из «{product}»',
      other: 'Снято {count} кода из «{product}»'
    },
    'stock.updated': 'Изменены настройки склада «{product}»',
    'chatRule.created': 'Добавлен автоответ «{name}»',
    'chatRule.updated': 'Изменён автоответ «{name}»',
    'chatRule.enabled': 'Включён автоответ «{name}»',
    'chatRule.disabled': 'Выключен автоответ «{name}»',
    'chatRule.deleted': 'Удалён автоответ «{name}»',
    'order.taken': 'Заказ {order} взят в работу',
    'order.delivered': 'Выдан заказ {order}',
    'order.cancelled': 'Отменён заказ {order}',
    'order.replied': 'Ответ в чате заказа {order}',
    'order.revealed': 'Показаны выданные коды заказа {order}'
  },
  orderStatus: {
    paid: 'Оплачен, ждёт',
    processing: 'В работе',
    awaiting_confirmation: 'Выдан, ждёт подтверждения',
    completed: 'Завершён',
    cancelled: 'Отменён'
  },
  assignee: { user: 'Человек', api: 'Через API', auto: 'Сервис, автоматически' },
  senderRole: { buyer: 'Покупатель', seller: 'Вы', system: 'Система' },
  eventType: {
    'order.paid': 'Оплачен',
    'order.taken': 'Взят в работу',
    'order.delivered': 'Выдан',
    'order.cancelled': 'Отменён',
    'order.completed': 'Покупатель подтвердил получение',
    'message.created': 'Сообщение в чате',
    'stock.low': 'Склад на исходе',
    'stock.empty': 'Склад закончился',
    'order.delivery_failed': 'Адрес выдачи не смог выдать заказ',
    'claim.opened': 'Открыта претензия',
    'claim.escalated': 'Претензия передана маркетплейсу',
    'claim.resolved': 'Претензия решена',
    'order.updated': 'Изменились коды',
    'chat.seller_called': 'Автоответ позвал вас'
  },
  chatRuleTrigger: {
    'order.paid': 'Заказ оплачен',
    'order.delivered': 'Заказ выдан',
    'order.completed': 'Покупатель подтвердил получение',
    'order.cancelled': 'Заказ отменён',
    'claim.opened': 'Открыта претензия',
    'claim.resolved': 'Претензия решена',
    'message.first': 'Первое сообщение покупателя',
    'message.keyword': 'Сообщение покупателя с ключевым словом',
    'order.unconfirmed': 'Получение долго не подтверждено'
  },
  waitingOrders: {
    one: '{count} оплаченный заказ ждёт кодов',
    few: '{count} оплаченных заказа ждут кодов',
    many: '{count} оплаченных заказов ждут кодов',
    other: '{count} оплаченного заказа ждут кодов'
  },
  filledOrders: {
    one: 'Со склада выдан {count} ожидавший заказ:',
    few: 'Со склада выданы {count} ожидавших заказа:',
    many: 'Со склада выдано {count} ожидавших заказов:',
    other: 'Со склада выдано {count} ожидавшего заказа:'
  },
  selectCodes: {
    one: 'Выбрать {count} код на этой странице',
    few: 'Выбрать {count} кода на этой странице',
    many: 'Выбрать {count} кодов на этой странице',
    other: 'Выбрать {count} кода на этой странице'
  },
  removeCodes: {
    one: 'Снять со склада {count} код?',
    few: 'Снять со склада {count} кода?',
    many: 'Снять со склада {count} кодов?',
    other: 'Снять со склада {count} кода?'
  },
  rulePosted: {
    one: '{count} сообщение',
    few: '{count} сообщения',
    many: '{count} сообщений',
    other: '{count} сообщения'
  }
}
