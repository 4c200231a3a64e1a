/**
 * The `database` option: a Postgres URL, the application's pg.Pool (the store takes its
 * connections from it, and close() leaves it open), and a PGlite instance (left open too).
 */
import { testPglite } from "../support/pglite.ts";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineAgent } from "../../server/agents/define.ts";
import { runClient } from "../support/agui-clients.ts";
import { testSchema } from "../support/server.ts";
import { startGatedUpstream } from "../server/support.ts";
import { startLibraryApp } from "./support.ts";

const DATABASE_URL = process.env.DATABASE_URL;
const echo = defineAgent({ id: "echo", instructions: "Echo." });

async function chat(url: string, threadId: string): Promise<string[]> {
  const out = await runClient("1.0.0", {
    url: `${url}/ai/agents/echo/run`,
    input: { threadId, messages: [{ id: `u-${threadId}`, role: "user", content: "ping" }] },
  });
  expect(out.error?.message).toBeUndefined();
  return out.events.map((e) => e.type);
}

describe("the database option", () => {
  let upstream: Awaited<ReturnType<typeof startGatedUpstream>>;
  beforeAll(async () => {
    upstream = await startGatedUpstream();
  });
  afterAll(async () => {
    await upstream?.mock.stop();
  });

  it("takes a PGlite instance, stores the log in it, and leaves it open on close()", async () => {
    const pglite = testPglite();
    const app = await startLibraryApp({ llmUrl: upstream.url, mount: "/ai", agents: [echo], database: pglite });
    try {
      expect(app.threadline.store.kind).toBe("pglite");
      expect((await chat(app.url, "pglite-1")).at(-1)).toBe("RUN_FINISHED");
    } finally {
      await app.close();
    }
    expect(pglite.closed).toBe(false);
    const { rows } = await pglite.query<{ n: number }>("select count(*)::int as n from threadline.workflow_events where thread_id = 'pglite-1'");
    expect(rows[0]!.n).toBeGreaterThan(0);
    await pglite.close();
  });

  it.runIf(DATABASE_URL)("takes a Postgres URL", async () => {
    const schema = testSchema();
    const app = await startLibraryApp({ llmUrl: upstream.url, mount: "/ai", agents: [echo], database: DATABASE_URL!, schema });
    try {
      expect(app.threadline.store.kind).toBe("postgres");
      expect((await chat(app.url, "url-1")).at(-1)).toBe("RUN_FINISHED");
    } finally {
      await app.close();
    }
    const check = new pg.Client({ connectionString: DATABASE_URL });
    await check.connect();
    try {
      const { rows } = await check.query(`select count(*)::int as n from "${schema}".workflow_events where thread_id = 'url-1'`);
      expect(rows[0].n).toBeGreaterThan(0);
    } finally {
      await check.end();
    }
  });

  it.runIf(DATABASE_URL)("takes the application's pg.Pool, uses its connections, and does not end it", async () => {
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 5 });
    const schema = testSchema();
    const app = await startLibraryApp({ llmUrl: upstream.url, mount: "/ai", agents: [echo], database: pool, schema });
    try {
      expect(app.threadline.store.kind).toBe("postgres");
      // A live conversation needs the LISTEN session, held out of the pool while the store is open.
      expect((await chat(app.url, "pool-1")).at(-1)).toBe("RUN_FINISHED");
      expect((await chat(app.url, "pool-2")).at(-1)).toBe("RUN_FINISHED");
      const listening = await pool.query<{ n: number }>(
        "select count(*)::int as n from pg_stat_activity where datname = current_database() and query ilike $1",
        [`listen "%${schema}%"`],
      );
      expect(listening.rows[0]!.n).toBeGreaterThanOrEqual(1);
      expect(pool.totalCount).toBeGreaterThan(0);
    } finally {
      await app.close();
    }
    expect(pool.ended).toBe(false);
    const { rows } = await pool.query(`select count(*)::int as n from "${schema}".workflow_events where thread_id in ('pool-1', 'pool-2')`);
    expect(rows[0].n).toBeGreaterThan(0);
    // The LISTEN session was destroyed, not handed back: every client left in the pool is idle and plain.
    expect(pool.totalCount).toBe(pool.idleCount);
    await pool.end();
  });

  it("refuses a string that is not a Postgres URL, saying what to pass", async () => {
    await expect(startLibraryApp({ llmUrl: upstream.url, mount: "/ai", agents: [echo], database: "./data/db" })).rejects.toThrow(/must be a Postgres URL/);
  });
});
