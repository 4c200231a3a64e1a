/**
 * Long migrations, through the runner with test-only migration lists (a release's own list is
 * the generated module; these stand for a later one):
 * - `no-statement-timeout`: a migration longer than statement_timeout fails without the header
 *   (rolled back, unrecorded) and applies with it; the same outside a transaction.
 * - `no-transaction`: CREATE INDEX CONCURRENTLY, refused inside the migration's transaction,
 *   applies outside it; two migrators racing run it once (the session lock), on Postgres and on
 *   one PGlite shared by two stores.
 * - behind PgBouncer in transaction mode, such a migration is refused, saying to set
 *   DATABASE_DIRECT_URL, and applies once it is set.
 */
import { randomUUID } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { migrate, type Migration } from "../../server/store/migrate.ts";
import { pgliteDb, pgliteLongMigrations } from "../../server/store/pglite.ts";
import { connectionConfig, DEFAULT_DB_TIMEOUTS, storeLongMigrations, type DbTimeouts } from "../../server/store/postgres.ts";
import { migrationBounds } from "../../server/store/migration-bounds.ts";
import { poolDb } from "../../server/store/pool-db.ts";
import { schemaNames } from "../../server/store/schema.ts";
import { sessionPlanner } from "../../server/store/session-plan.ts";
import { lockMigrations, unlockMigrations } from "../../server/store/sql/migrations.ts";
import { pgbouncerMissing, startPgBouncer } from "../support/pgbouncer.ts";

const DATABASE_URL = process.env.DATABASE_URL;
const S = ":THREADLINE_SCHEMA";

const items = (rows: number): Migration => ({
  id: 1,
  name: "items",
  sql: `create table ${S}.items (id int primary key, v text);
insert into ${S}.items select g, md5(g::text) from generate_series(1, ${rows}) g;
-- one row per run of the index migration: "applied once" is one row
create table ${S}.index_runs (at timestamptz not null default now());`,
});

/** CREATE INDEX CONCURRENTLY, written to survive a rerun after a crash (an invalid index is dropped first). */
function indexMigration(header: string): Migration {
  return {
    id: 2,
    name: "items_v_idx",
    sql: `${header}
drop index concurrently if exists ${S}.items_v_idx;
create index concurrently items_v_idx on ${S}.items (v);
insert into ${S}.index_runs default values;`,
  };
}

const sleeper = (id: number, header: string): Migration => ({
  id,
  name: `sleep_${id}`,
  sql: `${header}
select pg_sleep(1);
insert into ${S}.index_runs default values;`,
});

function freshSchema(): string {
  return `lm_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
}

/** A migrator on its own connections, as a store opens them. */
function pgMigrator(opts: { url: string; timeouts?: Partial<DbTimeouts>; directUrl?: string; name?: string }) {
  const timeouts: DbTimeouts = { ...DEFAULT_DB_TIMEOUTS, ...opts.timeouts };
  const name = opts.name ?? "tl-test-migrate";
  const pool = new pg.Pool({ ...connectionConfig(opts.url, name, timeouts), max: 2, pipeline: true } as pg.PoolConfig);
  pool.on("error", () => {});
  // The migration bounds, with the statement bound of `timeouts` (a test shortens it).
  const bounds = { ...migrationBounds(timeouts.tcpMs), statementMs: timeouts.statementMs };
  const db = poolDb(pool, pool, bounds);
  const storeOpts = { connectionString: opts.url, directConnectionString: opts.directUrl, applicationName: name };
  const sessions = sessionPlanner(storeOpts, timeouts, `${name}:probe`);
  const long = storeLongMigrations(storeOpts, timeouts, sessions, bounds);
  return {
    /** application_name of its long-migration connections */
    appName: `${name}:migrate`,
    run: (schema: string, migrations: Migration[]) => migrate(db, schemaNames(schema), { long, migrations }),
    async close() {
      sessions.close();
      await pool.end();
    },
  };
}

async function sql<R>(text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    return (await client.query(text)).rows as R[];
  } finally {
    await client.end();
  }
}

/** Sessions of `appName` waiting for an advisory lock now. */
const lockWaiters = async (appName: string) =>
  Number(
    (
      await sql<{ n: string }>(
        `select count(*) as n from pg_stat_activity where application_name = '${appName}' and wait_event_type = 'Lock' and wait_event = 'advisory'`,
      )
    )[0]!.n,
  );

/** Resolves once `condition` holds, checked every 20 ms, or fails after 20 s naming `what`. */
async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  for (const deadline = Date.now() + 20_000; !(await condition()); ) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const appliedIds = async (schema: string) => (await sql<{ id: number }>(`select id from "${schema}".migrations order by id`)).map((r) => r.id);
const indexRuns = async (schema: string) => Number((await sql<{ n: string }>(`select count(*) as n from "${schema}".index_runs`))[0]!.n);
const indexValid = async (schema: string) =>
  (await sql<{ valid: boolean }>(`select indisvalid as valid from pg_index where indexrelid = '"${schema}".items_v_idx'::regclass`))[0]?.valid;

describe.skipIf(!DATABASE_URL)("long migrations on Postgres", () => {
  const schemas: string[] = [];
  const schema = () => {
    const s = freshSchema();
    schemas.push(s);
    return s;
  };
  afterAll(async () => {
    for (const s of schemas) await sql(`drop schema if exists "${s}" cascade`);
  });

  it("longer than statement_timeout: fails without no-statement-timeout (rolled back, unrecorded), applies with it, in a transaction or outside", async () => {
    const migrator = pgMigrator({ url: DATABASE_URL!, timeouts: { statementMs: 300 } });
    const s = schema();
    try {
      await expect(migrator.run(s, [items(20_000), sleeper(2, "")])).rejects.toThrow(/0002_sleep_2\.sql failed .* rolled back: canceling statement due to statement timeout/);
      expect(await appliedIds(s)).toEqual([1]);
      expect(await indexRuns(s)).toBe(0);

      await migrator.run(s, [items(20_000), sleeper(2, "-- threadline: no-statement-timeout")]);
      expect(await appliedIds(s)).toEqual([1, 2]);

      // Outside a transaction the session carries the bound as well, unless the header lifts it.
      const outside = (extra: string) => sleeper(3, `-- threadline: no-transaction\n${extra}`);
      await expect(migrator.run(s, [items(20_000), sleeper(2, ""), outside("")])).rejects.toThrow(/0003_sleep_3\.sql failed .* outside a transaction: .*statement timeout/);
      expect(await appliedIds(s)).toEqual([1, 2]);
      await migrator.run(s, [items(20_000), sleeper(2, ""), outside("-- threadline: no-statement-timeout")]);
      expect(await appliedIds(s)).toEqual([1, 2, 3]);
      expect(await indexRuns(s)).toBe(2);
    } finally {
      await migrator.close();
    }
  });

  it("CREATE INDEX CONCURRENTLY: refused in the migration's transaction; with no-transaction, two migrators racing apply it once and the index is valid", async () => {
    const [a, b] = [pgMigrator({ url: DATABASE_URL!, name: "tl-test-race-a" }), pgMigrator({ url: DATABASE_URL!, name: "tl-test-race-b" })];
    try {
      const refused = schema();
      await expect(a.run(refused, [items(20_000), indexMigration("")])).rejects.toThrow(/rolled back: (DROP|CREATE) INDEX CONCURRENTLY cannot run inside a transaction block/);
      expect(await appliedIds(refused)).toEqual([1]);

      const s = schema();
      const list = [items(20_000), indexMigration("-- threadline: no-transaction")];
      await a.run(s, [items(20_000)]);
      // The test holds the migration lock until both migrators wait for it, so that they race
      // for it at the same moment when it is freed.
      const holder = new pg.Client({ connectionString: DATABASE_URL });
      await holder.connect();
      try {
        await lockMigrations(holder, s);
        const both = Promise.all([a.run(s, list), b.run(s, list)]);
        await until(async () => (await lockWaiters(a.appName)) + (await lockWaiters(b.appName)) === 2, "both migrators wait for the migration lock");
        await unlockMigrations(holder, s);
        await both;
      } finally {
        await holder.end();
      }
      expect(await appliedIds(s)).toEqual([1, 2]);
      expect(await indexRuns(s)).toBe(1);
      expect(await indexValid(s)).toBe(true);
      // Applied: a later start does not run it again.
      await a.run(s, list);
      expect(await indexRuns(s)).toBe(1);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  const missing = pgbouncerMissing();
  it.skipIf(missing)(`behind a transaction-mode PgBouncer: refused without DATABASE_DIRECT_URL, saying so; applied with it${missing ? ` (skipped: ${missing})` : ""}`, async () => {
    const bouncer = await startPgBouncer("transaction");
    const s = schema();
    const list = [items(20_000), indexMigration("-- threadline: no-transaction")];
    try {
      const pooled = pgMigrator({ url: bouncer.url });
      try {
        await expect(pooled.run(s, list)).rejects.toThrow(
          /0002_items_v_idx\.sql cannot run on schema \w+: it runs outside a transaction .* DATABASE_URL is a transaction-mode pooler, .* set DATABASE_DIRECT_URL to the Postgres server .* nothing of it ran/,
        );
      } finally {
        await pooled.close();
      }
      expect(await appliedIds(s)).toEqual([1]); // the ordinary migration went through the pooler
      expect(await indexRuns(s)).toBe(0);

      const direct = pgMigrator({ url: bouncer.url, directUrl: DATABASE_URL! });
      try {
        await direct.run(s, list);
      } finally {
        await direct.close();
      }
      expect(await appliedIds(s)).toEqual([1, 2]);
      expect(await indexValid(s)).toBe(true);
    } finally {
      await bouncer.stop();
    }
  });
});

describe("long migrations on PGlite", () => {
  it("CREATE INDEX CONCURRENTLY with no-transaction applies once when two stores on one instance race", async () => {
    const pglite = new PGlite();
    try {
      const long = pgliteLongMigrations(async () => pglite, pgliteDb(async () => pglite));
      const list = [items(1_000), indexMigration("-- threadline: no-transaction\n-- threadline: no-statement-timeout")];
      const run = () => migrate(pgliteDb(async () => pglite), schemaNames("lm"), { long, migrations: list });
      await Promise.all([run(), run()]);
      expect((await pglite.query<{ id: number }>(`select id from lm.migrations order by id`)).rows.map((r) => r.id)).toEqual([1, 2]);
      expect((await pglite.query<{ n: number }>(`select count(*)::int as n from lm.index_runs`)).rows[0]!.n).toBe(1);
      expect((await pglite.query<{ valid: boolean }>(`select indisvalid as valid from pg_index where indexrelid = 'lm.items_v_idx'::regclass`)).rows[0]!.valid).toBe(true);
    } finally {
      await pglite.close();
    }
  });
});
