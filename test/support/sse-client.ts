/**
 * A raw SSE reader for tests: POSTs, then yields frames ({id, event}) as they arrive, so a test
 * can await "the frame where X happened" instead of sleeping. Frames are parsed per the SSE
 * rules AG-UI clients use (blank-line separated, `id:` and `data:` lines, comments ignored).
 */
export interface SseFrame {
  id: string | undefined;
  event: { type: string; [key: string]: unknown };
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

export async function postSse(url: string, body: unknown, headers: Record<string, string> = {}): Promise<SseStream> {
  const controller = new AbortController();
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
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
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          let id: string | undefined;
          const data: string[] = [];
          for (const line of block.split("\n")) {
            if (line.startsWith("id:")) id = line.slice(3).trim();
            else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
          }
          if (data.length > 0) deliver({ id, event: JSON.parse(data.join("\n")) });
        }
      }
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
