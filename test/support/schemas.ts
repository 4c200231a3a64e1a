/**
 * The Postgres schemas a test file creates, and their removal: every name testSchema() hands
 * out is remembered, and when the file ends (test/support/teardown.ts, a setup file of every
 * test file) each is dropped and the database is asked whether any is left, which fails the file.
 * Rejected: dropping in each store's close(), which the tests that restart a server on the same
 * schema (recovery, takeover) would trip over, and a sweep of every `t_` schema, which would drop
 * the schemas of other runs sharing the database.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";

const created = new Set<string>();

/** A fresh schema name, remembered for the drop when the file ends. */
export function testSchema(prefix = "t"): string {
  const schema = `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
  created.add(schema);
  return schema;
}

/**
 * Bound on waiting for a lock the drop needs: a server the file left running still holds its
 * tables. Past it the drop fails, and the leak is reported, rather than the file hanging.
 */
const DROP_LOCK_TIMEOUT_MS = 10_000;

/**
 * Drops every schema this process named on the database at `url`, then returns those that still
 * exist (none, unless a drop failed).
 */
export async function dropTestSchemas(url: string): Promise<{ dropped: number; left: string[]; errors: string[] }> {
  const names = [...created];
  if (names.length === 0) return { dropped: 0, left: [], errors: [] };
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const errors: string[] = [];
  try {
    await client.query(`set lock_timeout = ${DROP_LOCK_TIMEOUT_MS}`);
    for (const schema of names) {
      try {
        await client.query(`drop schema if exists "${schema}" cascade`);
        created.delete(schema);
      } catch (err) {
        errors.push(`${schema}: ${(err as Error).message}`);
      }
    }
    const { rows } = await client.query<{ nspname: string }>("select nspname from pg_namespace where nspname = any($1::text[])", [names]);
    return { dropped: names.length - rows.length, left: rows.map((r) => r.nspname), errors };
  } finally {
    await client.end();
  }
}
