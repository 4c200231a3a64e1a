/**
 * Reading SSE in tests, all through protocol/sse-read.ts (the parser the browser client uses):
 * `parseSse` for a whole body, `readSseFrames` for frames as they arrive from any byte stream,
 * and `postSse`, which POSTs and lets a test await "the frame where X happened" instead of
 * sleeping.
 */
import { parseSseBlock, type SseBlock, SseSplitter, sseData } from "../../protocol/sse-read.ts";

export type { SseBlock };

export interface AguiEvent {
  type: string;
  [key: string]: unknown;
}

export interface SseFrame {
  id: string | undefined;
  event: AguiEvent;
}

/** The frame a block carries; undefined for a comment or a block without data. */
export function frameOf(block: SseBlock): SseFrame | undefined {
  const data = block.comment ? undefined : sseData(block);
  return data === undefined ? undefined : { id: block.id, event: JSON.parse(data) as AguiEvent };
}

export interface ParsedSse {
  blocks: SseBlock[];
  frames: (SseFrame & { block: SseBlock })[];
  /** Bytes after the last blank line (an unterminated block). */
  trailing: string;
  hasCR: boolean;
}

/** Parses a whole SSE body. */
export function parseSse(text: string): ParsedSse {
  const splitter = new SseSplitter();
  const blocks = splitter.push(text).map(parseSseBlock);
  const frames = blocks.flatMap((block) => {
    const f = frameOf(block);
    return f ? [{ ...f, block }] : [];
  });
  return { blocks, frames, trailing: splitter.trailing, hasCR: text.includes("\r") };
}

/** Yields each frame of a byte stream as soon as its terminating blank line has arrived. */
export async function* readSseFrames(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseFrame> {
  const decoder = new TextDecoder();
  const splitter = new SseSplitter();
  for await (const chunk of body) {
    for (const raw of splitter.push(decoder.decode(chunk, { stream: true }))) {
      const f = frameOf(parseSseBlock(raw));
      if (f) yield f;
    }
  }
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** Every frame received so far. */
  frames: SseFrame[];
  /** Resolves with the first frame (received before or after the call) that matches. */
  waitFor(match: (f: SseFrame) => boolean): Promise<SseFrame>;
  /** Resolves with all frames once the server ends the response. */
  done: Promise<SseFrame[]>;
  close(): void;
}

export function postSse(url: string, body: unknown, headers: Record<string, string> = {}): Promise<SseStream> {
  return openSse(url, { method: "POST", headers: { "content-type": "application/json", accept: "text/event-stream", ...headers }, body: JSON.stringify(body) });
}

/** A GET that streams (the thread's raw event feed, GET /api/threads/:id/events). */
export function getSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  return openSse(url, { method: "GET", headers: { accept: "text/event-stream", ...headers } });
}

async function openSse(url: string, init: RequestInit): Promise<SseStream> {
  const controller = new AbortController();
  const res = await fetch(url, { ...init, signal: controller.signal });
  const frames: SseFrame[] = [];
  const waiters: { match: (f: SseFrame) => boolean; resolve: (f: SseFrame) => void }[] = [];
  const deliver = (f: SseFrame) => {
    frames.push(f);
    for (const w of [...waiters]) {
      if (w.match(f)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(f);
      }
    }
  };
  const done = (async () => {
    if (!res.body) return frames;
    try {
      for await (const f of readSseFrames(res.body as AsyncIterable<Uint8Array>)) deliver(f);
    } catch (err) {
      if (!controller.signal.aborted) throw err;
    }
    return frames;
  })();
  return {
    status: res.status,
    headers: res.headers,
    frames,
    waitFor(match) {
      const seen = frames.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiters.push({ match, resolve });
        void done.then(() => reject(new Error(`stream ended without the awaited frame; got ${frames.map((f) => f.event.type).join(", ")}`)), reject);
      });
    },
    done,
    close: () => controller.abort(),
  };
}

export const isType = (type: string) => (f: SseFrame) => f.event.type === type;
