/**
 * Express request in, Fetch Response out, for CopilotKit's runtime handler (a Fetch handler).
 *
 * Ours rather than the runtime's Express adapter because the runtime is built per request
 * (handler.ts) and that adapter builds an Express Router each time it is called, about a
 * millisecond of CPU per request; and because the URL given to the runtime is the route the
 * handler checked, whatever the mount, where the adapter passes the client's own URL
 * (req.originalUrl for a body that was parsed already, req.url otherwise).
 */
import { once } from "node:events";
import { Readable } from "node:stream";
import type { Request as ExpressRequest, Response as ExpressResponse } from "express";

/**
 * The request as the runtime reads it, at `path` (the route the handler checked, not the
 * client's URL); `signal` aborts when the client goes away.
 */
export function toFetchRequest(req: ExpressRequest, path: string, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const init: RequestInit & { duplex?: "half" } = { method: req.method, headers, signal };
  if (req.method !== "GET" && req.method !== "HEAD") {
    if (req.readableEnded || req.body !== undefined) {
      // A parser in front read the stream: the runtime gets the parsed body back as JSON.
      headers.delete("content-length");
      if (req.body !== undefined) init.body = JSON.stringify(req.body);
    } else {
      init.body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
      init.duplex = "half";
    }
  }
  return new Request(new URL(path, "http://localhost"), init);
}

/** Writes the runtime's answer, waiting for the socket to drain between chunks. */
export async function sendFetchResponse(res: ExpressResponse, response: Response): Promise<void> {
  res.status(response.status);
  response.headers.forEach((value, name) => {
    res.setHeader(name, value);
  });
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  res.once("close", stop);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (!res.write(value) && !res.destroyed) await Promise.race([once(res, "drain"), once(res, "close")]);
    }
  } finally {
    res.off("close", stop);
    if (!res.destroyed) res.end();
  }
}
