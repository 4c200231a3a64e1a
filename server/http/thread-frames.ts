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

/**
 * store.follow, counted per page and with a turn of the event loop between pages, as a pull
 * (next()) rather than a generator: the run's stream pulls it directly (run-stream.ts), so a
 * token passes one async function here, not a generator hop (docs/performance.md, "The hops a
 * token takes"). The first next() runs follow() up to its first wait, which takes the feed's
 * subscription synchronously (live.ts).
 */
export class LivePages {
  readonly #follow: () => AsyncIterator<StoredEvent[], void, undefined>;
  readonly #metrics: Metrics | undefined;
  #pages: AsyncIterator<StoredEvent[], void, undefined> | undefined;

  constructor(store: EventStore, threadId: string, after: number, signal: AbortSignal, metrics?: Metrics) {
    // Followed at the first pull, as the generator it replaces did.
    this.#follow = () => store.follow(threadId, after, signal)[Symbol.asyncIterator]();
    this.#metrics = metrics;
  }

  /** The next page, after a turn of the event loop (but the first); undefined when the feed ends. */
  async next(): Promise<StoredEvent[] | undefined> {
    if (this.#pages) await yieldToLoop();
    else this.#pages = this.#follow();
    const next = await this.#pages.next();
    if (next.done) return undefined;
    this.#metrics?.logPagesRead.inc();
    return next.value;
  }

  /** Ends the feed (its subscription); waits for a pull in flight to finish first. */
  async return(): Promise<void> {
    await this.#pages?.return?.(undefined);
  }
}

/**
 * The same pages as a generator (the thread feed and the connect stream). Its own loop, not a
 * wrapper of LivePages: that would add a promise per page to these routes.
 */
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
 * Every event of the thread, live, and the frames the projection makes of each (project(), in
 * order, every event): from seq 1, or from `start` (a position between runs, ProjectionSeed, and
 * the events committed right after it, in hand): those come first and the log is followed after
 * them, which reads nothing while this process's commits feed the stream. A pull of events (a
 * page at a time) and a projection step, not a generator of {event, frames}: one object and one
 * hop less per token on the hot path.
 */
export class ThreadEvents {
  readonly #projector: Projector;
  readonly #pages: LivePages;
  #inHand: StoredEvent[] | undefined;
  #first: Promise<StoredEvent[] | undefined> | undefined;

  constructor(
    store: EventStore,
    threadId: string,
    signal: AbortSignal,
    metrics?: Metrics,
    start?: { seed: ProjectionSeed; events: StoredEvent[] },
    reader: ProtocolLevel = "legacy",
  ) {
    this.#projector = start ? Projector.at(start.seed, reader) : new Projector(threadId, reader);
    const after = start?.events.at(-1)?.seq ?? start?.seed.seq ?? 0;
    this.#pages = new LivePages(store, threadId, after, signal, metrics);
    // Subscribed before the events in hand are handed out: the first next() runs follow() up to
    // its first wait, and its subscription is taken synchronously there (live.ts). The caller
    // writes those events' frames, awaiting its socket, while the run goes on committing;
    // subscribed only afterwards, the stream found the feed past its cursor and read the log back
    // (seen on PGlite, whose flushes wait for no socket). Rejected: subscribing in the caller,
    // which would have to know the feed.
    if (start) {
      this.#inHand = start.events;
      this.#first = this.#pages.next();
    }
  }

  /** The next events (those in hand first, then the log's pages); undefined when the feed ends. */
  next(): Promise<StoredEvent[] | undefined> {
    const inHand = this.#inHand;
    this.#inHand = undefined;
    if (inHand !== undefined && inHand.length > 0) return Promise.resolve(inHand);
    const first = this.#first;
    this.#first = undefined;
    return first ?? this.#pages.next();
  }

  /** The frames of the thread's next event (every event goes through here, in order). */
  project(event: StoredEvent): Frame[] {
    return this.#projector.push(event);
  }

  /** Ends the feed. */
  async close(): Promise<void> {
    // A next() still pending (the caller stopped within the events in hand: its signal aborted,
    // which ends that wait) is let finish before the feed is closed; nothing awaits it here. Its
    // error, if any, is of a page read for a stream that has gone: there is no run to fail with it.
    const first = this.#first;
    this.#first = undefined;
    if (first) void first.then(() => this.#pages.return()).catch(() => {});
    else await this.#pages.return();
  }
}
