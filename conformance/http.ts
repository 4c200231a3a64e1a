/**
 * One request of the kit, read to its end within stated bounds: a response that never ends is
 * cut at `timeoutMs`, one that grows past MAX_RESPONSE_BYTES at that size; either is recorded,
 * never thrown, so the rules can say what happened.
 */
import { eventFrames, splitBlocks, type EventFrame, type SseBlock } from "./sse-reader.ts";

/** The clients buffer at most 10 MB of one unterminated frame; a whole run is bounded a little above (the default). */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
/** A model's answer on a loaded machine can take a while; a stalled stream must not hang the kit. */
export const DEFAULT_TIMEOUT_MS = 120_000;

export type Ending = "complete" | "timeout" | "too-large" | "network-error";

export interface Exchange {
  status: number;
  headers: Record<string, string>;
  contentType: string;
  body: Uint8Array;
  text: string;
  blocks: SseBlock[];
  frames: EventFrame[];
  ending: Ending;
  /** For a network error: its message. */
  error: string | undefined;
}

export interface SendOptions {
  method?: "GET" | "POST";
  body?: string;
  headers: Record<string, string>;
  timeoutMs: number;
  maxBytes: number;
}

export async function send(url: URL, opts: SendOptions): Promise<Exchange> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), opts.timeoutMs);
  const chunks: Uint8Array[] = [];
  let size = 0;
  let ending: Ending = "complete";
  let error: string | undefined;
  let status = 0;
  let headers: Record<string, string> = {};
  try {
    const res = await fetch(url, {
      method: opts.method ?? "POST",
      headers: opts.headers,
      ...(opts.body !== undefined && { body: opts.body }),
      signal: abort.signal,
    });
    status = res.status;
    headers = Object.fromEntries(res.headers.entries());
    if (res.body) {
      const reader = res.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        size += value.byteLength;
        if (size > opts.maxBytes) {
          ending = "too-large";
          await reader.cancel().catch(() => {});
          break;
        }
      }
    }
  } catch (err) {
    if (abort.signal.aborted) ending = "timeout";
    else {
      ending = "network-error";
      // fetch says only "fetch failed"; the cause says what (ECONNREFUSED, a reset).
      const { message, cause } = err as Error;
      error = cause instanceof Error ? `${message}: ${cause.message}` : message;
    }
  } finally {
    clearTimeout(timer);
  }
  const body = Buffer.concat(chunks);
  const text = body.toString("utf8");
  const blocks = splitBlocks(text);
  return {
    status,
    headers,
    contentType: headers["content-type"] ?? "",
    body,
    text,
    blocks,
    frames: eventFrames(blocks),
    ending,
    error,
  };
}
