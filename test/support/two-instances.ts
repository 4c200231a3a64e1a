/**
 * Two Threadline instances on one schema, as two processes have them. On Postgres each has its own
 * store, so each hears the other's appends only through the database's doorbell; PGlite is one
 * database inside this process, so the two share its store. Rejected: two stores on PGlite too,
 * which would be two separate databases and no longer one thread seen from two instances.
 */
import type { EventStore } from "../../server/store/types.ts";
import { type BackendName, openStore, startTestServer, type TestServer, type TestServerOptions, testSchema } from "./server.ts";

export interface TwoInstances {
  a: TestServer;
  b: TestServer;
  /** A's store: the log both write to, for reading what was kept. */
  store: EventStore;
  close(): Promise<void>;
}

/** Starts instance-a and instance-b with the same options (agents, env…) on a fresh schema. */
export async function startTwoInstances(backend: BackendName, opts: Omit<TestServerOptions, "backend" | "store" | "leaseOwner"> = {}): Promise<TwoInstances> {
  const schema = testSchema();
  const store = openStore(backend, schema);
  const storeB = backend === "postgres" ? openStore(backend, schema) : undefined;
  const started: TestServer[] = [];
  const close = async () => {
    for (const server of started) await server.close();
    await store.close();
    await storeB?.close();
  };
  try {
    started.push(await startTestServer({ ...opts, backend, store, leaseOwner: "instance-a" }));
    started.push(await startTestServer({ ...opts, backend, store: storeB ?? store, leaseOwner: "instance-b" }));
  } catch (err) {
    await close();
    throw err;
  }
  return { a: started[0]!, b: started[1]!, store, close };
}
