/**
 * Row locks of the threads table are always taken in thread_id order: the writer's batch does
 * (sql/events.ts appendBatch), and so must every statement that locks several thread rows while
 * the writer runs, or two of them can each hold a row the other waits for. Here heartbeats and
 * recovery claims run against a writer that keeps flushing batches of the same threads, on real
 * Postgres (PGlite has one connection: nothing there waits on a lock).
 *
 * The threads are created in descending id order, so that a statement that locks rows in the
 * order it finds them (the table's physical order, as a sequential scan does) locks them against
 * the writer's order. The bound on a heartbeat's wait is the lease pool's lock timeout: one that
 * waited longer fails with it, and none may fail.
 */
import { describe, expect, it } from "vitest";
import { createPostgresStore } from "../../server/store/postgres.ts";
import { ev, randomId, randomSchema } from "./fixtures.ts";

const url = process.env.DATABASE_URL;
const THREADS = 40;
const ROUNDS = 60;
const OWNER = "instance-a";

describe.skipIf(!url)("lock order against the writer", () => {
  const schema = randomSchema(); // dropped when the file ends (support/schemas.ts)

  it("heartbeats and claims never deadlock with flushes, nor wait past the lease lock timeout", async () => {
    const errors: unknown[] = [];
    // No retries: a deadlock or a lock timeout must show as the error it is.
    const store = createPostgresStore({ connectionString: url!, schema, retry: { attempts: 1 }, timeouts: { leaseLockMs: 1_000 } });
    try {
      await store.migrate();
      const prefix = randomId("t");
      const ids = Array.from({ length: THREADS }, (_, i) => `${prefix}_${String(i).padStart(3, "0")}`);
      const runId = randomId("run");
      for (const id of [...ids].reverse()) {
        await store.ensureThread(id, "agent");
        expect(await store.acquireLease(id, OWNER, 60_000)).toBe(true);
        await store.append(id, [ev.runAccepted(runId), ev.started(runId)], { leaseOwner: OWNER });
      }
      let writing = true;
      // The writer: every round, one token per thread, not awaited, so that each flush takes
      // many threads and locks their rows in id order.
      const writes = (async () => {
        try {
          for (let round = 0; round < ROUNDS; round++) {
            await Promise.all(ids.map((id) => store.append(id, [ev.delta(runId, `r${round} `)], { leaseOwner: OWNER })));
          }
        } finally {
          writing = false;
        }
      })();
      let beats = 0;
      let claims = 0;
      const heartbeats = (async () => {
        while (writing) {
          const renewed = await store.heartbeat(OWNER, ids, 60_000).catch((err: unknown) => {
            errors.push(err);
            return [];
          });
          expect(renewed.sort()).toEqual(ids);
          beats++;
        }
      })();
      const sweeps = (async () => {
        while (writing) {
          // Nothing is expired: a claim locks nothing it keeps, but it scans the same rows.
          const claimed = await store.claimExpired("instance-b", 60_000, THREADS).catch((err: unknown) => {
            errors.push(err);
            return [];
          });
          expect(claimed).toEqual([]);
          claims++;
        }
      })();
      await Promise.all([writes, heartbeats, sweeps]);
      console.info(`${ROUNDS} rounds of ${THREADS} threads: ${beats} heartbeats, ${claims} claims alongside`);
      expect(errors).toEqual([]);
      expect(beats).toBeGreaterThan(0);
      const threads = await Promise.all(ids.map((id) => store.getThread(id)));
      expect(threads.map((t) => t!.lastSeq)).toEqual(ids.map(() => 2 + ROUNDS));
    } finally {
      await store.close();
    }
  });
});
