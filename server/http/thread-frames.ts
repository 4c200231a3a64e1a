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
  for (const event of start?.events ?? []) yield { event, frames: projector.push(event) };
  const after = start?.events.at(-1)?.seq ?? start?.seed.seq ?? 0;
  for await (const page of livePages(store, threadId, after, signal, metrics)) {
    for (const event of page) yield { event, frames: projector.push(event) };
  }
}
