/**
 * A tiny SSE reader over fetch (EventSource cannot send an Authorization header). It resumes
 * with Last-Event-ID after a dropped connection, so no event is lost or repeated.
 */
import { parseSseBlock, SseSplitter, sseData } from "../../protocol/sse-read.ts";
import { authHeaders, reportUnauthorized } from "./keys.ts";

export interface SseHandlers {
  onEvent(data: unknown, id: string | undefined): void;
  onOpen?(): void;
  onError?(err: unknown): void;
}

const NOT_YET_MS = 1_000;

export function followSse(url: string, handlers: SseHandlers): () => void {
  const aborter = new AbortController();
  let lastId: string | undefined;
  let delay = 500;
  let notFound = false;

  const once = async () => {
    const headers: Record<string, string> = { ...authHeaders(), Accept: "text/event-stream" };
    if (lastId) headers["Last-Event-ID"] = lastId;
    const res = await fetch(url, { headers, signal: aborter.signal });
    notFound = res.status === 404;
    if (res.status === 401) reportUnauthorized();
    if (!res.ok || !res.body) throw new Error(`${url}: ${res.status}`);
    handlers.onOpen?.();
    delay = 500;
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    const splitter = new SseSplitter();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      // Proxies may rewrite line ends; the shared reader knows only LF.
      for (const raw of splitter.push(value.replace(/\r\n?/g, "\n"))) {
        const block = parseSseBlock(raw);
        const data = sseData(block);
        if (block.id) lastId = block.id;
        if (data) handlers.onEvent(JSON.parse(data), block.id);
      }
    }
  };

  const loop = async () => {
    while (!aborter.signal.aborted) {
      try {
        await once();
      } catch (err) {
        if (aborter.signal.aborted) return;
        handlers.onError?.(err);
      }
      // 404: the thread does not exist yet (a new chat before its first run) or is not ours.
      // Ask again at a steady pace rather than backing off, so the first run shows at once.
      await new Promise((r) => setTimeout(r, notFound ? NOT_YET_MS : delay));
      if (!notFound) delay = Math.min(delay * 2, 10_000);
    }
  };
  void loop();
  return () => aborter.abort();
}
