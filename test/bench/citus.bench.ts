/**
 * The store's writes on Citus (a coordinator and two workers, CITUS_URL) against single Postgres
 * (DATABASE_URL), in one run: `npm run bench:citus`; prints a table of ratios. Without CITUS_URL
 * it says so and measures nothing.
 *
 * - one stream: one thread, each token append() awaited before the next: per-token latency
 *   p50/p99 (a slow upstream's case: every token a flush of its own);
 * - 200 streams: 200 threads whose tokens arrive interleaved, not awaited (as the engine relays
 *   them): tokens per second and per-token latency p99 (append() to its commit).
 *
 * - 1 worker against 2: on a cluster of its own (a coordinator on :5461, workers on :5462 and
 *   :5463, support/citus-cluster.ts, dropped at the end; skipped where it cannot be made), one
 *   schema distributed while only the first worker takes shards, another once both do.
 *
 * The machine is shared and its speed drifts: the backends run interleaved over BENCH_ROUNDS
 * rounds and each figure is taken over every round's samples. Ratios, not absolute times.
 */
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import pg from "pg";
import type { WorkflowEvent } from "../../protocol/events.ts";
import { createPostgresStore } from "../../server/store/postgres.ts";
import type { EventStore } from "../../server/store/types.ts";
import { citusClusterUnavailable, createCitusCluster, type CitusCluster } from "../support/citus-cluster.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ONE_STREAM_TOKENS = 300;
const STREAMS = 200;
const TOKENS_PER_STREAM = 40;

interface Backend {
  name: string;
  url: string;
  /** before its schema is migrated (distributed) */
  before?: () => Promise<void>;
}

const backends: Backend[] = [
  { name: "postgres", url: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test" },
  { name: "citus", url: process.env.CITUS_URL ?? "" },
];

/** The 1-worker and 2-worker schemas on a cluster of the bench's own (or why there is none). */
async function ownCluster(): Promise<CitusCluster | undefined> {
  const why = citusClusterUnavailable();
  if (why) {
    console.log(`1 worker against 2 is skipped: ${why}`);
    return undefined;
  }
  const cluster = await createCitusCluster({ prefix: "tlbench", coordinatorPort: 5461, workerPorts: [5462, 5463] });
  const url = cluster.coordinator.url;
  const shards = async (on: boolean) => void (await cluster.sql(`select citus_set_node_property('127.0.0.1', 5463, 'shouldhaveshards', $1::boolean)`, [on]));
  backends.push({ name: "citus-1w", url, before: () => shards(false) }, { name: "citus-2w", url, before: () => shards(true) });
  return cluster;
}

const token = (i: number): WorkflowEvent => ({ type: "text.delta", data: { runId: "bench", messageId: "m", delta: `token ${i} ` } });
const id = () => `b_${randomBytes(6).toString("hex")}`;

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function oneStream(store: EventStore, samples: number[]): Promise<void> {
  const threadId = id();
  await store.ensureThread(threadId, "agent");
  for (let i = 0; i < ONE_STREAM_TOKENS; i++) {
    const t0 = performance.now();
    await store.append(threadId, [token(i)]);
    samples.push(performance.now() - t0);
  }
}

async function manyStreams(store: EventStore, samples: number[]): Promise<{ tokens: number; seconds: number }> {
  const threads = Array.from({ length: STREAMS }, id);
  for (const t of threads) await store.ensureThread(t, "agent");
  const t0 = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < TOKENS_PER_STREAM; i++) {
    for (const t of threads) {
      const sent = performance.now();
      pending.push(store.append(t, [token(i)]).then(() => void samples.push(performance.now() - sent)));
    }
    // the tokens of one round arrive together, the next round a tick later
    await new Promise((r) => setImmediate(r));
  }
  await Promise.all(pending);
  return { tokens: STREAMS * TOKENS_PER_STREAM, seconds: (performance.now() - t0) / 1000 };
}

async function main(): Promise<void> {
  const load = () => loadavg().map((l) => l.toFixed(1)).join(" ");
  console.log(`load average at start: ${load()}`);
  const own = await ownCluster();
  if (!process.env.CITUS_URL) {
    console.log("CITUS_URL is not set: the shared cluster is not measured (../shared/vendor/citus/citus.sh up, then CITUS_URL=postgres://postgres@127.0.0.1:5441/postgres).");
    if (!own) return;
  }
  const opened = backends.filter((b) => b.url !== "").map((b) => {
    const schema = `bench_${randomBytes(6).toString("hex")}`;
    return { ...b, schema, store: createPostgresStore({ connectionString: b.url, schema }) };
  });
  const results = new Map(opened.map((b) => [b.name, { one: [] as number[], many: [] as number[], tokens: 0, seconds: 0 }]));
  try {
    for (const b of opened) {
      await b.before?.();
      await b.store.migrate();
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const b of opened) {
        const r = results.get(b.name)!;
        await oneStream(b.store, r.one);
        const m = await manyStreams(b.store, r.many);
        r.tokens += m.tokens;
        r.seconds += m.seconds;
      }
    }
    const rows = opened.map((b) => {
      const r = results.get(b.name)!;
      const one = [...r.one].sort((x, y) => x - y);
      const many = [...r.many].sort((x, y) => x - y);
      return { backend: b.name, oneP50: quantile(one, 0.5), oneP99: quantile(one, 0.99), manyP99: quantile(many, 0.99), tokensPerSecond: r.tokens / r.seconds };
    });
    const base = rows[0]!;
    console.log(`load average at the end: ${load()}`);
    console.log(`rounds ${ROUNDS}; one stream ${ONE_STREAM_TOKENS} tokens; ${STREAMS} streams x ${TOKENS_PER_STREAM} tokens`);
    console.log("backend   | 1-stream p50 ms | 1-stream p99 ms | 200-stream p99 ms | tokens/s | ratio vs postgres (p50, p99, 200-p99, tokens/s)");
    for (const r of rows) {
      const ratios = [r.oneP50 / base.oneP50, r.oneP99 / base.oneP99, r.manyP99 / base.manyP99, r.tokensPerSecond / base.tokensPerSecond].map((x) => x.toFixed(2));
      console.log(`${r.backend.padEnd(9)} | ${r.oneP50.toFixed(2).padStart(15)} | ${r.oneP99.toFixed(2).padStart(15)} | ${r.manyP99.toFixed(1).padStart(17)} | ${r.tokensPerSecond.toFixed(0).padStart(8)} | ${ratios.join(", ")}`);
    }
  } finally {
    for (const b of opened) {
      await b.store.close();
      const client = new pg.Client({ connectionString: b.url });
      await client.connect();
      await client.query(`drop schema if exists "${b.schema}" cascade`);
      await client.end();
    }
    await own?.drop();
  }
}

await main();
