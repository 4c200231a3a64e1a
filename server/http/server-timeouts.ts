/**
 * The HTTP server's timeouts, set for a deployment behind a load balancer rather than Node's
 * defaults (keepAliveTimeout 5 s). The rule: the server keeps an idle kept-alive connection
 * open longer than the balancer in front of it does, so that the balancer always closes first.
 * The other way round, the server closes a connection the balancer still thinks open, and the
 * request the balancer sends on it in that instant is reset: a 502 for the user, no error in our
 * log. Issue 29 saw it as "other side closed" on the 4th run of a coding-agent session. 60 s is
 * the common balancer idle timeout (AWS ALB's default, nginx's upstream keepalive_timeout); a
 * balancer that keeps backend connections longer (Google Cloud's, 600 s) needs the setting raised.
 *
 * The standalone server applies these in bind() (threadline.ts); an application that mounts
 * router() on its own server calls applyHttpTimeouts(server, httpTimeouts(...)) itself.
 */
import type { Server } from "node:http";

/** Default of HTTP_KEEP_ALIVE_TIMEOUT_MS: above the common 60 s balancer idle timeout, with 5 s to spare. */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * headersTimeout is keepAliveTimeout plus this. Node's rule: a request's headers may arrive at
 * the very end of the keep-alive window, and a headersTimeout below keepAliveTimeout cuts a
 * connection the balancer reuses late (a known cause of ALB 502s on older Node releases).
 */
export const HEADERS_TIMEOUT_MARGIN_MS = 1_000;

/**
 * Default of HTTP_REQUEST_TIMEOUT_MS: how long receiving a whole request (headers and body) may
 * take, Node's own default of 300 s, kept: the largest body taken (MAX_BODY_BYTES) over a slow
 * mobile link, and a client starved of CPU, both fit, and a client that trickles a request
 * (slowloris) holds a socket no longer. It bounds the request only: a response, an SSE stream
 * of hours included, is not under it (test/server/http-timeouts.test.ts holds it to that).
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 300_000;

export interface HttpTimeouts {
  keepAliveTimeoutMs: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

/** The three from the two settings: headers above keep-alive, and the request at least the headers (Node refuses less). */
export function httpTimeouts(keepAliveTimeoutMs = DEFAULT_KEEP_ALIVE_TIMEOUT_MS, requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS): HttpTimeouts {
  const headersTimeoutMs = keepAliveTimeoutMs + HEADERS_TIMEOUT_MARGIN_MS;
  // 0 is Node's "no request timeout"; otherwise it may not be below headersTimeout.
  return { keepAliveTimeoutMs, headersTimeoutMs, requestTimeoutMs: requestTimeoutMs === 0 ? 0 : Math.max(requestTimeoutMs, headersTimeoutMs) };
}

/**
 * Sets them on a server, listening or not (Node reads them per connection). The socket
 * inactivity timeout (server.timeout) stays 0: an SSE stream is quiet between its keep-alive
 * comments, and the request and headers timeouts already bound a client that sends nothing.
 */
export function applyHttpTimeouts(server: Server, t: HttpTimeouts): Server {
  server.keepAliveTimeout = t.keepAliveTimeoutMs;
  server.headersTimeout = t.headersTimeoutMs;
  server.requestTimeout = t.requestTimeoutMs;
  return server;
}
