/**
 * A transient loss in the middle of a migration rolls it back and tries it again, which then
 * applies it once (issue 29): its backend terminated mid-statement (57P01), and terminated while
 * its COMMIT was in flight, whose outcome the client never hears (the next attempt's claim reads
 * it). Instances started together on a starved CPU: test/server/starved-start.test.ts.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { migrate, type Migration } from "../../server/store/migrate.ts";
import { migrationBounds } from "../../server/store/migration-bounds.ts";
import { connectionConfig, DEFAULT_DB_TIMEOUTS } from "../../server/store/pg-connections.ts";
import { poolDb } from "../../server/store/pool-db.ts";
import { schemaNames } from "../../server/store/schema.ts";
import { testSchema } from "../support/schemas.ts";

const DATABASE_URL = process.env.DATABASE_URL;

describe.skipIf(!DATABASE_URL)("a migration's transient loss (Postgres)", () => {
  /**
   * Runs `migrations` (the last one waits until the test made its `terminated` marker), ends
   * the migration's backend once while it runs `where` (a statement of the script, or its
   * COMMIT), and returns how many rows `attempts` has: one per committed attempt.
   */
  async function terminatedOnce(where: "statement" | "commit", migrations: Migration[], schema: string): Promise<{ terminated: number; attempts: number; applied: number[] }> {
    const s = `"${schema}"`;
    const app = `tl-test-migrate-${where}`;
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    const pool = new pg.Pool({ ...connectionConfig(DATABASE_URL!, app, DEFAULT_DB_TIMEOUTS), max: 1, pipeline: true } as pg.PoolConfig);
    pool.on("error", () => {});
    const db = poolDb(pool, pool, migrationBounds(DEFAULT_DB_TIMEOUTS.tcpMs));
    try {
      const running = migrate(db, schemaNames(schema), { migrations });
      const failed = running.then(() => undefined, (err: unknown) => err);
      let terminated = 0;
      // Polled: pg_stat_activity is the only place another session's statement in flight shows.
      while (terminated === 0) {
        const { rows } = await admin.query<{ pid: number }>(
          `select pid from pg_stat_activity where application_name = $1::text and state = 'active'
             and (case when $2::text = 'commit' then query ilike 'commit%' else query like '%pg_sleep%' end)`,
          [app, where],
        );
        if (rows.length > 0) {
          await admin.query(`create table ${s}.terminated ()`);
          await admin.query(`select pg_terminate_backend($1::int)`, [rows[0]!.pid]);
          terminated = rows.length;
        } else if (await Promise.race([failed, new Promise((r) => setTimeout(() => r("waiting"), 50))]) !== "waiting") break;
      }
      await running;
      const { rows } = await admin.query<{ n: string }>(`select count(*) as n from ${s}.attempts`);
      const applied = await admin.query<{ id: number }>(`select id from ${s}.migrations order by id`);
      return { terminated, attempts: Number(rows[0]!.n), applied: applied.rows.map((r) => r.id) };
    } finally {
      await admin.end();
      await db.close();
    }
  }

  const attemptsTable: Migration = { id: 1, name: "attempts", sql: `create table :THREADLINE_SCHEMA.attempts (at timestamptz not null default now());` };

  it("a migration whose session is terminated mid-statement (57P01) is rolled back and tried again: applied once", async () => {
    const schema = testSchema("mig");
    const result = await terminatedOnce(
      "statement",
      [
        attemptsTable,
        { id: 2, name: "waits", sql: `insert into :THREADLINE_SCHEMA.attempts default values;\nselect pg_sleep(30) where to_regclass('${schema}.terminated') is null;` },
      ],
      schema,
    );
    expect(result).toEqual({ terminated: 1, attempts: 1, applied: [1, 2] });
  });

  it("a migration whose COMMIT loses its connection (outcome unknown) is re-checked through its claim and tried again: applied once", async () => {
    const schema = testSchema("mig");
    // A deferred constraint trigger runs at COMMIT: the first attempt's COMMIT waits there
    // until the test ends its session, so the client hears no answer to its COMMIT.
    const result = await terminatedOnce(
      "commit",
      [
        attemptsTable,
        {
          id: 2,
          name: "slow_commit",
          sql: `create function :THREADLINE_SCHEMA.slow_commit() returns trigger language plpgsql as $$
begin
  perform pg_sleep(30) where to_regclass('${schema}.terminated') is null;
  return null;
end $$;
create constraint trigger slow_commit after insert on :THREADLINE_SCHEMA.attempts
  deferrable initially deferred for each row execute function :THREADLINE_SCHEMA.slow_commit();
insert into :THREADLINE_SCHEMA.attempts default values;`,
        },
      ],
      schema,
    );
    expect(result).toEqual({ terminated: 1, attempts: 1, applied: [1, 2] });
  });
});
