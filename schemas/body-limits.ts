// Body limits per route, in bytes: the largest body each route's rules allow
// (docs/api-rules.md: catalog and orders, and the schemas that carry them), so that no route reads
// and parses more than its largest legal request. Most bodies need kilobytes;
// only a product and a delivery need megabytes.
//
// The arithmetic: a text of n characters takes at most 6n + 2 bytes (quotes, and
// every character JSON-escaped as \uXXXX, as encoders with ensure_ascii do; raw
// UTF-8 takes at most 4n; an astral character escaped as a surrogate pair takes
// 12 bytes for one character, and a body of nothing but those may exceed the
// limit). Ids are UUIDs, 38 bytes with their quotes; a number takes at most 24
// bytes; each object gets its keys and punctuation as an allowance.

const text = (characters: number) => 6 * characters + 2
const ID = 38
const NUMBER = 24
/** Keys, quotes, colons and commas of an object with about a dozen properties. */
const KEYS = 256

/** A field option: id, label (≤ 200), price. */
const OPTION = 64 + ID + text(200) + NUMBER
/**
 * A field: id, type, label (≤ 200), 5 booleans, valueMin / valueMax / valueStep, a webhook URL (≤ 2000), ≤ 100 options.
 */
const FIELD = KEYS + ID + text(8) + text(200) + 5 * 5 + 3 * NUMBER + text(2000) + 100 * (OPTION + 1)
/** A filter: its id and ≤ 100 option ids. A category has at most 20 filters, and a product no filter twice. */
const FILTER = 64 + ID + 100 * (ID + 1)

/**
 * POST / PUT /v1/products: title (≤ 1000 raw, 200 after trimming), description
 * (≤ 20 000), three ids, price, reward, ≤ 50 fields, ≤ 20 filters, and 4 KiB for
 * the read-only properties of a product a client PUTs back as it GOT it.
 * About 7.4 MB.
 */
export const PRODUCT_BODY_LIMIT =
  KEYS + text(1000) + text(20_000) + 3 * ID + NUMBER + 64 + 50 * (FIELD + 1) + 20 * (FILTER + 1) + 4096

/** POST /v1/orders/{id}/deliver: `value` and ≤ 100 `values`, each ≤ 10 000 characters. About 6.1 MB. */
export const DELIVER_BODY_LIMIT = 64 + 101 * (text(10_000) + 1)

/** POST /v1/products/{id}/stock/items: 8 MiB (docs/stock.md); larger uploads go in several calls. */
export const STOCK_ADD_BODY_LIMIT = 8 * 1024 * 1024

/**
 * POST /internal/v1/categories: two paths (≤ 500), ≤ 20 filters of ≤ 100 options (names and labels ≤ 100).
 * About 1.3 MB.
 */
export const CATEGORY_BODY_LIMIT = KEYS + 2 * text(500) + 20 * (KEYS + text(100) + 100 * (64 + text(100)))

/** POST /internal/v1/orders: the buyer's field values have no length of their own in the contract; 1 MiB of them. */
export const PURCHASE_BODY_LIMIT = 1024 * 1024

/**
 * Every other body: a message (≤ 8 000 raw characters, 48 KB), a cancel reason
 * (≤ 1 000), an archive flag, a name, a rate. 64 KiB.
 */
export const DEFAULT_BODY_LIMIT = 64 * 1024
