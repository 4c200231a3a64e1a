/**
 * The backends the contract suite runs on. Each test file isolates itself with fresh schemas
 * (random names, dropped afterwards); stores opened on one schema share one database, as two
 * server instances do.
 */
import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { createPgliteStore } from "../../server/store/pglite.ts";
import { createPostgresStore } from "../../server/store/postgres.ts";
import { testPglite } from "../support/pglite.ts";
import type { CommonStoreOptions } from "../../server/store/store.ts";
import type { EventStore } from "../../server/store/types.ts";

export interface StoreBackend {
  name: "pglite" | "postgres" | "citus";
  /** a new store (not migrated) on `schema` of this file's database */
  open(schema: string, opts?: CommonStoreOptions): EventStore;
  /** a query straight to the database, for assertions the store's API does not answer */
  sql<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  dropSchema(schema: string): Promise<void>;
  /** Citus: how many shards these threads' rows are on (absent: one node) */
  shardGroups?(schema: string, threadIds: readonly string[]): Promise<number>;
  /** frees what the backend holds for this file */
  dispose(): Promise<void>;
}

/** One in-memory PGlite instance for the file; every store of the file shares it. */
export function pgliteBackend(): StoreBackend {
  let instance: PGlite | undefined;
  const db = () => (instance ??= testPglite());
  return {
    name: "pglite",
    open: (schema, opts) => createPgliteStore({ ...opts, schema, pglite: db() }),
    async sql<R>(text: string, params?: unknown[]) {
      return (await db().query<R>(text, params)).rows;
    },
    async dropSchema(schema) {
      await db().query(`drop schema if exists "${schema}" cascade`);
    },
    async dispose() {
      await instance?.close();
    },
  };
}

export function postgresBackend(connectionString: string): StoreBackend {
  let pool: pg.Pool | undefined;
  const admin = () => (pool ??= new pg.Pool({ connectionString, max: 2 }));
  return {
    name: "postgres",
    open: (schema, opts) => createPostgresStore({ ...opts, schema, connectionString }),
    async sql<R>(text: string, params?: unknown[]) {
      return (await admin().query(text, params)).rows as R[];
    },
    async dropSchema(schema) {
      await admin().query(`drop schema if exists "${schema}" cascade`);
    },
    async dispose() {
      await pool?.end();
    },
  };
}
