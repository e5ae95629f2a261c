// The API's messages about a field (Ajv's, and the service's own rules) said in
// Russian on a Russian page; any other message is shown as the API words it.
import type { PortalLocale } from '../../../domain/portal-token.js'

const russian: Array<[RegExp, string]> = [
  [/^must NOT have fewer than (\d+) characters$/, 'должно быть не короче $1 символов'],
  [/^must NOT have more than (\d+) characters$/, 'должно быть не длиннее $1 символов'],
  [
    /^must be (\d+)–(\d+) characters after trimming surrounding whitespace$/,
    'должно быть длиной $1–$2 символов без пробелов по краям'
  ],
  [/^must match pattern /, 'заполнено неверно'],
  [/^must be integer$/, 'должно быть целым числом'],
  [/^must be >= (\d+)$/, 'должно быть не меньше $1'],
  [/^must be <= (\d+)$/, 'должно быть не больше $1'],
  [/^must be boolean$/, 'выберите один из вариантов'],
  [/^must be equal to one of the allowed values$/, 'выберите одно из предложенных значений'],
  [/^must have required property /, 'обязательно для заполнения'],
  [/^must NOT have fewer than (\d+) items$/, 'нужно не меньше $1'],
  [/^must NOT have more than (\d+) items$/, 'можно не больше $1'],
  [/^must match format "uuid"$/, 'выберите одно из предложенных значений'],
  [/^must be an absolute URL$/, 'должен быть полным адресом (https://…)'],
  [/^must be an https:\/\/ URL$/, 'должен начинаться с https://'],
  [/^must not contain a user name or password$/, 'не должен содержать имя пользователя или пароль'],
  [/^must be at most (\d+) characters$/, 'должен быть не длиннее $1 символов'],
  [/^must point to a public address \((.+)\)$/, 'должен вести на публичный адрес ($1)'],
  [/^must not contain a NUL character$/, 'не должно содержать символ NUL'],
  [
    /^A shop has at most (\d+) webhook endpoints; delete one first\.$/,
    'У магазина может быть не больше $1 адресов: удалите один.'
  ],
  [
    /^optionFieldId can change only while no item is available/,
    'Поле вариантов меняется, только пока нет кодов в наличии.'
  ],
  [/^must be an IANA time zone name/, 'должен быть названием часового пояса IANA, например Europe/Moscow'],
  [/^is not a time zone the database knows$/, 'такого часового пояса база данных не знает'],
  [/^must be a real date YYYY-MM-DD/, 'должна быть существующей датой ГГГГ-ММ-ДД'],
  [/^must not be after to$/, 'не может быть позже конца периода'],
  [/^the range must be at most (\d+) days, counting both ends$/, 'период должен быть не длиннее $1 дней, считая оба конца'],
  [/^must not be empty after trimming$/, 'не может быть пустым'],
  [
    /^must be at most (\d+) characters after trimming$/,
    'должно быть не длиннее $1 символов без пробелов по краям'
  ],
  [
    /^Cannot (replace|refund|reject) a claim that is (\w+)\./,
    'Претензия уже не позволяет этот ответ: обновите страницу.'
  ],
  [
    /^The stock holds (\d+) available item\(s\) of the order's option; the replacement needs (\d+)\./,
    'На складе для этого заказа $1 код(ов), а для замены нужно $2: загрузите коды или верните деньги.'
  ],
  [/^Stock item \S+ is not available/, 'Один из кодов уже выдан или снят: обновите страницу.'],
  [/^must hold 1–(\d+) keywords for message\.keyword$/, 'нужно от 1 до $1 ключевых слов, по одному в строке'],
  [/^has "(.*)" twice \(ignoring case and spaces\)$/, 'слово «$1» указано дважды'],
  [/^must be empty unless the trigger is message\.keyword$/, 'заполняется только для сообщений с ключевым словом'],
  [/^must be (0|false) unless the trigger is message\.keyword$/, 'только для сообщений с ключевым словом'],
  [/^is required for order\.unconfirmed \((\d+)–(\d+)\)$/, 'обязательно для напоминания (от $1 до $2)'],
  [/^must be null unless the trigger is order\.unconfirmed$/, 'только для напоминания: оставьте пустым'],
  [/^unknown placeholder (.*)$/, 'неизвестная вставка $1'],
  [/^the placeholder (.*) is only for the claim triggers$/, 'вставка $1 — только для претензий'],
  [/^"(.*)" has no closing "\}\}"$/, 'у «$1» нет закрывающих «}}»'],
  [/^The shop already has (\d+) chat rules/, 'У магазина уже $1 правил: удалите одно.'],
  [/^The order has no claim to fill the claim placeholders from\.$/, 'У заказа нет претензии: вставки претензии не из чего заполнить.'],
  [
    /^Stock values cannot be stored or read/,
    'Коды сейчас нельзя сохранить или прочитать: оператор не задал ключ шифрования.'
  ]
]

export function fieldMessage (locale: PortalLocale, message: string): string {
  if (locale !== 'ru') return message
  for (const [pattern, text] of russian) if (pattern.test(message)) return message.replace(pattern, text)
  return message
}
