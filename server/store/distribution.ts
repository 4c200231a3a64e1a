/**
 * Threads spread over Citus nodes (docs/scaling.md): when the database has the `citus` extension,
 * migrate() ends by distributing every table of the schema that is not yet distributed, as this
 * list says. The same step distributes a schema made before Citus was there (an existing
 * single-node Threadline on a Citus coordinator): it is what `DATABASE_DISTRIBUTE=auto`, the
 * default, does at every start, and a no-op once everything is distributed.
 *
 * - Per thread, by thread_id, in one colocation group with `threads`: every statement of a run
 *   names its thread, so it is a router statement on the one shard that holds the thread's row,
 *   log, runs and checkpoint, and the foreign keys to threads are between co-located shards.
 * - Per tenant, by tenant_id, in a group of their own (schedules, memory): every statement names
 *   one tenant. Rejected: reference tables, which copy every write to every node in a two-phase
 *   commit, at each schedule tick and each `remember`.
 * - `migrations` stays a local table on the coordinator: it is read at start and by readiness and
 *   written once per migration, and its claim (with the advisory lock of sql/migrations.ts) is
 *   what serialises migrators, which a single node's locks do, as all of them connect there.
 * No reference table: nothing global is written on the hot path (the lease lives on the thread row).
 */
import type { Queryable } from "./db.ts";
import type { SchemaNames } from "./schema.ts";
import { distributeTable, selectDistributedTables } from "./sql/distribution.ts";

interface DistributedTable {
  table: string;
  column: "thread_id" | "tenant_id";
  /** the table whose colocation group it joins (same schema); null: a group of its own */
  colocateWith: string | null;
}

/** In order: a table is distributed after the one it is co-located with. */
export const DISTRIBUTED_TABLES: readonly DistributedTable[] = [
  { table: "threads", column: "thread_id", colocateWith: null },
  { table: "runs", column: "thread_id", colocateWith: "threads" },
  { table: "workflow_events", column: "thread_id", colocateWith: "threads" },
  { table: "checkpoints", column: "thread_id", colocateWith: "threads" },
  { table: "checkpoint_parts", column: "thread_id", colocateWith: "threads" },
  { table: "compacted_deltas", column: "thread_id", colocateWith: "threads" },
  { table: "webhook_outbox", column: "thread_id", colocateWith: "threads" },
  { table: "schedules", column: "tenant_id", colocateWith: null },
  { table: "schedule_runs", column: "tenant_id", colocateWith: "schedules" },
  { table: "memory_entries", column: "tenant_id", colocateWith: "schedules" },
  { table: "memory_usage", column: "tenant_id", colocateWith: "schedules" },
];

/** DATABASE_DISTRIBUTE: "auto" distributes where Citus is installed, "off" leaves every table local. */
export type DistributeSetting = "auto" | "off";

/**
 * Distributes what is not distributed yet, on a database with Citus; returns the tables it
 * distributed. Runs in the caller's transaction, which holds the schema's migration lock: a second
 * migrator waits, then finds them distributed. Sequential mode: the tables' foreign keys make
 * Citus refuse the parallel shard connections of one transaction's DDL.
 */
export async function distributeSchema(tx: Queryable, schema: SchemaNames): Promise<string[]> {
  const done = await selectDistributedTables(tx, schema.name);
  const todo = DISTRIBUTED_TABLES.filter((t) => !done.has(t.table));
  if (todo.length === 0) return [];
  await tx.query(`set local citus.multi_shard_modify_mode to 'sequential'`);
  const name = (table: string) => `${schema.ident}.${table}`;
  for (const t of todo) await distributeTable(tx, name(t.table), t.column, t.colocateWith && name(t.colocateWith));
  return todo.map((t) => t.table);
}
