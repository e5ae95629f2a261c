// The shop's sales statistics (docs/sales-stats.md): one read of the rollup the
// triggers keep (db/stats/triggers.sql).
export { salesStats } from '../../db/stats/sales.js'
