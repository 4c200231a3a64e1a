/**
 * The live feed. Followers register a bell per thread; in-process appends ring the bells of the
 * threads they touched right after commit, and the doorbell listener (listener.ts) rings them for
 * appends made by other processes. A bell carries no events: a woken follower reads the rows
 * after its cursor, so a lost, doubled or spurious ring can never cause a gap or a duplicate.
 */
import type { StoredEvent } from "../../protocol/events.ts";

export class Bell {
  #rung = false;
  #waiter: (() => void) | undefined;

  ring(): void {
    this.#rung = true;
    this.#waiter?.();
  }

  /** Forgets past rings: call it before reading, so that only rings after the read count. */
  reset(): void {
    this.#rung = false;
  }

  /** Resolves at the next ring (at once if one came since reset()), or when the signal aborts. */
  wait(signal: AbortSignal): Promise<void> {
    if (this.#rung || signal.aborted) return Promise.resolve();
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
}

export class WakeHub {
  readonly #bells = new Map<string, Set<Bell>>();
  #size = 0;

  /** Bells subscribed now, over all threads: each is a follow() loop still running. */
  get size(): number {
    return this.#size;
  }

  subscribe(threadId: string): { bell: Bell; unsubscribe: () => void } {
    const bell = new Bell();
    let set = this.#bells.get(threadId);
    if (!set) this.#bells.set(threadId, (set = new Set()));
    set.add(bell);
    this.#size++;
    return {
      bell,
      unsubscribe: () => {
        if (set.delete(bell)) this.#size--;
        if (set.size === 0 && this.#bells.get(threadId) === set) this.#bells.delete(threadId);
      },
    };
  }

  wake(threadIds: Iterable<string>): void {
    for (const id of threadIds) this.#bells.get(id)?.forEach((b) => b.ring());
  }

  wakeAll(): void {
    for (const set of this.#bells.values()) set.forEach((b) => b.ring());
  }
}

/**
 * Events per read of the log, for live feeds, replays and reloads alike: what one stream holds in
 * memory at a time is one page (plus the frames of one event and the socket's high-water mark).
 */
export const LOG_PAGE_SIZE = 500;

export interface FollowDeps {
  hub: WakeHub;
  /** reads committed events of the thread with seq > after, in order, at most `limit` */
  read(threadId: string, after: number, limit: number): Promise<StoredEvent[]>;
  /** resolves once cross-process rings can be heard (the LISTEN is in place), or on abort */
  listening(signal: AbortSignal): Promise<void>;
  /** true once the store is closed: following ends */
  closed(): boolean;
  pageSize?: number;
}

/**
 * Yields batches of the thread's events with seq > after, in order, with no gap and no
 * duplicate, until the signal aborts (or the store closes). The bell is registered and the
 * LISTEN in place BEFORE the first read, and reset before every read: an append that commits
 * after a read began rings a bell that the next wait() hears.
 */
export async function* follow(
  deps: FollowDeps,
  threadId: string,
  after: number,
  signal: AbortSignal,
): AsyncGenerator<StoredEvent[], void, undefined> {
  const pageSize = deps.pageSize ?? LOG_PAGE_SIZE;
  const { bell, unsubscribe } = deps.hub.subscribe(threadId);
  try {
    await deps.listening(signal);
    let cursor = after;
    while (!signal.aborted && !deps.closed()) {
      bell.reset();
      let events: StoredEvent[];
      try {
        events = await deps.read(threadId, cursor, pageSize);
      } catch (err) {
        if (deps.closed()) return; // the store closed under the read: the feed ends
        throw err;
      }
      if (signal.aborted) return;
      if (events.length > 0) {
        cursor = events[events.length - 1]!.seq;
        yield events;
        if (events.length === pageSize) continue;
      }
      await bell.wait(signal);
    }
  } finally {
    unsubscribe();
  }
}
