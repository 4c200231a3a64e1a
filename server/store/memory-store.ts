/**
 * Memory across threads as the store offers it (EventStore.memory, sql/memory.ts): per tenant,
 * namespaced keys to JSON values. A write checks the tenant's bounds and writes in one
 * transaction, its usage row locked first: two writers of one tenant cannot both pass a bound
 * that only one of them fits in. A write that does not fit writes nothing and says which bound.
 */
import type { Db } from "./db.ts";
import {
  addMemoryUsage,
  deleteMemoryEntry,
  lockMemoryUsage,
  searchMemory,
  selectMemoryByPrefix,
  selectMemoryBytes,
  selectMemoryEntry,
  upsertMemoryEntry,
  type MemoryEntry,
} from "./sql/memory.ts";

export type { MemoryEntry } from "./sql/memory.ts";

export interface MemoryBounds {
  maxEntries: number;
  maxBytes: number;
}

export type MemoryPut =
  | { ok: true; entry: MemoryEntry; created: boolean }
  | { ok: false; bound: "entries" | "bytes"; usage: { entries: number; bytes: number } };

export interface MemorySearch {
  namespace: string;
  prefix: string;
  /** full-text query; absent: by key order */
  query?: string;
  /** a query matches entries with any of its words (an agent's question), not all of them */
  any?: boolean;
  /** key order only: entries after this key */
  after?: string;
  limit: number;
}

export interface MemoryStore {
  /** `json`: the value as JSON text; `bytes` its UTF-8 size (counted against maxBytes). */
  put(tenantId: string, entry: { namespace: string; key: string; json: string; bytes: number }, bounds: MemoryBounds, now: number): Promise<MemoryPut>;
  get(tenantId: string, namespace: string, key: string): Promise<MemoryEntry | null>;
  delete(tenantId: string, namespace: string, key: string): Promise<boolean>;
  search(tenantId: string, search: MemorySearch): Promise<MemoryEntry[]>;
}

type Retry = <T>(fn: () => Promise<T>) => Promise<T>;

export function memoryStore(db: Db, s: string, retry: Retry, readRetry: Retry): MemoryStore {
  return {
    // Retried: the same value written twice is the same as once.
    put: (tenantId, e, bounds, now) =>
      retry(() =>
        db.transaction(async (tx): Promise<MemoryPut> => {
          const usage = await lockMemoryUsage(tx, s, tenantId);
          const old = await selectMemoryBytes(tx, s, tenantId, e.namespace, e.key);
          const entries = usage.entries + (old === null ? 1 : 0);
          const bytes = usage.bytes - (old ?? 0) + e.bytes;
          if (old === null && entries > bounds.maxEntries) return { ok: false, bound: "entries", usage };
          if (bytes > bounds.maxBytes && e.bytes > (old ?? 0)) return { ok: false, bound: "bytes", usage };
          const entry = await upsertMemoryEntry(tx, s, tenantId, { ...e, now });
          await addMemoryUsage(tx, s, tenantId, entries - usage.entries, bytes - usage.bytes);
          return { ok: true, entry, created: old === null };
        }),
      ),
    get: (tenantId, namespace, key) => readRetry(() => selectMemoryEntry(db, s, tenantId, namespace, key)),
    // Not retried: a retry after a delete whose reply was lost would answer "not found".
    delete: (tenantId, namespace, key) =>
      db.transaction(async (tx) => {
        await lockMemoryUsage(tx, s, tenantId);
        const bytes = await deleteMemoryEntry(tx, s, tenantId, namespace, key);
        if (bytes === null) return false;
        await addMemoryUsage(tx, s, tenantId, -1, -bytes);
        return true;
      }),
    search: (tenantId, q) =>
      readRetry(() =>
        q.query === undefined
          ? selectMemoryByPrefix(db, s, tenantId, q.namespace, q.prefix, q.after ?? "", q.limit)
          : searchMemory(db, s, tenantId, q.namespace, q.query, q.prefix, q.any ?? false, q.limit),
      ),
  };
}
