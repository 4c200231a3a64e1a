/**
 * A data directory's PGlite on a worker thread, as a PgliteSession. Opening PGlite is one
 * synchronous call into its WASM (initdb for a new directory, then the backend's start): a new
 * directory held the event loop 12–18 s with two busy loops per core, and reopening one 2.4–5.6 s
 * (docs/startup.md), while the server already listened and its /healthz went unanswered. Here the
 * main thread goes on meanwhile, and every statement after runs there too, so a big read or a
 * flush no longer stalls the loop that serves the streams either. The cost: each call is a
 * message each way and its rows are copied (structured clone) once.
 * Rejected: the worker for initdb only (the reopen's stall stayed), and the WASM's work split
 * into turns (it is one call into Postgres's own start).
 *
 * The worker is referenced only while a call is outstanding: an application that forgets close()
 * still exits, as it does with a PGlite of its own thread.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { QueryResult, Row, Statement, Tx } from "./db.ts";
import type { PgliteSession } from "./pglite-session.ts";
import { PGLITE_WORKER } from "./pglite-thread-worker.ts";

interface Reply {
  id?: number;
  ok?: boolean;
  value?: unknown;
  error?: Record<string, unknown> & { message: string };
  notify?: number;
  payload?: string;
}

/** Opens `dataDir`'s PGlite on a worker thread (made first when the directory has no cluster). */
export async function openPgliteOnThread(dataDir: string): Promise<PgliteSession> {
  const worker = new Worker(PGLITE_WORKER, { eval: true, workerData: { pglite: createRequire(import.meta.url).resolve("@electric-sql/pglite"), dataDir } });
  worker.unref();
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const listeners = new Map<number, (payload: string) => void>();
  let next = 0;
  let stopped: Error | undefined;
  let closed = false;
  worker.on("message", (m: Reply) => {
    if (m.notify !== undefined) return listeners.get(m.notify)?.(m.payload ?? "");
    const call = pending.get(m.id!);
    if (!call) return;
    pending.delete(m.id!);
    if (pending.size === 0) worker.unref();
    if (m.ok) call.resolve(m.value);
    else call.reject(Object.assign(new Error(m.error!.message), m.error));
  });
  const fail = (err: Error) => {
    stopped ??= err;
    for (const call of pending.values()) call.reject(err);
    pending.clear();
  };
  worker.on("error", fail);
  worker.on("exit", (code) => fail(new Error(`the embedded database's thread exited (${code})`)));
  const call = <T>(op: string, args: Record<string, unknown> = {}): Promise<T> => {
    if (stopped) return Promise.reject(stopped);
    const id = next++;
    if (pending.size === 0) worker.ref();
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.postMessage({ id, op, ...args });
    });
  };
  try {
    await call("open");
  } catch (err) {
    await worker.terminate();
    throw err;
  }
  let nextTx = 0;
  const query = <R>(text: string, params?: readonly unknown[], tx?: number) => call<QueryResult<R>>("query", { text, params, tx });
  return {
    query: (text, params) => query(text, params),
    async transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      const tx = nextTx++;
      await call("begin", { tx });
      let result: T;
      try {
        result = await fn({ query: (text, params) => query(text, params, tx), exec: (script) => call("exec", { script, tx }) });
      } catch (err) {
        await call("end", { tx, commit: false });
        throw err;
      }
      await call("end", { tx, commit: true });
      return result;
    },
    batch: (statements: readonly Statement[]) => call<Row[][]>("batch", { statements: statements.map(({ text, params, name }) => ({ text, params, name })) }),
    async listen(channel, onPayload) {
      const listener = next++;
      listeners.set(listener, onPayload);
      await call("listen", { channel, listener });
      return async () => {
        listeners.delete(listener);
        if (!closed) await call("unlisten", { listener });
      };
    },
    get closed() {
      return closed;
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await call("close");
      } finally {
        await worker.terminate();
      }
    },
  };
}
