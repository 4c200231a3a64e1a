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
 * exactly the frames a client that never left got after it. Reading from seq 1 (rather than from
 * the cursor) is what keeps it exact: the projection's state (open messages, the shared state for
 * STATE_SNAPSHOT, the run's input) is a fold over the whole thread. A projection checkpoint table
 * is the optimisation to add if threads ever grow past what a paged replay reads in time.
 */
import type { StoredEvent } from "../../protocol/events.ts";
import type { Frame } from "../../protocol/frames.ts";
import { Projector } from "../../protocol/project.ts";
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

/** Every event of the thread from seq 1, live, each with the frames the projection makes of it. */
export async function* threadFrames(
  store: EventStore,
  threadId: string,
  signal: AbortSignal,
  metrics?: Metrics,
): AsyncIterable<ProjectedEvent> {
  const projector = new Projector(threadId);
  for await (const page of livePages(store, threadId, 0, signal, metrics)) {
    for (const event of page) yield { event, frames: projector.push(event) };
  }
}
