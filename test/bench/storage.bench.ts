/**
 * Storage per unit of work: threads of RUNS runs, each streaming a TOKENS-token answer (one
 * text.delta per token, then the whole message), on PGlite and, when DATABASE_URL is set,
 * Postgres. Reports the bytes on disk (heap, TOAST, indexes; dead rows included, autovacuum off
 * for the schema's tables so that the numbers do not depend on when it came round) of the event
 * log and of the checkpoints, per 1,000 token events, with each run's checkpoint written as a
 * patch (this release) and whole (the release before: the baseline, in the same process), and
 * the log again after retention compacted the deltas. Run with `npm run bench:storage`; prints a
 * table. Not a test: test/store/checkpoint-growth.test.ts asserts the growth.
 */
import { CHECKPOINT_TABLES, endedRun, tableBytesSql } from "../support/checkpoint-runs.ts";
import { pgliteBackend, postgresBackend, type StoreBackend } from "../store/backends.ts";
import { randomSchema } from "../store/fixtures.ts";

const RUNS = 50;
const TOKENS = 1_000;
const THREADS = 3;
const MB = 1024 * 1024;

interface Row {
  backend: string;
  checkpoints: string;
  "log MB": string;
  "log MB compacted": string;
  "checkpoint MB": string;
  "MB per 1k token events": string;
}

async function measure(backend: StoreBackend, patches: boolean): Promise<Row> {
  const schema = randomSchema();
  const store = backend.open(schema);
  try {
    await store.migrate();
    for (const table of ["workflow_events", ...CHECKPOINT_TABLES]) {
      await backend.sql(`alter table "${schema}".${table} set (autovacuum_enabled = false, toast.autovacuum_enabled = false)`);
    }
    for (let t = 0; t < THREADS; t++) {
      const threadId = `t-${t}`;
      await store.ensureThread(threadId, "agent");
      for (let i = 0; i < RUNS; i++) await endedRun(store, threadId, TOKENS, { patches, stream: true });
    }
    const bytes = async (tables: readonly string[]) => {
      const { text, params } = tableBytesSql(schema, tables);
      return Number((await backend.sql<{ bytes: number }>(text, params))[0]!.bytes);
    };
    const log = await bytes(["workflow_events"]);
    const checkpoints = await bytes(CHECKPOINT_TABLES);
    await store.compact(0);
    // What the compacted log takes once its dead rows are reclaimed (what autovacuum does in time).
    await backend.sql(`vacuum full "${schema}".workflow_events`);
    const compacted = await bytes(["workflow_events"]);
    const tokenEvents = (THREADS * RUNS * TOKENS) / 1000;
    return {
      backend: backend.name,
      checkpoints: patches ? "patches" : "whole (before)",
      "log MB": (log / MB).toFixed(2),
      "log MB compacted": (compacted / MB).toFixed(2),
      "checkpoint MB": (checkpoints / MB).toFixed(2),
      "MB per 1k token events": ((log + checkpoints) / MB / tokenEvents).toFixed(3),
    };
  } finally {
    await store.close();
    await backend.dropSchema(schema);
  }
}

const url = process.env.DATABASE_URL;
const rows: Row[] = [];
for (const backend of [pgliteBackend(), ...(url ? [postgresBackend(url)] : [])]) {
  rows.push(await measure(backend, false), await measure(backend, true));
  await backend.dispose();
}
console.log(`${THREADS} threads x ${RUNS} runs x ${TOKENS} token events, bytes on disk (dead rows included)`);
console.table(rows);
