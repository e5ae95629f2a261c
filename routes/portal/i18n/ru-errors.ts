// The portal's error sentences in Russian (the shape: error-words.ts). Counts after
// «до», «не больше», «длиннее» take the genitive: 1, 21 символа; 2, 5 символов.
import type { RuPlural } from './words.js'
import type { ErrorWords } from './error-words.js'

const genitive = (before: string, after = '.') => ({
  one: `${before} символа${after}`,
  few: `${before} символов${after}`,
  many: `${before} символов${after}`,
  other: `${before} символа${after}`
})

const same = (text: string) => ({ one: text, few: text, many: text, other: text })

export const ruErrors: ErrorWords<RuPlural> = {
  code: {
    VALIDATION_ERROR: 'Проверьте введённое и попробуйте ещё раз.',
    API_KEY_INVALID: 'Ключ недействителен.',
    NOT_FOUND: 'Этого уже нет: обновите страницу.',
    ORDER_NOT_FOUND: 'Этого уже нет: обновите страницу.',
    ORDER_INVALID_STATUS: 'Статус заказа сейчас этого не позволяет: обновите страницу.',
    IDEMPOTENCY_IN_PROGRESS: 'Такое же изменение ещё выполняется: подождите и обновите страницу.',
    IDEMPOTENCY_KEY_REUSED: 'Изменение отправлено дважды: обновите страницу.',
    STOCK_NOT_EMPTY: 'Поле вариантов меняется, только пока нет кодов в наличии: сначала снимите их.',
    STOCK_ITEM_UNAVAILABLE: 'Один из кодов уже выдан или снят: обновите страницу.',
    CLAIM_ALREADY_OPEN: 'По заказу уже открыта претензия.',
    CLAIM_LIMIT: 'По заказу уже было 3 претензии.',
    CLAIM_INVALID_STATUS: 'Претензия уже не позволяет этот ответ: обновите страницу.',
    STOCK_INSUFFICIENT: 'На складе не хватает кодов для замены: загрузите коды или верните деньги.',
    CHAT_RULE_LIMIT: 'У магазина уже 100 автоответов: удалите один.',
    CSRF_INVALID: 'Страница устарела: обновите её и попробуйте ещё раз.',
    READ_ONLY: 'В этом сеансе можно только смотреть: откройте ссылку с правом изменений.',
    SESSION_INVALID: 'Сеанс завершён: откройте новую ссылку с площадки.',
    CURSOR_EXPIRED: 'Список изменился: откройте его первую страницу.',
    RATE_LIMIT: 'Слишком много изменений за минуту: подождите и попробуйте ещё раз.',
    INTERNAL_ERROR: 'У нас что-то пошло не так: попробуйте позже.',
    SERVICE_UNAVAILABLE: 'Сервис сейчас не может этого сделать: попробуйте через минуту.'
  },
  lengthBetween: genitive('Введите от {min} до {count}'),
  lengthAtMost: genitive('Введите не больше {count}'),
  lengthAtLeast: genitive('Введите не меньше {count}'),
  empty: 'Заполните это поле.',
  required: 'Заполните это поле.',
  pattern: 'Здесь есть символы, которые это поле не принимает.',
  choose: 'Выберите один из вариантов.',
  wholeNumber: 'Введите целое число.',
  number: 'Введите число.',
  numberBetween: 'Введите число от {min} до {max}.',
  numberAtLeast: 'Введите число не меньше {min}.',
  numberAtMost: 'Введите число не больше {max}.',
  itemsAtLeast: same('Выберите не меньше {count}.'),
  itemsAtMost: same('Выберите не больше {count}.'),
  decimals: {
    one: 'Не больше {count} знака после запятой.',
    few: 'Не больше {count} знаков после запятой.',
    many: 'Не больше {count} знаков после запятой.',
    other: 'Не больше {count} знака после запятой.'
  },
  url: 'Введите полный адрес, начиная с https://.',
  date: 'Введите дату в виде ГГГГ-ММ-ДД.',
  dateTime: 'Введите дату и время.',
  format: 'Записано не в том виде, который принимает это поле.',
  invalid: 'Проверьте это значение.',
  answer: {
    noAnswer: 'Ответа нет: адрес не ответил вовремя или не принял соединение.',
    cannotSupply: 'HTTP {status}: адрес сообщает, что не может выдать этот заказ; повторов не будет.',
    redirect: 'HTTP {status}: переадресации не выполняются; отвечайте HTTP 200 с самого адреса.',
    status: 'HTTP {status}: успешный ответ — HTTP 200.',
    tooLarge: 'Ответ больше {max} байт.',
    notJson: 'Ответ не в формате JSON; ожидается {"values": [...]}.',
    notObject: 'Ответ — не объект JSON; ожидается {"values": [...]}.',
    noValuesArray: 'В ответе нет списка «values».',
    emptyValues: 'Список «values» пуст; нужно от 1 до 100 значений.',
    tooManyValues: 'Значений в списке «values»: {count}; можно не больше {max}.',
    notStrings: 'Значений не текстом: {count}.',
    emptyStrings: 'Пустых значений: {count}.',
    tooLong: 'Значений длиннее {max} символов: {count}.'
  },
  rule: {
    'x-absolute-url': 'Введите полный адрес, начиная с https://.',
    'x-https-url': 'Адрес должен начинаться с https://.',
    'x-url-credentials': 'Уберите из адреса имя пользователя и пароль.',
    'x-url-length': genitive('Адрес должен быть не длиннее {count}'),
    'x-public-address': 'Адрес должен вести в интернет, а не во внутреннюю сеть ({reason}).',
    'x-no-nul': 'Уберите из текста символ NUL.',
    'x-time-zone': 'Выберите часовой пояс из списка, например Europe/Moscow.',
    'x-date': 'Введите существующую дату в виде ГГГГ-ММ-ДД.',
    'x-range-order': 'Начало периода не может быть позже конца.',
    'x-range-length': 'Выберите период не длиннее {max} дней.',
    'x-keyword-count': 'Введите от 1 до {max} ключевых слов, по одному в строке.',
    'x-keyword-twice': 'Слово «{keyword}» указано дважды.',
    'x-keyword-only': 'Только для ответов на ключевое слово.',
    'x-reminder-minutes': 'Укажите, через сколько минут напомнить: от {min} до {max}.',
    'x-reminder-only': 'Только для напоминаний: оставьте пустым.',
    'x-template-unclosed': 'У «{text}» нет закрывающих «}}».',
    'x-placeholder-claims': 'Вставка {name} — только для ответов на претензии.',
    'x-placeholder-unknown': 'Вставки {name} нет.',
    'x-endpoint-limit': 'У магазина может быть не больше {max} адресов: удалите один.',
    'x-values-count': 'Введите столько кодов, сколько их в претензии ({count}), по одному в строке.',
    'x-line-too-long': genitive('Строка {line}: код длиннее {count}')
  }
}
