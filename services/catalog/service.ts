// The catalog (docs/products.md, docs/media.md): products, categories, currency
// rates and media. Each call is one statement or one transaction of
// db/catalog/, so the service passes them on as they are; a rule that spans
// features goes here, not into db/catalog/.
export {
  archiveProduct, createProduct, getProduct, listExternalProducts, listProducts, replaceProduct, type Product
} from '../../db/catalog/products.js'
export { createCategory, listCategories } from '../../db/catalog/categories.js'
export { currencyRateView, listCurrencyRates, upsertCurrencyRate } from '../../db/catalog/currency-rates.js'
export { findMediaFile, insertMedia, mediaFilePath } from '../../db/catalog/media.js'
