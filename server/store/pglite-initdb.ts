/**
 * A new embedded cluster made on a worker thread. PGlite's initdb is one synchronous call into
 * its WASM (initdb and the bootstrap backend, callMain): 2 s of CPU on a quiet machine, and it
 * held the event loop 12–18 s with two busy loops per core, while the server was already
 * listening (its /healthz and /readyz unanswered: a liveness probe would have killed it). On a
 * worker the main thread goes on; the worker's PGlite closes once the cluster is on disk, and the
 * store's own PGlite then opens it as any existing directory (docs/startup.md). Rejected: the
 * whole PGlite on a worker (every query a message, the prepared batches with it), for a step that
 * happens once per directory.
 *
 * The worker is plain JavaScript given as text (eval), loading PGlite's CommonJS build by its
 * resolved path: no loader needed, from source, dist, or a test runner alike.
 */
import { access } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";

const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const { PGlite } = require(workerData.pglite);
(async () => {
  const pg = new PGlite(workerData.dataDir);
  await pg.waitReady;
  await pg.close();
})().then(
  () => parentPort.postMessage({ ok: true }),
  (err) => parentPort.postMessage({ ok: false, message: String((err && err.message) || err), code: err && err.code }),
);
`;

/** Whether `dataDir` holds a cluster already: PGlite, like Postgres, skips initdb when PG_VERSION is there. */
export async function hasCluster(dataDir: string): Promise<boolean> {
  return access(path.join(dataDir, "PG_VERSION")).then(
    () => true,
    () => false,
  );
}

/** Runs PGlite's initdb on `dataDir` on a worker thread; rejects with what PGlite said. */
export function initClusterOffThread(dataDir: string): Promise<void> {
  const pglite = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { eval: true, workerData: { pglite, dataDir } });
    worker.once("message", (m: { ok: boolean; message?: string; code?: string }) => {
      if (m.ok) resolve();
      else reject(Object.assign(new Error(m.message), m.code ? { code: m.code } : {}));
    });
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the worker making the embedded database exited (${code}) before it was made`)));
  });
}
