/**
 * Append throughput: the group-commit writer against one awaited INSERT per event, on PGlite and,
 * when DATABASE_URL is set, on Postgres. Run with `npm run bench:store`; prints a table.
 *
 * - baseline: one stream, `await` an INSERT of one event, then the next (seq counted locally:
 *   the baseline does less work than the store, which also bumps threads.last_seq);
 * - group commit, awaited: 64 streams (threads), each awaiting append() of one event before
 *   the next, so a batch holds at most one event per stream;
 * - group commit, pipelined: 64 streams whose tokens arrive interleaved, each token one
 *   append() call that is not awaited before the next (as an engine relaying a token stream
 *   does; the queue keeps each stream's order), all awaited at the end.
 *
 * The machine is shared and its speed drifts, so the three methods run interleaved over a few
 * rounds, and each rate is the total of events over the total of time across rounds.
 */
import { randomBytes } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import type { WorkflowEvent } from "../../protocol/events.ts";
import type { Queryable } from "../../server/store/db.ts";
import { createPgliteStore } from "../../server/store/pglite.ts";
import { createPostgresStore } from "../../server/store/postgres.ts";
import type { EventStore } from "../../server/store/types.ts";

const STREAMS = 64;

interface Row {
  backend: string;
  method: string;
  events: number;
  seconds: number;
  perSecond: number;
  ratio?: number;
}

function token(i: number): WorkflowEvent {
  return { type: "text.delta", data: { runId: "bench-run", messageId: "bench-msg", delta: `token ${i} ` } };
}

async function baseline(db: Queryable, schema: string, threadId: string, events: number): Promise<number> {
  const started = performance.now();
  for (let i = 1; i <= events; i++) {
    const e = token(i);
    await db.query(
      `insert into "${schema}".workflow_events (thread_id, seq, run_id, type, data)
       values ($1::text, $2::bigint, $3::text, $4::text, $5::jsonb)`,
      [threadId, i, "bench-run", e.type, JSON.stringify(e.data)],
    );
  }
  return (performance.now() - started) / 1000;
}

async function awaitedStreams(store: EventStore, threadIds: string[], perStream: number): Promise<number> {
  const started = performance.now();
  await Promise.all(
    threadIds.map(async (threadId) => {
      for (let i = 0; i < perStream; i++) await store.append(threadId, [token(i)]);
    }),
  );
  return (performance.now() - started) / 1000;
}

async function pipelinedStreams(store: EventStore, threadIds: string[], perStream: number): Promise<number> {
  const started = performance.now();
  const appends: Promise<unknown>[] = [];
  for (let i = 0; i < perStream; i++) for (const threadId of threadIds) appends.push(store.append(threadId, [token(i)]));
  await Promise.all(appends);
  return (performance.now() - started) / 1000;
}

interface Sizes {
  rounds: number;
  /** events per round, per method */
  baseline: number;
  awaited: number;
  pipelined: number;
}

async function bench(backend: string, store: EventStore, raw: Queryable, schema: string, sizes: Sizes): Promise<Row[]> {
  await store.migrate();
  const threads = async (n: number) => {
    const ids = Array.from({ length: n }, () => `bench_${randomBytes(6).toString("hex")}`);
    for (const id of ids) await store.ensureThread(id, "bench");
    return ids;
  };
  const perAwaited = Math.ceil(sizes.awaited / STREAMS);
  const perPipelined = Math.ceil(sizes.pipelined / STREAMS);
  const rows: Row[] = [
    { backend, method: "1 awaited INSERT per event", events: 0, seconds: 0, perSecond: 0 },
    { backend, method: `group commit, ${STREAMS} streams awaiting each append`, events: 0, seconds: 0, perSecond: 0 },
    { backend, method: `group commit, ${STREAMS} streams pipelined`, events: 0, seconds: 0, perSecond: 0 },
  ];
  const add = (row: Row, events: number, seconds: number) => {
    row.events += events;
    row.seconds += seconds;
  };

  await baseline(raw, schema, (await threads(1))[0]!, 200); // warm-up
  await pipelinedStreams(store, await threads(STREAMS), 20);
  for (let round = 0; round < sizes.rounds; round++) {
    add(rows[0]!, sizes.baseline, await baseline(raw, schema, (await threads(1))[0]!, sizes.baseline));
    add(rows[1]!, perAwaited * STREAMS, await awaitedStreams(store, await threads(STREAMS), perAwaited));
    add(rows[2]!, perPipelined * STREAMS, await pipelinedStreams(store, await threads(STREAMS), perPipelined));
  }
  for (const row of rows) row.perSecond = row.events / row.seconds;
  return rows.map((r) => ({ ...r, ratio: r.perSecond / rows[0]!.perSecond }));
}

function print(rows: Row[]): void {
  const header = ["backend", "method", "events", "seconds", "events/s", "x baseline"];
  const cells = rows.map((r) => [
    r.backend,
    r.method,
    String(r.events),
    r.seconds.toFixed(2),
    Math.round(r.perSecond).toLocaleString("en-US"),
    `${r.ratio!.toFixed(1)}x`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => `| ${c.map((v, i) => (i >= 2 ? v.padStart(widths[i]!) : v.padEnd(widths[i]!))).join(" | ")} |`;
  console.log(line(header));
  console.log(`|${widths.map((w, i) => (i >= 2 ? `${"-".repeat(w + 1)}:` : "-".repeat(w + 2))).join("|")}|`);
  for (const c of cells) console.log(line(c));
}

async function main(): Promise<void> {
  const schema = `tl_bench_${randomBytes(4).toString("hex")}`;
  const rows: Row[] = [];

  const pglite = new PGlite();
  const local = createPgliteStore({ pglite, schema });
  const raw: Queryable = {
    query: async (text, params) => {
      const result = await pglite.query(text, params as unknown[]);
      return { rows: [], rowCount: result.affectedRows ?? 0 };
    },
  };
  rows.push(...(await bench("pglite", local, raw, schema, { rounds: 3, baseline: 1000, awaited: 3000, pipelined: 10_000 })));
  await local.close();
  await pglite.close();

  const url = process.env.DATABASE_URL;
  if (url) {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const remote = createPostgresStore({ connectionString: url, schema });
    try {
      const raw: Queryable = {
        query: async (text, params) => ({ rows: [], rowCount: (await pool.query(text, params as unknown[])).rowCount ?? 0 }),
      };
      rows.push(...(await bench("postgres", remote, raw, schema, { rounds: 4, baseline: 1000, awaited: 5000, pipelined: 30_000 })));
    } finally {
      await remote.close();
      await pool.query(`drop schema if exists "${schema}" cascade`);
      await pool.end();
    }
  } else {
    console.log("DATABASE_URL is not set: Postgres skipped.\n");
  }
  print(rows);
}

await main();
