/**
 * Where the schema's threads live: on one node (Postgres, PGlite, Citus with DATABASE_DISTRIBUTE=off)
 * or on Citus shards (distribution.ts). On shards, a statement that names threads of two shards
 * would fan out, and a write would commit on two nodes in a two-phase commit: the writer's flush,
 * the heartbeat and the release of leases group their threads by shard first, one statement (or
 * one transaction) per shard, in thread_id order within each as before.
 *
 * A thread's shard is asked of the coordinator once per thread (get_shard_id_for_distribution_column,
 * metadata only) and kept: shards move between nodes (rebalancing) but a thread's shard changes
 * only when an operator splits shards, and a stale entry then costs a statement that spans two
 * shards, which Citus still runs correctly. Rejected: computing Citus's hash of the thread id here,
 * a copy of Postgres's hash_any that would have to match every Citus release.
 */
import type { Queryable } from "./db.ts";
import type { SchemaNames } from "./schema.ts";
import { hasCitus, selectDistributedTables, selectThreadShards } from "./sql/distribution.ts";

/** Entries past this, the cache starts again: a bound on memory, not a correctness limit. */
const MAX_CACHED_THREADS = 100_000;

export interface Shards {
  /** true once detect() found the schema's threads distributed */
  readonly distributed: boolean;
  /** asks the database (at migrate(), and before the first statement that groups) */
  detect(): Promise<void>;
  /** `distributed`, once the database was asked (here, when nothing asked it yet) */
  onShards(): Promise<boolean>;
  /** the items grouped by their thread's shard, each group in the items' order; one group on one node */
  group<T>(items: readonly T[], threadOf: (item: T) => string): Promise<T[][]>;
}

export function schemaShards(db: Queryable, schema: SchemaNames): Shards {
  let distributed = false;
  let detected: Promise<void> | undefined;
  const shardOf = new Map<string, string>();
  const table = `${schema.ident}.threads`;

  async function detect(): Promise<void> {
    distributed = (await hasCitus(db)) && (await selectDistributedTables(db, schema.name)).has("threads");
  }

  /** A failed detection is asked again next time, not kept: it was the database that failed, not the answer. */
  function ask(): Promise<void> {
    const asking = detect().catch((err: unknown) => {
      if (detected === asking) detected = undefined;
      throw err;
    });
    detected = asking;
    return asking;
  }

  return {
    get distributed() {
      return distributed;
    },
    detect: ask,
    async onShards() {
      await (detected ?? ask());
      return distributed;
    },
    async group<T>(items: readonly T[], threadOf: (item: T) => string): Promise<T[][]> {
      await (detected ?? ask());
      if (!distributed || items.length === 0) return items.length === 0 ? [] : [[...items]];
      const unknown = [...new Set(items.map(threadOf).filter((t) => !shardOf.has(t)))];
      if (unknown.length > 0) {
        if (shardOf.size + unknown.length > MAX_CACHED_THREADS) shardOf.clear();
        for (const [thread, shard] of await selectThreadShards(db, table, unknown)) shardOf.set(thread, shard);
      }
      const groups = new Map<string, T[]>();
      for (const item of items) {
        const shard = shardOf.get(threadOf(item)) ?? "";
        const group = groups.get(shard);
        if (group) group.push(item);
        else groups.set(shard, [item]);
      }
      return [...groups.values()];
    },
  };
}
