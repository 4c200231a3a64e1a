/**
 * The EventStore contract: one suite, run on every backend (pglite.test.ts, postgres.test.ts).
 * The file's stores live in one fresh schema; tests that need an empty database (migrations,
 * listing, claiming, compaction) get their own schema. "peer" is a second store on the same
 * schema: another pool on Postgres, as a second server instance would have.
 */
import { afterAll, beforeAll, describe } from "vitest";
import type { CommonStoreOptions } from "../../server/store/store.ts";
import type { EventStore } from "../../server/store/types.ts";
import type { StoreBackend } from "./backends.ts";
import { admissionContract } from "./contract-admission.ts";
import { checkpointsContract } from "./contract-checkpoints.ts";
import { compactedContract } from "./contract-compacted.ts";
import { logContract } from "./contract-log.ts";
import { outboxContract } from "./contract-outbox.ts";
import { threadsContract } from "./contract-threads.ts";
import { randomSchema } from "./fixtures.ts";

export interface ContractContext {
  backend: StoreBackend;
  /** the file's migrated store */
  store(): EventStore;
  /** another store on the file's schema */
  peer(): EventStore;
  /** a new store (not migrated) on a schema, closed after the file */
  open(schema: string, opts?: CommonStoreOptions): EventStore;
  /** a new schema, dropped after the file */
  freshSchema(): string;
  /** the schema of store() and peer() */
  schema(): string;
  /** a migrated store and a peer on a new schema of their own */
  freshPair(): Promise<{ store: EventStore; peer: EventStore; schema: string }>;
}

export function storeContract(backend: StoreBackend): void {
  describe(`EventStore contract (${backend.name})`, () => {
    const schemas: string[] = [];
    const stores: EventStore[] = [];
    let main: EventStore | undefined;
    let other: EventStore | undefined;
    let mainSchema = "";

    const ctx: ContractContext = {
      backend,
      store: () => main!,
      peer: () => other!,
      schema: () => mainSchema,
      open(schema, opts) {
        const s = backend.open(schema, opts);
        stores.push(s);
        return s;
      },
      freshSchema() {
        const schema = randomSchema();
        schemas.push(schema);
        return schema;
      },
      async freshPair() {
        const schema = ctx.freshSchema();
        const store = ctx.open(schema);
        await store.migrate();
        return { store, peer: ctx.open(schema), schema };
      },
    };

    beforeAll(async () => {
      const schema = ctx.freshSchema();
      mainSchema = schema;
      main = ctx.open(schema);
      await main.migrate();
      other = ctx.open(schema);
    });

    afterAll(async () => {
      await Promise.all(stores.map((s) => s.close()));
      for (const schema of schemas) await backend.dropSchema(schema);
      await backend.dispose();
    });

    logContract(ctx);
    threadsContract(ctx);
    outboxContract(ctx);
    admissionContract(ctx);
    checkpointsContract(ctx);
    compactedContract(ctx);
  });
}
