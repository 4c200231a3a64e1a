/**
 * The thread row is rewritten by every flush (last_seq). Postgres can do that in place, a
 * heap-only (HOT) update with no index entry and no dead index tuple, only when the update
 * changes no indexed column: this counts, for one run of 1,000 tokens flushed one by one, how
 * many of the thread row's updates were HOT (pg_stat_user_tables). Postgres only: the counters
 * are the server's statistics.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { createPostgresStore } from "../../server/store/postgres.ts";
import { ev, randomId, randomSchema } from "./fixtures.ts";

const url = process.env.DATABASE_URL;
const TOKENS = 1_000;

describe.skipIf(!url)("thread row updates per flush", () => {
  const schema = randomSchema(); // dropped when the file ends (support/schemas.ts)

  it(`are heap-only (HOT) for the tokens of a ${TOKENS}-token run`, async () => {
    const store = createPostgresStore({ connectionString: url!, schema });
    const threadId = randomId("t");
    const runId = randomId("run");
    try {
      await store.migrate();
      await store.ensureThread(threadId, "agent");
      await store.append(threadId, [ev.userMessage("hello"), ev.runAccepted(runId), ev.started(runId), ev.textStarted(runId)]);
      // One awaited append per token: each is a flush of its own, as a slow upstream's tokens are.
      for (let i = 0; i < TOKENS; i++) await store.append(threadId, [ev.delta(runId, `t${i} `)]);
      await store.append(threadId, [ev.textEnded(runId), ev.completed(runId)]);
    } finally {
      // The store's backends report their counters when they end.
      await store.close();
    }
    const stats = await tableStats(schema, "threads", TOKENS + 2);
    console.info(`threads row, ${TOKENS + 2} flushes: ${JSON.stringify(stats)}`);
    // The token flushes, nearly all: the run's boundaries move the listing (not HOT), and an
    // update that finds its page full goes to another one, which happens when the old versions
    // cannot be pruned yet because a transaction elsewhere (another test) still sees them.
    // Before updated_at stayed put: 0 of 1,002.
    expect(stats.hot).toBeGreaterThanOrEqual(TOKENS * 0.95);
  });
});

/**
 * The table's update counters once at least `updates` are reported: each backend reports its own
 * as it ends (the store's were asked to), a moment after its client went. Polled, as the
 * statistics announce nothing; the test's timeout bounds the wait.
 */
async function tableStats(schema: string, table: string, updates: number): Promise<{ updates: number; hot: number; dead: number }> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    for (;;) {
      const { rows } = await admin.query<{ updates: string; hot: string; dead: string }>(
        `select n_tup_upd as updates, n_tup_hot_upd as hot, n_dead_tup as dead
         from pg_stat_user_tables where schemaname = $1::text and relname = $2::text`,
        [schema, table],
      );
      const r = rows[0];
      if (r && Number(r.updates) >= updates) return { updates: Number(r.updates), hot: Number(r.hot), dead: Number(r.dead) };
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await admin.end();
  }
}
