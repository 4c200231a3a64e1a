/**
 * The backends the contract suite runs on. Each test file isolates itself with fresh schemas
 * (random names, dropped afterwards); stores opened on one schema share one database, as two
 * server instances do.
 */
import type { PGlite } from "@electric-sql/pglite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { createPgliteStore } from "../../server/store/pglite.ts";
import type { PgliteSession } from "../../server/store/pglite-session.ts";
import { openPgliteOnThread } from "../../server/store/pglite-thread.ts";
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

/**
 * One PGlite on a worker thread for the file, under a fresh directory (what a server's DATA_DIR
 * gets: pglite-thread.ts); every store of the file shares its session.
 */
export function pgliteThreadBackend(): StoreBackend {
  const dir = mkdtempSync(path.join(tmpdir(), "threadline-thread-"));
  let opening: Promise<PgliteSession> | undefined;
  const db = () => (opening ??= openPgliteOnThread(dir));
  // open() is synchronous: the stores get a session that waits for the thread's on each call.
  const shared: PgliteSession = {
    query: async (text, params) => (await db()).query(text, params),
    transaction: async (fn) => (await db()).transaction(fn),
    batch: async (statements) => (await db()).batch(statements),
    listen: async (channel, onPayload) => (await db()).listen(channel, onPayload),
    closed: false,
    close: async () => (await db()).close(),
  };
  return {
    name: "pglite",
    open: (schema, opts) => createPgliteStore({ ...opts, schema, pglite: shared }),
    async sql<R>(text: string, params?: unknown[]) {
      return (await (await db()).query<R>(text, params)).rows;
    },
    async dropSchema(schema) {
      await (await db()).query(`drop schema if exists "${schema}" cascade`);
    },
    async dispose() {
      await (await opening)?.close();
      rmSync(dir, { recursive: true, force: true });
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
