/**
 * SQL of the Citus distribution (server/store/distribution.ts decides what is distributed how):
 * whether the database has Citus, which of the schema's tables are distributed, distributing one,
 * and a thread's shard.
 */
import type { Queryable } from "../db.ts";

/** True when the `citus` extension is installed in this database. */
export async function hasCitus(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ citus: boolean }>(`select exists (select 1 from pg_extension where extname = 'citus') as citus`);
  return rows[0]?.citus === true;
}

/**
 * The schema's tables Citus knows as distributed (`regclass::text` without the schema). Only
 * asked where hasCitus() said yes: pg_dist_partition exists only then.
 */
export async function selectDistributedTables(db: Queryable, schemaName: string): Promise<Set<string>> {
  const { rows } = await db.query<{ relname: string }>(
    `select c.relname
     from pg_dist_partition p
     join pg_class c on c.oid = p.logicalrelid
     join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = $1::text`,
    [schemaName],
  );
  return new Set(rows.map((r) => r.relname));
}

/**
 * Distributes a table by `column`, in the colocation group of `colocateWith` (null: a group of
 * its own). Rows already in it are copied to the shards; writes to it wait meanwhile.
 */
export async function distributeTable(db: Queryable, table: string, column: string, colocateWith: string | null): Promise<void> {
  await db.query(`select create_distributed_table($1::regclass, $2::text, colocate_with => $3::text)`, [table, column, colocateWith ?? "none"]);
}

/** The shard of each of these threads (the shard of `threads` their row hashes to): metadata on the coordinator, no shard is read. */
export async function selectThreadShards(db: Queryable, threadsTable: string, threadIds: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await db.query<{ thread_id: string; shard: string }>(
    `select t.id as thread_id, get_shard_id_for_distribution_column($1::regclass, t.id)::text as shard
     from unnest($2::text[]) as t(id)`,
    [threadsTable, threadIds],
  );
  return new Map(rows.map((r) => [r.thread_id, r.shard]));
}
