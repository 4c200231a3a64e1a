/**
 * The store's contract on a PGlite of a data directory, on its worker thread (pglite-thread.ts):
 * what a server's DATA_DIR runs on. The same suite as pglite.test.ts (a PGlite of this thread),
 * so the worker's statements, transactions, batches (its copy of pglite-prepared.ts's) and
 * LISTEN answer as the in-thread ones do.
 */
import { pgliteThreadBackend } from "./backends.ts";
import { storeContract } from "./contract.ts";

storeContract(pgliteThreadBackend());
