/**
 * The cost of one flush: a stream whose tokens come one at a time, each append awaited, so that
 * every token is a flush of its own (a slow upstream's case). On Postgres only (DATABASE_URL).
 * Run with `npx tsx test/bench/flush.bench.ts`; prints a table.
 *
 * - baseline: one awaited autocommit INSERT of one event on a plain pg connection (what any
 *   durable log pays per event);
 * - the store with named prepared statements (DATABASE_POOL_MODE=direct: the plan keeps names);
 * - the store with unnamed statements (declared a transaction-mode pooler: no names).
 *
 * Each row: wall time and this process's CPU per flush, and the wall time as a ratio to the
 * baseline measured in the same rounds (the machine is shared: single figures drift, ratios
 * less). Then the thread rows' update counters: how many of the per-flush updates were HOT.
 *
 * The commit's WAL flush (fsync) is most of a one-event flush's wall time on a slow disk and
 * hides the statements' own work; PGOPTIONS='-c synchronous_commit=off' (read by pg at connect)
 * takes it out of every connection of the run, the baseline's included.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { WorkflowEvent } from "../../protocol/events.ts";
import { createPostgresStore } from "../../server/store/postgres.ts";
import type { EventStore } from "../../server/store/types.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const TOKENS = 400;

interface Row {
  method: string;
  flushes: number;
  ms: number;
  cpuMs: number;
}

const token = (i: number): WorkflowEvent => ({ type: "text.delta", data: { runId: "bench-run", messageId: "bench-msg", delta: `token ${i} ` } });

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

async function timed(row: Row, n: number, work: () => Promise<void>): Promise<void> {
  const [t0, c0] = [performance.now(), cpuMs()];
  await work();
  row.ms += performance.now() - t0;
  row.cpuMs += cpuMs() - c0;
  row.flushes += n;
}

async function oneStream(store: EventStore): Promise<() => Promise<void>> {
  const threadId = `bench_${randomBytes(6).toString("hex")}`;
  await store.ensureThread(threadId, "bench");
  await store.append(threadId, [{ type: "run.accepted", data: { runId: "bench-run", tools: [], context: [] } }, { type: "workflow.started", data: { runId: "bench-run" } }]);
  return async () => {
    for (let i = 0; i < TOKENS; i++) await store.append(threadId, [token(i)]);
  };
}

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.log("DATABASE_URL is not set: nothing to measure.");
    return;
  }
  const schema = `tl_bench_${randomBytes(4).toString("hex")}`;
  const raw = new pg.Client({ connectionString: url });
  await raw.connect();
  const named = createPostgresStore({ connectionString: url, schema, poolMode: "direct" });
  const unnamed = createPostgresStore({ connectionString: url, schema, poolMode: "transaction" });
  const rows: Row[] = [
    { method: "1 awaited INSERT per event (baseline)", flushes: 0, ms: 0, cpuMs: 0 },
    { method: "store, named statements", flushes: 0, ms: 0, cpuMs: 0 },
    { method: "store, unnamed statements", flushes: 0, ms: 0, cpuMs: 0 },
  ];
  try {
    await named.migrate();
    await unnamed.migrate();
    await (await oneStream(named))(); // warm-up: the plan is known, names prepared, JIT warm
    await (await oneStream(unnamed))();
    for (let round = 0; round < ROUNDS; round++) {
      const threadId = `bench_${randomBytes(6).toString("hex")}`;
      await named.ensureThread(threadId, "bench");
      await timed(rows[0]!, TOKENS, async () => {
        for (let i = 1; i <= TOKENS; i++) {
          await raw.query(
            `insert into "${schema}".workflow_events (thread_id, seq, run_id, type, data) values ($1::text, $2::bigint, $3::text, $4::text, $5::jsonb)`,
            [threadId, i, "bench-run", "text.delta", JSON.stringify(token(i).data)],
          );
        }
      });
      // Alternating which goes first, so that neither always follows the baseline.
      const order = round % 2 === 0 ? ([[named, 1], [unnamed, 2]] as const) : ([[unnamed, 2], [named, 1]] as const);
      for (const [store, row] of order) await timed(rows[row]!, TOKENS, await oneStream(store));
    }
  } finally {
    await named.close();
    await unnamed.close();
  }
  const base = rows[0]!.ms / rows[0]!.flushes;
  console.log(`\n${ROUNDS} rounds of ${TOKENS} one-event flushes per method (awaited one by one).\n`);
  console.log("| method | flushes | ms per flush | CPU ms per flush (this process) | x baseline (wall) |");
  console.log("|---|---:|---:|---:|---:|");
  for (const r of rows) {
    const per = r.ms / r.flushes;
    console.log(`| ${r.method} | ${r.flushes} | ${per.toFixed(3)} | ${(r.cpuMs / r.flushes).toFixed(3)} | ${(per / base).toFixed(2)}x |`);
  }
  // The store's backends report their counters as they end; give them a moment to have ended.
  for (let i = 0; i < 40; i++) {
    const { rows: active } = await raw.query<{ n: number }>(
      "select count(*)::int as n from pg_stat_activity where application_name like 'threadline%' and pid <> pg_backend_pid()",
    );
    if (active[0]!.n === 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const { rows: stats } = await raw.query(
    `select n_tup_upd as updates, n_tup_hot_upd as hot, n_dead_tup as dead from pg_stat_user_tables where schemaname = $1::text and relname = 'threads'`,
    [schema],
  );
  console.log(`\nthreads table, all flushes of this run: ${JSON.stringify(stats[0])}`);
  await raw.query(`drop schema if exists "${schema}" cascade`);
  await raw.end();
}

await main();
