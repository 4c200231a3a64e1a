/**
 * SQL of memory across threads (migration 0012, docs/memory.md). Every statement names one
 * tenant (a router statement on Citus, where both tables are distributed by tenant_id). A write
 * is a transaction of these statements (memory-store.ts): the tenant's usage row locked first, so
 * the bounds hold exactly however many writers there are.
 */
import { toMs, toNum, type Queryable } from "../db.ts";

export interface MemoryEntry {
  namespace: string;
  key: string;
  value: unknown;
  createdAt: number;
  updatedAt: number;
}

interface EntryRow {
  namespace: string;
  key: string;
  value: unknown;
  created_at: unknown;
  updated_at: unknown;
}

const entryOf = (r: EntryRow): MemoryEntry => ({ namespace: r.namespace, key: r.key, value: r.value, createdAt: toMs(r.created_at), updatedAt: toMs(r.updated_at) });
const iso = (ms: number) => new Date(ms).toISOString();

/** The tenant's totals, its row made if needed and locked until the transaction ends. */
export async function lockMemoryUsage(db: Queryable, s: string, tenantId: string): Promise<{ entries: number; bytes: number }> {
  await db.query(`insert into ${s}.memory_usage (tenant_id) values ($1::text) on conflict (tenant_id) do nothing`, [tenantId]);
  const { rows } = await db.query<{ entries: unknown; bytes: unknown }>(
    `select entries, bytes from ${s}.memory_usage where tenant_id = $1::text for update`,
    [tenantId],
  );
  return { entries: toNum(rows[0]!.entries), bytes: toNum(rows[0]!.bytes) };
}

/** The size of the entry's value now, or null when there is no such entry. */
export async function selectMemoryBytes(db: Queryable, s: string, tenantId: string, namespace: string, key: string): Promise<number | null> {
  const { rows } = await db.query<{ bytes: unknown }>(
    `select bytes from ${s}.memory_entries where tenant_id = $1::text and namespace = $2::text and key = $3::text`,
    [tenantId, namespace, key],
  );
  return rows[0] ? toNum(rows[0].bytes) : null;
}

export async function upsertMemoryEntry(db: Queryable, s: string, tenantId: string, e: { namespace: string; key: string; json: string; bytes: number; now: number }): Promise<MemoryEntry> {
  const { rows } = await db.query<EntryRow>(
    `insert into ${s}.memory_entries (tenant_id, namespace, key, value, bytes, created_at, updated_at)
     values ($1::text, $2::text, $3::text, $4::jsonb, $5::int, $6::timestamptz, $6::timestamptz)
     on conflict (tenant_id, namespace, key) do update
     set value = excluded.value, bytes = excluded.bytes, updated_at = excluded.updated_at
     returning namespace, key, value, created_at, updated_at`,
    [tenantId, e.namespace, e.key, e.json, e.bytes, iso(e.now)],
  );
  return entryOf(rows[0]!);
}

/** Moves the tenant's totals by these amounts (inside the transaction that locked them). */
export async function addMemoryUsage(db: Queryable, s: string, tenantId: string, entries: number, bytes: number): Promise<void> {
  await db.query(`update ${s}.memory_usage set entries = entries + $2::int, bytes = bytes + $3::bigint where tenant_id = $1::text`, [tenantId, entries, bytes]);
}

/** Deletes the entry; its size, or null when there was none. */
export async function deleteMemoryEntry(db: Queryable, s: string, tenantId: string, namespace: string, key: string): Promise<number | null> {
  const { rows } = await db.query<{ bytes: unknown }>(
    `delete from ${s}.memory_entries where tenant_id = $1::text and namespace = $2::text and key = $3::text returning bytes`,
    [tenantId, namespace, key],
  );
  return rows[0] ? toNum(rows[0].bytes) : null;
}

export async function selectMemoryEntry(db: Queryable, s: string, tenantId: string, namespace: string, key: string): Promise<MemoryEntry | null> {
  const { rows } = await db.query<EntryRow>(
    `select namespace, key, value, created_at, updated_at from ${s}.memory_entries
     where tenant_id = $1::text and namespace = $2::text and key = $3::text`,
    [tenantId, namespace, key],
  );
  return rows[0] ? entryOf(rows[0]) : null;
}

/** `%`, `_` and `\` taken literally in a LIKE pattern. */
function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * A namespace's entries whose key starts with `prefix` ("" for all), in key order from `after`
 * (exclusive; "" from the start), at most `limit`. The key's "C" collation makes the LIKE an
 * index range of the primary key.
 */
export async function selectMemoryByPrefix(db: Queryable, s: string, tenantId: string, namespace: string, prefix: string, after: string, limit: number): Promise<MemoryEntry[]> {
  const { rows } = await db.query<EntryRow>(
    `select namespace, key, value, created_at, updated_at from ${s}.memory_entries
     where tenant_id = $1::text and namespace = $2::text and key like $3::text and key > $4::text
     order by key
     limit $5::int`,
    [tenantId, namespace, likePrefix(prefix), after, limit],
  );
  return rows.map(entryOf);
}

/**
 * A namespace's entries that match `query` by full-text search over the key and the value's
 * strings and numbers, best first (ts_rank), at most `limit`. `any`: an entry matching any of the
 * query's words counts (an agent's question holds words no entry has); otherwise the query reads
 * as a web search does (websearch_to_tsquery: words all present, "quoted phrases", or, -not).
 */
export async function searchMemory(db: Queryable, s: string, tenantId: string, namespace: string, query: string, prefix: string, any: boolean, limit: number): Promise<MemoryEntry[]> {
  const tsquery = any ? `nullif(replace(plainto_tsquery('simple', $3::text)::text, '&', '|'), '')::tsquery` : `websearch_to_tsquery('simple', $3::text)`;
  const { rows } = await db.query<EntryRow>(
    `select namespace, key, value, created_at, updated_at
     from ${s}.memory_entries, (select ${tsquery} as q) t
     where tenant_id = $1::text and namespace = $2::text and key like $4::text and search @@ t.q
     order by ts_rank(search, t.q) desc, key
     limit $5::int`,
    [tenantId, namespace, query, likePrefix(prefix), limit],
  );
  return rows.map(entryOf);
}
