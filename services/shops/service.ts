// Shops (the operator API): created and found, one statement each.
export { createShop, findShop } from '../../db/shops/shops.js'
