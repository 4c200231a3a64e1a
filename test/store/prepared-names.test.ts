/**
 * Named prepared statements (server/store/prepared.ts): on a direct server a hot statement is
 * prepared once in the connection and reused; behind a transaction-mode PgBouncer that does not
 * keep names (the installed 1.18), a store told the URL keeps sessions gets the server's refusal
 * once, turns names off and loses no statement; and a real store picks names from its session
 * plan: on a direct server, yes; behind transaction pooling, no, and its flushes work.
 */
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_DB_TIMEOUTS, createPostgresStore } from "../../server/store/postgres.ts";
import { poolDb } from "../../server/store/pool-db.ts";
import { preparedNames } from "../../server/store/prepared.ts";
import { txBounds } from "../../server/store/pg-connections.ts";
import { pgbouncerMissing, startPgBouncer } from "../support/pgbouncer.ts";
import { ev, randomId, randomSchema } from "./fixtures.ts";

const url = process.env.DATABASE_URL;
const bounds = txBounds(DEFAULT_DB_TIMEOUTS, DEFAULT_DB_TIMEOUTS.lockMs);
const HOT = "select $1::int + 1 as n";

describe.skipIf(!url)("named prepared statements", () => {
  it("a named statement is prepared once in the connection and answers as an unnamed one", async () => {
    // One connection, so that the check below sees the statements' own session.
    const pool = new pg.Pool({ connectionString: url, max: 1, pipeline: true } as pg.PoolConfig);
    const names = preparedNames(() => true);
    const db = poolDb(pool, pool, bounds, undefined, names);
    try {
      for (let i = 0; i < 3; i++) expect((await db.query<{ n: number }>(HOT, [i], "hot")).rows).toEqual([{ n: i + 1 }]);
      expect((await db.query<{ n: number }>(HOT, [7])).rows).toEqual([{ n: 8 }]);
      const { rows } = await pool.query<{ name: string; statement: string }>(
        "select name, statement from pg_prepared_statements where name like 'threadline_hot_%'",
      );
      expect(rows).toEqual([{ name: expect.stringMatching(/^threadline_hot_[0-9a-f]{12}$/), statement: HOT }]);
      expect(names.on()).toBe(true);
    } finally {
      await db.close();
    }
  });

  it("names never known to be kept are never sent", async () => {
    const pool = new pg.Pool({ connectionString: url, max: 1, pipeline: true } as pg.PoolConfig);
    const db = poolDb(pool, pool, bounds, undefined, preparedNames(() => undefined));
    try {
      expect((await db.query<{ n: number }>(HOT, [1], "hot")).rows).toEqual([{ n: 2 }]);
      expect((await pool.query("select name from pg_prepared_statements")).rows).toEqual([]);
    } finally {
      await db.close();
    }
  });
});

describe.skipIf(pgbouncerMissing() !== undefined)("named prepared statements behind a transaction-mode PgBouncer", () => {
  const schemas: string[] = [];
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    for (const s of schemas) await admin.query(`drop schema if exists "${s}" cascade`);
    await admin.end();
  });

  it("a refused name turns names off and the statement runs again unnamed: every answer right", async () => {
    const bouncer = await startPgBouncer("transaction");
    // Two client connections, as the store's pools are, sharing one set of names: the second's
    // first use of a name lands on the server connection the first prepared it on (duplicate),
    // or the first's next use lands on one that never saw it (does not exist).
    const names = preparedNames(() => true);
    const pools = [0, 1].map(() => new pg.Pool({ connectionString: bouncer.url, max: 1, pipeline: true } as pg.PoolConfig));
    const dbs = pools.map((p) => poolDb(p, p, bounds, undefined, names));
    try {
      for (let i = 0; i < 20 && names.on(); i++) {
        const db = dbs[i % 2]!;
        expect((await db.query<{ n: number }>(HOT, [i], "hot")).rows).toEqual([{ n: i + 1 }]);
        expect((await db.batch([{ text: HOT, params: [i], name: "hot" }]))[0]).toEqual([{ n: i + 1 }]);
      }
      expect(names.on()).toBe(false);
      expect((await dbs[0]!.query<{ n: number }>(HOT, [41], "hot")).rows).toEqual([{ n: 42 }]);
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
      await bouncer.stop();
    }
  });

  it("a store that detects the pooler writes and follows through it with unnamed statements", async () => {
    const bouncer = await startPgBouncer("transaction");
    const schema = randomSchema();
    schemas.push(schema);
    const errors: Error[] = [];
    const store = createPostgresStore({ connectionString: bouncer.url, schema, onError: (err) => errors.push(err) });
    try {
      await store.migrate();
      expect((await store.connections!()).poolMode).toBe("transaction");
      const threadId = randomId("t");
      const runId = randomId("run");
      await store.ensureThread(threadId, "agent");
      expect(await store.acquireLease(threadId, "me", 60_000)).toBe(true);
      for (let i = 0; i < 30; i++) await store.append(threadId, [ev.delta(runId, `${i}`)], { leaseOwner: "me" });
      expect(await store.heartbeat("me", [threadId], 60_000)).toEqual([threadId]);
      expect((await store.read(threadId)).map((e) => e.seq)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      expect(errors).toEqual([]);
    } finally {
      await store.close();
      await bouncer.stop();
    }
  });
});
