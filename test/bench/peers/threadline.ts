/**
 * Threadline under test (a child process of the benchmark): `createThreadline` exactly as a user
 * mounts it, configured by loadConfig, aimed at the fake upstream. `postgres` runs on a fresh
 * random schema of the Postgres at BENCH_DATABASE_URL (dropped on close); `pglite` on embedded
 * PGlite in a temp DATA_DIR (removed on close). Whatever main's hot path is, this measures it.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { loadConfig } from "../../../server/config.ts";
import { createThreadline } from "../../../server/threadline.ts";
import { serveChild } from "./child.ts";
import { statementTimes } from "./statement-times.ts";
import { createPgliteStore } from "../../../server/store/pglite.ts";
import { createPostgresStore } from "../../../server/store/postgres.ts";
import type { FlushInfo } from "../../../server/store/writer.ts";

const upstream = process.env.BENCH_UPSTREAM;
if (!upstream) throw new Error("BENCH_UPSTREAM (the fake upstream's /v1 URL) is not set; start this through npm run bench:peers.");
const backend = process.argv[2];
if (backend !== "postgres" && backend !== "pglite") throw new Error(`Pass postgres or pglite, not ${backend}.`);
const databaseUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

await serveChild(async () => {
  const schema = `bench_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const dataDir = backend === "pglite" ? await mkdtemp(path.join(tmpdir(), "threadline-bench-")) : undefined;
  const config = loadConfig({
    ...(backend === "postgres" ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema } : { DATA_DIR: dataDir }),
    OPENAI_BASE_URL: upstream,
    OPENAI_API_KEY: "x",
    LOG_LEVEL: "silent",
  });
  const times = process.env.BENCH_STATEMENT_TIMES ? statementTimes() : undefined;
  const flushes = process.env.BENCH_FLUSHES ? { n: 0, events: 0, appends: 0, ms: 0 } : undefined;
  const writer = flushes && {
    onFlush: (f: FlushInfo) => {
      flushes.n++;
      flushes.events += f.events;
      flushes.appends += f.appends;
      flushes.ms += f.ms;
    },
  };
  const own = { ...(times && { instrument: times.instrument }), ...(writer && { writer }) };
  const store =
    (times || flushes) && (backend === "pglite" ? createPgliteStore({ dataDir, ...own }) : createPostgresStore({ connectionString: databaseUrl, schema, ...own }));
  const threadline = await createThreadline({ config, ...(store && { store }) });
  const port = await threadline.listen(0, "127.0.0.1");
  let info = `Threadline on ${threadline.store.kind}`;
  if (backend === "postgres") {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const { rows } = await client.query<{ v: string }>("SELECT current_setting('server_version')::text AS v");
    await client.end();
    info += ` ${rows[0]?.v ?? "?"} (schema ${schema})`;
  }
  return {
    port,
    info,
    ...(backend === "postgres" && { schema }),
    async close() {
      await threadline.close();
      if (store) await store.close();
      if (times) process.stderr.write(`statement times (${backend}):\n${times.report()}\n`);
      if (flushes) {
        const { n, events, appends, ms } = flushes;
        process.stderr.write(`flushes (${backend}): ${n}, ${(events / n).toFixed(1)} events and ${(appends / n).toFixed(1)} appends each, ${(ms / n).toFixed(2)} ms each (BEGIN to COMMIT)\n`);
      }
      if (backend === "postgres") {
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      }
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
});
