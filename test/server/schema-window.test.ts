/**
 * The schema window, as this release sees a database later releases migrated: test-only
 * migrations past this release's newest stand for them (the runner takes the list).
 * - one that declares no window (expand): this release stays ready and runs go through;
 * - the next release's, which leaves out this one (`compatible-from` the release after this one:
 *   a contract once no instance runs this release): /readyz answers 503 SCHEMA_TOO_NEW, naming
 *   both versions and what to do, so a load balancer drains it;
 * - a still later one whose window takes this release back: ready again, read live.
 */
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoUpstream } from "../support/demo-upstream.ts";
import type { Db } from "../../server/store/db.ts";
import { latestMigrationId, loadMigrations, migrate, type Migration } from "../../server/store/migrate.ts";
import { createPgliteStore, pgliteDb } from "../../server/store/pglite.ts";
import { poolDb } from "../../server/store/pool-db.ts";
import { schemaNames } from "../../server/store/schema.ts";
import type { EventStore } from "../../server/store/types.ts";
import { runClient } from "../support/agui-clients.ts";
import { backends, openStore, startTestServer, testSchema, type BackendName, type TestServer } from "../support/server.ts";

const release = latestMigrationId();

/** A migration of a later release: `header` says what it declares. */
const later = (id: number, header: string): Migration => ({
  id,
  name: `later_${id}`,
  sql: `${header}\ncreate table :THREADLINE_SCHEMA.later_${id} (id int);\n`,
});

/** A database of its own, which migrate() brings to any list; `store()` opens this release's store on it. */
function database(backend: BackendName): { migrateTo(list: readonly Migration[]): Promise<void>; store(): EventStore; close(): Promise<void> } {
  if (backend === "postgres") {
    const schema = testSchema();
    const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
    const db: Db = poolDb(pool);
    return {
      migrateTo: (list) => migrate(db, schemaNames(schema), { migrations: list }),
      store: () => openStore("postgres", schema),
      async close() {
        await pool.query(`drop schema if exists "${schema}" cascade`);
        await pool.end();
      },
    };
  }
  const pglite = new PGlite();
  return {
    migrateTo: (list) => migrate(pgliteDb(async () => pglite), schemaNames(), { migrations: list }),
    store: () => createPgliteStore({ pglite }),
    close: () => pglite.close(),
  };
}

describe.each(backends())("the schema window on %s", (backend) => {
  let upstream: Awaited<ReturnType<typeof startDemoUpstream>>;
  const opened: { close(): Promise<void> }[] = [];
  beforeAll(async () => {
    upstream = await startDemoUpstream({ latencyMs: 0 });
  });
  afterAll(async () => {
    for (const o of opened.reverse()) await o.close();
    await upstream?.stop();
  });

  async function serverOn(db: ReturnType<typeof database>): Promise<TestServer> {
    const store = db.store();
    const server = await startTestServer({ backend, store, llmUrl: upstream.url });
    opened.push(db, store, server);
    return server;
  }

  it("a later migration that declares no window keeps this release ready, and its runs go through", async () => {
    const db = database(backend);
    await db.migrateTo([...loadMigrations(), later(release + 1, "-- An expand: a table this release never reads.")]);
    const server = await serverOn(db);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const out = await runClient("1.0.0", {
      url: `${server.url}/api/agents/default/run`,
      input: { threadId: "window-expand", messages: [{ id: "u1", role: "user", content: "hello there" }] },
    });
    expect(out.failed).toBe(false);
    expect(out.events.at(-1)?.type).toBe("RUN_FINISHED");
  });

  it("a later release's migration that leaves this release out: /readyz 503 SCHEMA_TOO_NEW naming both versions; a later window that takes it back: 200", async () => {
    const db = database(backend);
    const expand = later(release + 1, "-- An expand: the next release's.");
    const contract = later(release + 2, `-- threadline: compatible-from ${release + 1}`);
    await db.migrateTo([...loadMigrations(), expand, contract]);
    const server = await serverOn(db);

    const res = await fetch(`${server.url}/readyz`);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    const body = (await res.json()) as { ok: boolean; code: string; error: string };
    expect(body).toMatchObject({ ok: false, code: "SCHEMA_TOO_NEW" });
    expect(body.error).toContain(`is at migration ${release + 2}, which keeps code that knows migration ${release + 1} or later working`);
    expect(body.error).toContain(`this release knows migrations up to ${release}`);
    expect(body.error).toContain("replace this instance with that release");

    await db.migrateTo([...loadMigrations(), expand, contract, later(release + 3, `-- threadline: compatible-from ${release}`)]);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });
});
