// Ids are UUIDs. Anything else names nothing, and must never reach a uuid
// column (Postgres would refuse the cast with an error, not an empty result).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const isUuid = (value: string): boolean => UUID.test(value)
