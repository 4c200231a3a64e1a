/**
 * The live feed. Followers subscribe per thread. After a batch commits, this process's writer
 * hands the committed events to the subscribers of their threads (publish): a follower that keeps
 * up yields them without reading the log back. Appends by other processes only ring a bell (the
 * NOTIFY doorbell, listener.ts), and so does a subscriber whose bounded buffer overflowed: a rung
 * follower reads the rows after its cursor.
 *
 * Either way the follower checks that what it yields continues its cursor exactly (seqs are
 * gapless per thread): events handed over that do not (another process committed in between) are
 * dropped and the log is read instead. A lost, doubled or spurious ring, or a handed-over event
 * it already has, can therefore never cause a gap or a duplicate. Rejected: reading the log after
 * every flush, the doorbell's way, in process too; that was one read per stream per commit of
 * rows the writer had just held in its hands.
 */
import type { StoredEvent } from "../../protocol/events.ts";

/** Events a subscriber holds before it gives up on hand-overs and reads the log instead. */
export const LIVE_BUFFER_EVENTS = 4096;

/**
 * Threads whose last handed-over seq the feed remembers (the most recently published ones): a
 * follower that starts at that seq starts current, with no read (see LiveFeed.subscribe). Past
 * this many, the oldest is forgotten, and a follower of it reads once, as before.
 */
export const LIVE_HEADS = 10_000;

/**
 * Events per read of the log, for live feeds, replays and reloads alike: what one stream holds in
 * memory at a time is one page (plus the frames of one event and the socket's high-water mark).
 * Per backend (EventStore.logPageSize): PGlite's queries run on the event loop itself, so its
 * pages are smaller; a 500-event page there blocked the loop for about 40 ms on its own.
 */
export const LOG_PAGE_SIZE = { postgres: 500, pglite: 200 } as const;

/**
 * The stored bytes one page of the log holds at most (sql/events.ts readEventsPage), besides its
 * first event: 4 MiB, the size of the largest run input (MAX_BODY_BYTES), so a page of the
 * largest legal events is one or two of them and answers in well under the read's wait.
 */
export const LOG_PAGE_BYTES = 4 * 1024 * 1024;

export class Subscription {
  #buffer: StoredEvent[] = [];
  #mustRead: boolean;
  #waiter: (() => void) | undefined;

  /** `current`: the log is known to end at the follower's cursor, so it starts without a read. */
  constructor(
    private readonly capacity: number,
    current = false,
  ) {
    this.#mustRead = !current;
  }

  /** Committed events of the thread, in seq order (this process's writer). */
  deliver(events: readonly StoredEvent[]): void {
    if (!this.#mustRead) {
      if (this.#buffer.length + events.length > this.capacity) this.ring();
      else for (const e of events) this.#buffer.push(e);
    }
    this.#wake();
  }

  /** Something was committed that was not handed over (another process, an overflow): read. */
  ring(): void {
    this.#mustRead = true;
    this.#buffer = [];
    this.#wake();
  }

  /** Buffered events now; null when the follower must read the log (which clears the flag). */
  take(): StoredEvent[] | null {
    if (this.#mustRead) {
      this.#mustRead = false;
      this.#buffer = [];
      return null;
    }
    const events = this.#buffer;
    this.#buffer = [];
    return events;
  }

  /** Resolves when events arrive or a ring comes (at once if either is pending), or on abort. */
  wait(signal: AbortSignal): Promise<void> {
    if (this.#mustRead || this.#buffer.length > 0 || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        signal.removeEventListener("abort", done);
        this.#waiter = undefined;
        resolve();
      };
      this.#waiter = done;
      signal.addEventListener("abort", done, { once: true });
    });
  }

  get buffered(): number {
    return this.#buffer.length;
  }

  #wake(): void {
    this.#waiter?.();
  }
}

export class LiveFeed {
  readonly #subs = new Map<string, Set<Subscription>>();
  /**
   * When each handed-over event was committed, by this process's clock: streams measure their
   * lag from it (EventStore.committedHereAt). Keyed by the event objects themselves, which the
   * subscribers hold and pass on, so an entry lives exactly as long as someone holds the event.
   * Rejected: a commit time on StoredEvent (the log's vocabulary, which every replay rebuilds
   * from rows) and the database's `at` alone (the commit's start, on another clock).
   */
  readonly #committedAt = new WeakMap<StoredEvent, number>();
  /** thread id -> the seq of the last event handed over, for the LIVE_HEADS latest threads */
  readonly #heads = new Map<string, number>();

  constructor(
    private readonly capacity = LIVE_BUFFER_EVENTS,
    private readonly maxHeads = LIVE_HEADS,
  ) {}

  /**
   * A subscriber of `threadId` that has everything up to `after`. When the last event this feed
   * handed over for the thread is `after` and nothing rang for it since, the log ends there (as
   * far as this process can know: a later commit elsewhere rings) and the subscriber starts
   * current, without a read: a run's stream that subscribes right after its admission commit
   * sends RUN_STARTED with no round trip. Otherwise its first move is a read, as always. Rejected:
   * letting the caller say "I am current" (the route knows its admission's last seq), which is
   * wrong whenever anything committed between that commit and the subscribe, and no later event
   * exposes the gap.
   */
  subscribe(threadId: string, after?: number): { sub: Subscription; unsubscribe: () => void } {
    const sub = new Subscription(this.capacity, after !== undefined && this.#heads.get(threadId) === after);
    let set = this.#subs.get(threadId);
    if (!set) {
      set = new Set();
      this.#subs.set(threadId, set);
    }
    set.add(sub);
    return {
      sub,
      unsubscribe: () => {
        set.delete(sub);
        if (set.size === 0 && this.#subs.get(threadId) === set) this.#subs.delete(threadId);
      },
    };
  }

  /** Hands committed events, grouped by thread and in seq order, to their subscribers. */
  publish(byThread: ReadonlyMap<string, readonly StoredEvent[]>): void {
    const now = Date.now();
    for (const [threadId, events] of byThread) {
      for (const e of events) this.#committedAt.set(e, now);
      const last = events.at(-1);
      if (last) this.#remember(threadId, last.seq);
      for (const s of this.#subs.get(threadId) ?? []) s.deliver(events);
    }
  }

  /** Something committed elsewhere (a ring): the thread's head here may be stale. */
  wake(threadIds: Iterable<string>): void {
    for (const id of threadIds) {
      this.#heads.delete(id);
      for (const s of this.#subs.get(id) ?? []) s.ring();
    }
  }

  wakeAll(): void {
    this.#heads.clear();
    for (const set of this.#subs.values()) for (const s of set) s.ring();
  }

  /** When `event` was handed over after its commit here; undefined for an event read from the log. */
  committedAt(event: StoredEvent): number | undefined {
    return this.#committedAt.get(event);
  }

  /** The seq of the last event handed over for the thread, if the feed remembers one. */
  head(threadId: string): number | undefined {
    return this.#heads.get(threadId);
  }

  /** The threads followed now (the polling doorbell asks about these). */
  threadIds(): string[] {
    return [...this.#subs.keys()];
  }

  /** The thread was deleted: its seqs start again from 1. */
  forget(threadId: string): void {
    this.#heads.delete(threadId);
  }

  /** Heads remembered now (tests: the bound holds). */
  get heads(): number {
    return this.#heads.size;
  }

  #remember(threadId: string, seq: number): void {
    // Delete first: re-inserting moves the thread to the end of the Map's order (newest).
    this.#heads.delete(threadId);
    this.#heads.set(threadId, seq);
    if (this.#heads.size > this.maxHeads) this.#heads.delete(this.#heads.keys().next().value!);
  }

  /** Subscriptions open now (tests and gauges: every follower that ended has left). */
  get size(): number {
    let n = 0;
    for (const set of this.#subs.values()) n += set.size;
    return n;
  }
}

export interface FollowDeps {
  feed: LiveFeed;
  /** A page after `after`: at most `limit` events and LOG_PAGE_BYTES; `more` when it stopped at a bound. */
  read(threadId: string, after: number, limit: number): Promise<{ events: StoredEvent[]; more: boolean }>;
  /** resolves once cross-process rings can be heard (the LISTEN is in place), or on abort */
  listening(signal: AbortSignal): Promise<void>;
  /** true once the store is closed: following ends */
  closed(): boolean;
  pageSize?: number;
}

/**
 * Yields batches of the thread's events with seq > after, in order, with no gap and no
 * duplicate, until the signal aborts (or the store closes). The subscription and the LISTEN are
 * in place BEFORE the first read: whatever commits after the read began is either handed over
 * or rings, and the next round sees it.
 */
export async function* follow(
  deps: FollowDeps,
  threadId: string,
  after: number,
  signal: AbortSignal,
): AsyncGenerator<StoredEvent[], void, undefined> {
  const pageSize = deps.pageSize ?? LOG_PAGE_SIZE.postgres;
  const { sub, unsubscribe } = deps.feed.subscribe(threadId, after);
  try {
    await deps.listening(signal);
    let cursor = after;
    while (!signal.aborted && !deps.closed()) {
      const handed = sub.take();
      if (handed !== null) {
        const fresh = continuing(handed, cursor);
        if (fresh === null) {
          sub.ring(); // a gap: what fills it was committed elsewhere; read it
          continue;
        }
        if (fresh.length > 0) {
          cursor = fresh[fresh.length - 1]!.seq;
          yield fresh;
          continue;
        }
        await sub.wait(signal);
        continue;
      }
      let events: StoredEvent[];
      let more: boolean;
      try {
        ({ events, more } = await deps.read(threadId, cursor, pageSize));
      } catch (err) {
        if (deps.closed()) return; // the store closed under the read: the feed ends
        throw err;
      }
      if (signal.aborted) return;
      if (events.length > 0) {
        cursor = events[events.length - 1]!.seq;
        yield events;
      }
      if (more) sub.ring(); // more to read before the hand-overs apply
    }
  } finally {
    unsubscribe();
  }
}

/**
 * The handed-over events that continue `cursor` (those at or before it are already yielded), or
 * null when they skip a seq.
 */
function continuing(events: StoredEvent[], cursor: number): StoredEvent[] | null {
  let i = 0;
  while (i < events.length && events[i]!.seq <= cursor) i++;
  let expected = cursor + 1;
  for (let k = i; k < events.length; k++, expected++) if (events[k]!.seq !== expected) return null;
  return i === 0 ? events : events.slice(i);
}
