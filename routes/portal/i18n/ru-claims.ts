// The Russian texts of a claim's facts and of the confirmations of its answers
// (docs/portal.md "Claims"), kept beside ru.ts, which spreads them in.
import type { enClaims } from './en-claims.js'

export const ruClaims: Record<keyof typeof enClaims, string> = {
  'claims.col.reported': 'В претензии',
  'claims.reportsOf': 'Кодов в претензии: {count} из {delivered} выданных',
  'claims.reportsNone': 'Выдано кодов: {delivered}. Покупатель не указал, какой из них не работает, поэтому ' +
    'претензию можно решить возвратом денег или отклонить, но не заменой.',
  'claims.reportsUndelivered': 'Заказ не выдал ни одного кода: претензия ко всему заказу.',
  'claims.replaceTitle': 'Заменить коды из претензии со склада?',
  'claims.replaceFrom': 'Источник — склад товара «{product}», самые старые первыми: сейчас доступно {available}.',
  'claims.replaceShort': 'На складе меньше кодов: замена не пройдёт. Сначала добавьте коды или верните деньги.',
  'claims.replaceAfter': 'Коды из претензии станут бракованными и больше не будут проданы; покупатель увидит новые ' +
    'коды в заказе.',
  'claims.refundAmount': 'Покупатель получит назад {amount}, заказ будет отменён.',
  'claims.refundCompleted': 'Заказ был завершён, поэтому зачисленные за него на баланс магазина {amount} будут ' +
    'списаны: баланс уменьшится на {amount}.',
  'claims.refundNotCompleted': 'Заказ ещё не был завершён, за него ничего не зачислялось: баланс магазина ' +
    'не изменится.',
  'claims.refundNeverSold': 'Коды из претензии больше не будут проданы.'
}
