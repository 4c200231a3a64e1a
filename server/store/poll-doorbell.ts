/**
 * The doorbell without a session: when the only URL is a transaction-mode pooler, no LISTEN can
 * be kept, so the store asks the database instead. Every POLL_DOORBELL_INTERVAL_MS, while anyone
 * follows a thread, one indexed statement reads the last_seq of the followed threads; a thread
 * whose last_seq moved since the previous look is rung, and its followers read after their
 * cursor as after a NOTIFY. A ring is only ever a hint (live.ts checks every seq), so a spurious
 * one costs a read and a missed one cannot happen: a follower subscribes before its first read,
 * and anything committed after that read moves last_seq past what the next poll compares with.
 *
 * Rejected: waking every follower on every tick (one read per stream per tick, where this is one
 * statement per tick for the whole process); polling workflow_events (last_seq is the allocator
 * the writer bumps in the same transaction, one row per thread).
 */
import { coerceError } from "./errors.ts";
import type { DoorbellListener } from "./listener.ts";

/**
 * A live frame committed on another instance reaches this one's stream within 250 ms: this wait,
 * plus one indexed read of the thread rows and one of the new events. Shorter costs one more
 * statement per tick for every instance with followers; longer is a stutter people see.
 */
export const POLL_DOORBELL_INTERVAL_MS = 200;

export interface PollingDoorbellOptions {
  /** the threads followed in this process now */
  followed(): string[];
  /** last_seq of these threads (absent ones were deleted) */
  lastSeqs(threadIds: readonly string[]): Promise<ReadonlyMap<string, number>>;
  /** a followed thread's log grew (or it was deleted) since the previous poll */
  onChanged(threadId: string, lastSeq: number | undefined): void;
  onError(err: Error): void;
  intervalMs?: number;
}

export function createPollingDoorbell(opts: PollingDoorbellOptions): DoorbellListener {
  const intervalMs = opts.intervalMs ?? POLL_DOORBELL_INTERVAL_MS;
  /** thread -> last_seq at the previous poll, for the threads followed then */
  let seen = new Map<string, number | undefined>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  async function poll(): Promise<void> {
    const ids = [...new Set(opts.followed())];
    if (ids.length === 0) {
      seen = new Map();
      return;
    }
    const now = await opts.lastSeqs(ids);
    const next = new Map<string, number | undefined>();
    for (const id of ids) {
      const seq = now.get(id);
      next.set(id, seq);
      // A thread not seen at the previous poll is rung once: its followers may have read before
      // a commit that this first look cannot tell from an old one.
      if (!seen.has(id) || seen.get(id) !== seq) opts.onChanged(id, seq);
    }
    seen = next;
  }

  function schedule(): void {
    if (closed) return;
    // One poll at a time: the next waits for this one's answer, so a slow database is never
    // asked twice at once by the same process.
    timer = setTimeout(() => {
      poll()
        .catch((err: unknown) => opts.onError(coerceError(err)))
        .finally(schedule);
    }, intervalMs);
    timer.unref();
  }

  return {
    listening() {
      if (!timer && !closed) schedule();
      return Promise.resolve();
    },
    async close() {
      closed = true;
      clearTimeout(timer);
    },
  };
}
