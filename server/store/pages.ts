/**
 * Reading a thread's log in pages, with a turn of the event loop between them: what one reader
 * holds in memory is one page, and no reader blocks the loop for a whole thread.
 */
import type { StoredEvent } from "../../protocol/events.ts";
import type { EventStore } from "./types.ts";

/** What counts the pages read (server/metrics.ts logPagesRead fits). */
export interface PageCounter {
  logPagesRead: { inc(): void };
}

/** Lets timers and I/O run: a macrotask boundary, which a resolved promise is not. */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The log after `after` as it stands, in pages, until a page comes back short (the end of the
 * backlog). Nothing is read while the caller is busy with the previous page.
 */
export async function* backlogPages(
  store: EventStore,
  threadId: string,
  after: number,
  signal: AbortSignal,
  metrics?: PageCounter,
): AsyncGenerator<StoredEvent[], void, undefined> {
  let cursor = after;
  while (!signal.aborted) {
    const page = await store.read(threadId, { after: cursor, limit: store.logPageSize });
    metrics?.logPagesRead.inc();
    if (signal.aborted || page.length === 0) return;
    cursor = page[page.length - 1]!.seq;
    yield page;
    if (page.length < store.logPageSize) return;
    await yieldToLoop();
  }
}

