/**
 * The runner's view of our own HTTP surface: an AG-UI SSE POST as an Observable (aborted on
 * unsubscribe), and the two small JSON calls it needs. Errors before the stream (4xx/5xx JSON)
 * become one RUN_ERROR event, so the browser shows the server's sentence rather than a broken
 * stream.
 */
import { EventType, type BaseEvent } from "@ag-ui/client-0059";
import { Observable } from "rxjs";

export interface Target {
  origin: string;
  headers: Record<string, string>;
}

/** The body of our JSON errors: `{ error: { code, message } }`. */
async function errorOf(res: Response): Promise<{ code: string; message: string }> {
  const text = await res.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string } };
    if (body.error?.message) return { code: body.error.code ?? `HTTP_${res.status}`, message: body.error.message };
  } catch {
    // not our JSON: fall through
  }
  return { code: `HTTP_${res.status}`, message: text.slice(0, 500) || `The server answered ${res.status} ${res.statusText}.` };
}

/** Splits an SSE byte stream into the JSON objects of its `data:` lines. */
async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, "\n");
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).replace(/^ /, ""))
        .join("\n");
      if (data) yield JSON.parse(data);
    }
  }
}

/** POSTs `body` as JSON and streams the AG-UI events of the SSE answer. */
export function postEvents(target: Target, path: string, body: unknown): Observable<BaseEvent> {
  return new Observable<BaseEvent>((subscriber) => {
    const aborter = new AbortController();
    (async () => {
      const res = await fetch(target.origin + path, {
        method: "POST",
        headers: { ...target.headers, "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify(body),
        signal: aborter.signal,
      });
      if (!res.ok || !res.body) {
        const { code, message } = await errorOf(res);
        subscriber.next({ type: EventType.RUN_ERROR, message, code } as BaseEvent);
        return;
      }
      for await (const event of sseData(res.body)) {
        if (subscriber.closed) break;
        subscriber.next(event as BaseEvent);
      }
    })().then(
      () => subscriber.complete(),
      (err: unknown) => {
        if (aborter.signal.aborted) return subscriber.complete();
        subscriber.error(err);
      },
    );
    return () => aborter.abort();
  });
}

export interface ThreadSummary {
  threadId: string;
  status: string;
  activeRunId: string | null;
}

/** GET /api/threads/:id, or null when the thread does not exist (yet). */
export async function getThread(target: Target, threadId: string): Promise<ThreadSummary | null> {
  const res = await fetch(`${target.origin}/api/threads/${encodeURIComponent(threadId)}`, { headers: target.headers });
  if (res.status === 404) return null;
  if (!res.ok) {
    const { message } = await errorOf(res);
    throw new Error(`Reading thread ${threadId} failed: ${message}`);
  }
  return (await res.json()) as ThreadSummary;
}

/** POST /api/threads/:id/cancel: true when a run was there to cancel. */
export async function cancelThread(target: Target, threadId: string): Promise<boolean> {
  const res = await fetch(`${target.origin}/api/threads/${encodeURIComponent(threadId)}/cancel`, {
    method: "POST",
    headers: target.headers,
  });
  if (res.status === 404) return false;
  if (!res.ok) {
    const { message } = await errorOf(res);
    throw new Error(`Cancelling thread ${threadId} failed: ${message}`);
  }
  const body = (await res.json()) as { cancelled?: boolean };
  return body.cancelled === true;
}
