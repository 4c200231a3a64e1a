/**
 * Memory across threads (docs/memory.md): per tenant, namespaced keys to JSON values, searched by
 * key prefix and by text. One owner of its rules for both doors, the HTTP routes and the agents'
 * tools: what a namespace and a key may be, the bounds (a value's size, a tenant's entries and
 * bytes) and the errors that say which was hit and what to do.
 */
import { ConflictError, InvalidRequestError } from "../errors.ts";
import { idProblem } from "../http/ids.ts";
import type { MemoryEntry, MemoryStore } from "../store/memory-store.ts";

export type { MemoryEntry } from "../store/memory-store.ts";

export interface MemoryLimits {
  maxEntries: number;
  maxBytes: number;
  maxValueBytes: number;
}

/** The bounds of README "Configuration" (MEMORY_MAX_*), for an engine built without a configuration. */
export const DEFAULT_MEMORY_LIMITS: MemoryLimits = { maxEntries: 10_000, maxBytes: 10 * 1024 * 1024, maxValueBytes: 64 * 1024 };

/** Letters, digits and `_ . : -`: safe in a URL path segment and a log line. */
export const NAMESPACE = /^[A-Za-z0-9_.:-]{1,100}$/;
export const KEY_MAX = 256;
/** Entries one search answers at most. */
export const MEMORY_SEARCH_MAX = 100;

export interface MemoryQuery {
  namespace: string;
  /** keys that start with it (default: all) */
  prefix?: string;
  /** full-text query over keys and values */
  q?: string;
  /** `q` matches an entry with any of its words (what an agent's question needs), not all */
  any?: boolean;
  /** by key order: entries after this key (the next page) */
  after?: string;
  limit?: number;
}

/** One tenant's memory: what a tool's ctx.memory and the routes use. */
export interface TenantMemory {
  put(namespace: string, key: string, value: unknown): Promise<MemoryEntry>;
  get(namespace: string, key: string): Promise<MemoryEntry | null>;
  delete(namespace: string, key: string): Promise<boolean>;
  search(query: MemoryQuery): Promise<MemoryEntry[]>;
}

export class Memory {
  constructor(private readonly deps: { store: MemoryStore; limits: MemoryLimits }) {}

  forTenant(tenantId: string): TenantMemory {
    const { store, limits } = this.deps;
    return {
      async put(namespace, key, value) {
        checkName(namespace, key);
        const json = JSON.stringify(value);
        if (json === undefined) throw new InvalidRequestError("INVALID_MEMORY_VALUE", "A memory value is JSON: an object, array, string, number, boolean or null.");
        const bytes = Buffer.byteLength(json);
        if (bytes > limits.maxValueBytes) {
          throw new InvalidRequestError("MEMORY_VALUE_TOO_LARGE", `The value is ${bytes} bytes as JSON; one entry holds at most ${limits.maxValueBytes} (MEMORY_MAX_VALUE_BYTES). Store less, or split it over several keys.`, undefined, 413, {
            bytes,
            limit: limits.maxValueBytes,
          });
        }
        const put = await store.put(tenantId, { namespace, key, json, bytes }, { maxEntries: limits.maxEntries, maxBytes: limits.maxBytes }, Date.now());
        if (put.ok) return put.entry;
        const [limit, setting] = put.bound === "entries" ? [limits.maxEntries, "MEMORY_MAX_ENTRIES"] : [limits.maxBytes, "MEMORY_MAX_BYTES"];
        throw new ConflictError(
          "MEMORY_FULL",
          `This tenant's memory is full: ${put.usage.entries} entries, ${put.usage.bytes} bytes, and the bound on ${put.bound} is ${limit} (${setting}). Forget entries that are no longer needed (DELETE), or ask the operator to raise ${setting}.`,
          { bound: put.bound, limit, usage: put.usage },
        );
      },
      get(namespace, key) {
        checkName(namespace, key);
        return store.get(tenantId, namespace, key);
      },
      delete(namespace, key) {
        checkName(namespace, key);
        return store.delete(tenantId, namespace, key);
      },
      search(q) {
        checkName(q.namespace);
        const limit = Math.min(MEMORY_SEARCH_MAX, Math.max(1, Math.floor(q.limit ?? 20)));
        const query = q.q?.trim() ? q.q.trim() : undefined;
        return store.search(tenantId, { namespace: q.namespace, prefix: q.prefix ?? "", ...(query !== undefined && { query, any: q.any ?? false }), ...(q.after !== undefined && { after: q.after }), limit });
      },
    };
  }
}

function checkName(namespace: string, key?: string): void {
  const issues = [];
  if (!NAMESPACE.test(namespace)) issues.push({ path: "namespace", message: "must be 1-100 letters, digits, '_', '.', ':' or '-'" });
  if (key !== undefined) {
    const problem = key.length > KEY_MAX ? `must be at most ${KEY_MAX} characters` : idProblem(key);
    if (problem) issues.push({ path: "key", message: problem });
  }
  if (issues.length > 0) throw new InvalidRequestError("INVALID_MEMORY_KEY", "Fix the namespace or key listed in `issues`.", issues);
}
