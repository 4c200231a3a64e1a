/**
 * What the runner needs from the HTTP request that reached the CopilotKit runtime, carried to it
 * through AsyncLocalStorage: the runtime calls `runner.stop({ threadId })` and
 * `runner.isRunning({ threadId })` with nothing else, yet our endpoints need the caller's
 * credentials and an address to reach.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Request } from "express";

export interface CallerContext {
  /** Where this very server answers, as seen by the connection that carried the request. */
  origin: string;
  /** The caller's headers that may travel on to our endpoints (auth and custom x-*). */
  headers: Record<string, string>;
}

export const callerContext = new AsyncLocalStorage<CallerContext>();

/** The runtime's own forwarding policy: authorization and x-*, but no proxy or platform headers. */
const STRIPPED = /^x-(forwarded-|real-ip$|vercel-|copilotcloud-)/;

export function forwardableHeaders(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value !== "string") continue;
    const lower = name.toLowerCase();
    if (lower === "authorization" || (lower.startsWith("x-") && !STRIPPED.test(lower))) out[lower] = value;
  }
  return out;
}

/** http://<local address>:<local port> of the socket the request came in on. */
export function localOrigin(req: Request): string {
  const socket = req.socket;
  let host = socket.localAddress ?? "127.0.0.1";
  if (host.startsWith("::ffff:")) host = host.slice("::ffff:".length);
  if (host.includes(":")) host = `[${host}]`;
  return `http://${host}:${socket.localPort ?? 80}`;
}
