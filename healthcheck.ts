// The container's HEALTHCHECK (node dist/healthcheck.js): exits 0 when this
// instance answers GET /healthz, 1 otherwise. Slim images have no curl.
const host = process.env.HOST && !['0.0.0.0', '::'].includes(process.env.HOST) ? process.env.HOST : '127.0.0.1'
const url = `http://${host.includes(':') ? `[${host}]` : host}:${process.env.PORT || 3000}/healthz`
try {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) })
  process.exitCode = res.ok ? 0 : 1
} catch {
  process.exitCode = 1
}
