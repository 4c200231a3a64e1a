/**
 * A thread's log as the streams read it: in pages (store.logPageSize events), one page at a time,
 * yielding to the event loop between pages, and projected to AG-UI frames.
 *
 * One page at a time: the caller writes a page's frames (awaiting the socket's drain) before the
 * next page is read, so a slow client holds back its own reads, and memory per stream is one page
 * whatever the thread's length. Yielding between pages (setImmediate, not a microtask) lets the
 * rest of the process run (other streams, lease heartbeats) during the replay of a long thread:
 * the projection of a page is a few milliseconds, the replay of 100K events is not.
 *
 * Live streaming and replay are the same code, so a client that resumes from any cursor gets
 * exactly the frames a client that never left got after it. The projection's state (open
 * messages, the shared state for STATE_SNAPSHOT, the run's input) is a fold over the thread: it
 * starts at seq 1, or between runs from what the reconstruction fold holds there (Projector.at).
 */
import type { StoredEvent } from "../../protocol/events.ts";
import type { Frame } from "../../protocol/frames.ts";
import { Projector, type ProjectionSeed } from "../../protocol/project.ts";
import type { ProtocolLevel } from "../../protocol/versions.ts";
import type { Metrics } from "../metrics.ts";
import { yieldToLoop } from "../store/pages.ts";
import type { EventStore } from "../store/types.ts";

export { backlogPages, yieldToLoop } from "../store/pages.ts";

export { isTerminalFrame } from "../../protocol/replay.ts";

export interface ProjectedEvent {
  event: StoredEvent;
  frames: Frame[];
}

/** store.follow, counted per page and with a turn of the event loop between pages. */
export async function* livePages(
  store: EventStore,
  threadId: string,
  after: number,
  signal: AbortSignal,
  metrics?: Metrics,
): AsyncGenerator<StoredEvent[], void, undefined> {
  for await (const page of store.follow(threadId, after, signal)) {
    metrics?.logPagesRead.inc();
    yield page;
    await yieldToLoop();
  }
}

/**
 * Every event of the thread, live, each with the frames the projection makes of it: from seq 1,
 * or from `start` (a position between runs, ProjectionSeed, and the events committed right after
 * it, in hand): those are projected first and the log is followed after them, which reads
 * nothing while this process's commits feed the stream.
 */
export async function* threadFrames(
  store: EventStore,
  threadId: string,
  signal: AbortSignal,
  metrics?: Metrics,
  start?: { seed: ProjectionSeed; events: StoredEvent[] },
  reader: ProtocolLevel = "legacy",
): AsyncIterable<ProjectedEvent> {
  const projector = start ? Projector.at(start.seed, reader) : new Projector(threadId, reader);
  const after = start?.events.at(-1)?.seq ?? start?.seed.seq ?? 0;
  const pages = livePages(store, threadId, after, signal, metrics);
  // Subscribed before the events in hand are yielded: the first next() runs follow() up to its
  // first wait, and its subscription is taken synchronously there (live.ts). The caller writes
  // those events' frames, awaiting its socket, while the run goes on committing; subscribed only
  // afterwards, the stream found the feed past its cursor and read the log back (seen on PGlite,
  // whose flushes wait for no socket). Rejected: subscribing in the caller, which would have to
  // know the feed.
  let first: Promise<IteratorResult<StoredEvent[], void>> | undefined = start ? pages.next() : undefined;
  try {
    for (const event of start?.events ?? []) yield { event, frames: projector.push(event) };
    for (;;) {
      const next = await (first ?? pages.next());
      first = undefined;
      if (next.done) return;
      for (const event of next.value) yield { event, frames: projector.push(event) };
    }
  } finally {
    // A next() still pending (the caller stopped within the events in hand: its signal aborted,
    // which ends that wait) is let finish before the feed is closed; nothing awaits it here.
    if (first) void first.then(() => pages.return(undefined)).catch(() => {});
    else await pages.return(undefined);
  }
}
