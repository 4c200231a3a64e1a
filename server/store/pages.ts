/**
 * Reading a thread's log in pages, with a turn of the event loop between them: what one reader
 * holds in memory is one page, and no reader blocks the loop for a whole thread.
 */
import type { StoredEvent } from "../../protocol/events.ts";
import type { MergedDelta } from "../../protocol/merged-deltas.ts";
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
  yield* backlogBetween(store, threadId, after, Number.MAX_SAFE_INTEGER, signal, metrics);
}


/** Compacted stretches read per statement: what one catch-up holds of them at most (each ≤ 64 Ki chars). */
export const COMPACTED_PER_READ = 8;

/**
 * The log after `after` as backlogPages reads it, except that each compacted stretch of a finished
 * run (migration 0009) that `usable` accepts comes as its one merged event, and the log's events
 * it stands for are not read: the log is read up to the stretch, then after it. Stretches are read
 * ahead, COMPACTED_PER_READ at a time; back-to-back stretches (a long answer) need no log read
 * between them. A stretch the caller cannot use (one its cursor falls inside) is read from the log.
 */
export async function* catchUpPages(
  store: EventStore,
  threadId: string,
  after: number,
  usable: (m: MergedDelta) => boolean,
  signal: AbortSignal,
  metrics?: PageCounter,
): AsyncGenerator<StoredEvent[], void, undefined> {
  let pos = after;
  let ahead: MergedDelta[] = [];
  let more = true;
  while (!signal.aborted) {
    if (ahead.length === 0 && more) {
      const read = await store.readCompacted(threadId, pos, COMPACTED_PER_READ);
      metrics?.logPagesRead.inc();
      more = read.length === COMPACTED_PER_READ;
      ahead = read.filter((m) => m.fromSeq > pos && usable(m));
      if (ahead.length === 0 && more) {
        // All of these straddle the cursor: their events come from the log; look past them.
        const last = read[read.length - 1]!;
        ahead = [];
        if (signal.aborted) return;
        for await (const page of backlogBetween(store, threadId, pos, last.event.seq + 1, signal, metrics)) {
          pos = page[page.length - 1]!.seq;
          yield page;
        }
        pos = Math.max(pos, last.event.seq);
        continue;
      }
    }
    const next = ahead[0];
    if (!next || next.fromSeq > pos + 1) {
      const { events: page, more } = await store.readPage(threadId, { after: pos, before: next?.fromSeq });
      metrics?.logPagesRead.inc();
      if (signal.aborted) return;
      if (page.length > 0) {
        pos = page[page.length - 1]!.seq;
        yield page;
      }
      if (more) {
        await yieldToLoop();
        continue;
      }
      if (!next) return; // a short page and no stretch ahead: the end of the backlog
    }
    ahead.shift();
    pos = next.event.seq;
    yield [next.event];
  }
}

/** The log's events with after < seq < before, in pages (the one loop both readers of the backlog use). */
async function* backlogBetween(store: EventStore, threadId: string, after: number, before: number, signal: AbortSignal, metrics?: PageCounter): AsyncGenerator<StoredEvent[], void, undefined> {
  let cursor = after;
  while (!signal.aborted) {
    const { events: page, more } = await store.readPage(threadId, { after: cursor, before });
    metrics?.logPagesRead.inc();
    if (signal.aborted || page.length === 0) return;
    cursor = page[page.length - 1]!.seq;
    yield page;
    if (!more) return;
    await yieldToLoop();
  }
}
