/**
 * Hearing the doorbell: each store keeps one LISTEN on its schema's channel. On Postgres that is
 * one dedicated session connection (not from the pool: LISTEN belongs to a session), reconnected
 * with backoff whenever it breaks; after a reconnect every follower is woken, since rings sent
 * while it was away are lost. On PGlite it is PGlite's own listen(), for stores sharing one
 * PGlite instance.
 */
import type { PgliteSession } from "./pglite-session.ts";
import pg from "pg";
import { coerceError } from "./errors.ts";

export interface DoorbellListener {
  /** Resolves once the LISTEN is in place (starting it on the first call), or when the signal aborts. */
  listening(signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

/** A session for the LISTEN, and how to let it go once it is broken or no longer wanted. */
export interface ListenSession {
  client: pg.ClientBase;
  dispose(): Promise<void>;
}

export interface PgListenerOptions {
  /**
   * The connection settings of a dedicated client, or how to take a session from elsewhere (a
   * user's pg.Pool: `pool.connect()`, given back destroyed so the LISTEN never returns to it).
   */
  client: pg.ClientConfig | (() => Promise<ListenSession>);
  channel: string;
  onPayload: (payload: string) => void;
  /** after the LISTEN was re-established: rings may have been lost meanwhile */
  onReconnect: () => void;
  onError: (err: Error) => void;
}

export function createPgListener(opts: PgListenerOptions): DoorbellListener {
  let current: pg.ClientBase | undefined;
  const { open, discard } = sessions(opts.client, opts.onError);
  let connecting: Promise<void> | undefined;
  let everConnected = false;
  let closed = false;

  async function connectLoop(): Promise<void> {
    for (let attempt = 0; !closed; attempt++) {
      let client: pg.ClientBase | undefined;
      try {
        client = await open((c) => {
          c.on("error", (err) => lost(c, err));
          c.on("end", () => lost(c));
          c.on("notification", (msg) => {
            if (msg.channel === opts.channel) opts.onPayload(msg.payload ?? "");
          });
        });
        await client.query(`listen "${opts.channel}"`);
      } catch (err) {
        opts.onError(coerceError(err));
        if (client) void discard(client);
        const delay = Math.random() * Math.min(5000, 100 * 2 ** attempt);
        await new Promise((resolve) => setTimeout(resolve, delay).unref());
        continue;
      }
      if (closed) {
        await discard(client);
        return;
      }
      current = client;
      if (everConnected) opts.onReconnect();
      everConnected = true;
      return;
    }
  }

  function lost(client: pg.ClientBase, err?: Error): void {
    if (client !== current) return; // a client of a failed attempt: the loop handles it
    current = undefined;
    if (err) opts.onError(err);
    void discard(client);
    if (!closed) connecting = connectLoop();
  }

  return {
    listening(signal) {
      connecting ??= connectLoop();
      return untilAborted(connecting, signal);
    },
    async close() {
      closed = true;
      const client = current;
      current = undefined;
      if (client) await discard(client);
    },
  };
}

/**
 * Where LISTEN sessions come from and how each one goes: `open` gives a session's client,
 * listeners attached before it connects (a dedicated one) or at once (a pooled one); `discard`
 * ends it once, however many times it is called (a broken client reports both error and end).
 */
function sessions(source: PgListenerOptions["client"], onError: (err: Error) => void) {
  const disposers = new WeakMap<pg.ClientBase, () => Promise<void>>();

  async function open(attach: (client: pg.ClientBase) => void): Promise<pg.ClientBase> {
    if (typeof source === "function") {
      const session = await source();
      disposers.set(session.client, session.dispose);
      attach(session.client);
      return session.client;
    }
    const client = new pg.Client(source);
    disposers.set(client, () => client.end());
    attach(client);
    await client.connect();
    return client;
  }

  /**
   * Ends a client that failed or is no longer wanted. Its own failure to end (it is usually
   * broken already) is still reported, so that nothing about the connection goes unseen.
   */
  function discard(client: pg.ClientBase): Promise<void> {
    const dispose = disposers.get(client);
    disposers.delete(client);
    if (!dispose) return Promise.resolve(); // discarded already
    return dispose().catch((err: unknown) => onError(coerceError(err)));
  }

  return { open, discard };
}

/** LISTEN on the PGlite `open` gives (the store opens it on first use). */
export function createPgliteListener(open: () => Promise<PgliteSession>, channel: string, onPayload: (payload: string) => void): DoorbellListener {
  let listened: Promise<{ db: PgliteSession; unlisten: () => Promise<void> }> | undefined;
  return {
    listening(signal) {
      listened ??= open().then(async (db) => ({ db, unlisten: await db.listen(channel, onPayload) }));
      return untilAborted(listened.then(() => undefined), signal);
    },
    async close() {
      // A LISTEN that never got going (the database did not open) has nothing to undo.
      const done = await listened?.catch(() => undefined);
      if (done && !done.db.closed) await done.unlisten();
    },
  };
}

export function untilAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = () => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
    promise.then(done, (err: unknown) => {
      signal.removeEventListener("abort", done);
      reject(err);
    });
  });
}
