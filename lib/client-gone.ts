// A signal that fires when the client goes away before its answer is sent.
import type { FastifyReply } from 'fastify'

/**
 * Aborts when the response closes unfinished. (The request's own 'close', and
 * `request.raw.closed`, come as soon as a body has been read on a real socket,
 * and so does Fastify's `request.signal`: none of them means the client left.)
 */
export function clientGone (reply: FastifyReply): AbortSignal {
  const controller = new AbortController()
  const response = reply.raw
  if (response.destroyed && !response.writableEnded) controller.abort()
  else response.once('close', () => { if (!response.writableEnded) controller.abort() })
  return controller.signal
}
