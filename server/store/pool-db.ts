/**
 * Statements on a pg.Pool, as the store's Db: each single statement and each transaction carries
 * the bounds (bounds.ts) in its own round trip, so that they hold through a transaction-mode
 * pooler, and a batch goes out pipelined (BEGIN, the bounds, the statements, COMMIT) in one.
 */
import type pg from "pg";
import type { Db, QueryResult, Row, Statement, Tx } from "./db.ts";
import { CommitOutcomeUnknownError, coerceError } from "./errors.ts";
import { beginBoundedScript, type TxBounds } from "./bounds.ts";
import { type PreparedNames, UNNAMED } from "./prepared.ts";
import { isQueryTimeout, sqlStateOf } from "./retry.ts";

/** `onError` sees every failed statement before its caller does. */
function clientQueryable(client: pg.Pool | pg.PoolClient, onError?: (err: unknown) => void) {
  return {
    async query<R = Row>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
      try {
        const result = await client.query(text, params as unknown[] | undefined);
        return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
      } catch (err) {
        onError?.(err);
        throw err;
      }
    },
  };
}

/**
 * `send` with statement names on when they are (prepared.ts), and once more without them when
 * the server refused one: that refusal came before COMMIT, so nothing of the first attempt ran.
 */
async function withNames<T>(names: PreparedNames, send: (named: boolean) => Promise<T>): Promise<T> {
  const named = names.on();
  try {
    return await send(named);
  } catch (err) {
    if (!names.refused(err, named)) throw err;
    return send(false);
  }
}

/**
 * BEGIN, the statements and COMMIT on a pipelined connection: all sent before any answer is
 * read, and answered in order. The first statement the server answers with an error decides:
 * before COMMIT, the transaction never committed (a refusal aborts it, so that COMMIT answers
 * ROLLBACK; a terminated session ends there), so the error is what it says and a transient one
 * may be retried. A connection that broke without the server's word, or a COMMIT whose answer
 * was a broken session, leaves the outcome unknown.
 */
async function pipelinedBatch(pool: pg.Pool, statements: readonly Statement[], begin: string, names: PreparedNames, named: boolean, onWait: OnWait | undefined): Promise<Row[][]> {
  // BEGIN and the bounds are one simple-protocol script: nothing to plan, one message.
  return withClient(pool, onWait, async (client, markBroken) => {
    const sent = corked(client, () => [
      client.query(begin),
      ...statements.map((st) => client.query(names.query(st.text, st.params, st.name, named))),
      client.query("commit"),
    ]);
    const settled = await Promise.allSettled(sent);
    const first = settled.findIndex((r) => r.status === "rejected");
    if (first === -1) {
      const commit = (settled.at(-1) as PromiseFulfilledResult<pg.QueryResult>).value;
      if (commit.command !== "COMMIT") throw new Error(`COMMIT answered ${commit.command}`);
      return settled.slice(1, -1).map((r) => (r as PromiseFulfilledResult<pg.QueryResult>).value.rows as Row[]);
    }
    const err = (settled[first] as PromiseRejectedResult).reason as unknown;
    // The socket refused our bytes (it was reset before them): the COMMIT, written after them on
    // the same stream, never reached the server, so nothing committed and a retry is safe.
    if ((err as { syscall?: unknown }).syscall === "write") {
      markBroken(coerceError(err));
      throw err;
    }
    const code = sqlStateOf(err);
    // pg's client-side query timeout has no SQLSTATE: the socket is silent, the outcome unknown.
    const sessionLost = sessionLostBy(err);
    if (sessionLost) markBroken(coerceError(err));
    if (code !== undefined && (first < settled.length - 1 || !sessionLost)) throw err;
    throw new CommitOutcomeUnknownError(err);
  });
}

/** An error after which the connection is not to be used again: no SQLSTATE, a connection class (08), an operator intervention (57P), or pg's client-side query timeout. */
function sessionLostBy(err: unknown): boolean {
  const code = sqlStateOf(err);
  return code === undefined || code.startsWith("08") || code.startsWith("57P") || isQueryTimeout(err);
}

/**
 * A single statement with the connection's bounds: BEGIN, the bounds (SET LOCAL), the statement
 * and COMMIT, pipelined on one pooled connection, so one round trip as an autocommit statement
 * was, and one transaction, which a transaction-mode pooler keeps on one server connection. The
 * first error the server sends is the statement's answer (a failed statement makes COMMIT answer
 * ROLLBACK); a connection that broke is not given back to the pool.
 */
async function boundedStatement<R>(
  pool: pg.Pool,
  begin: string,
  onWait: OnWait | undefined,
  query: pg.QueryConfig,
): Promise<QueryResult<R>> {
  return withClient(pool, onWait, async (client, markBroken) => {
    const settled = await Promise.allSettled(corked(client, () => [client.query(begin), client.query(query), client.query("commit")]));
    const failed = settled.find((r) => r.status === "rejected");
    if (failed) {
      const err = failed.reason as unknown;
      if (sessionLostBy(err)) markBroken(coerceError(err));
      throw err;
    }
    const result = (settled[1] as PromiseFulfilledResult<pg.QueryResult>).value;
    return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
  });
}

/**
 * Sends what `send` queries in one socket write: a pipelined client writes each query as it is
 * given (its extended-protocol messages corked per query), so a flush of BEGIN, two statements
 * and COMMIT was four writes, each a syscall with its own small packet. Corked around all of
 * them, they leave together when `send` returns. The stream is pg's connection's own (not in its
 * typings); without one (a client that has none), the queries go as before.
 */
function corked<T>(client: pg.PoolClient, send: () => T): T {
  const stream = (client as unknown as { connection?: { stream?: { cork?: () => void; uncork?: () => void } } }).connection?.stream;
  if (!stream?.cork || !stream.uncork) return send();
  stream.cork();
  try {
    return send();
  } finally {
    stream.uncork();
  }
}

/** Told how long each borrow waited for a connection of `pool` (metrics). */
export type OnWait = (pool: pg.Pool, waitedMs: number) => void;

/** A client of `pool`, the wait for it reported. */
async function borrow(pool: pg.Pool, onWait: OnWait | undefined): Promise<pg.PoolClient> {
  if (!onWait) return pool.connect();
  const asked = performance.now();
  const client = await pool.connect();
  onWait(pool, performance.now() - asked);
  return client;
}

/**
 * Runs `use` on a client borrowed from `pool`. A client whose connection broke (its "error"
 * event, or `use` calling `markBroken`) is not given back: release(err) destroys it.
 */
async function withClient<T>(pool: pg.Pool, onWait: OnWait | undefined, use: (client: pg.PoolClient, markBroken: (err: Error) => void) => Promise<T>): Promise<T> {
  const client = await borrow(pool, onWait);
  let broken: Error | undefined;
  const markBroken = (err: Error) => {
    broken = err;
  };
  client.on("error", markBroken);
  try {
    return await use(client, markBroken);
  } finally {
    client.off("error", markBroken);
    client.release(broken);
  }
}

/**
 * The Db of a pg.Pool. With `bounds`, every transaction and every single statement sets them
 * first (bounds.ts); without (an application's own pool), the pool's settings are what hold.
 * `onWait` hears how long each borrowed connection took to come (a single statement on a pool
 * without bounds goes through pool.query, which borrows out of sight).
 */
export function poolDb(pool: pg.Pool, writerPool: pg.Pool = pool, bounds?: TxBounds, onWait?: OnWait, names: PreparedNames = UNNAMED): Db {
  const beginScript = bounds ? beginBoundedScript(bounds) : "begin";
  return {
    kind: "postgres",
    query: bounds
      ? (text, params, name) => withNames(names, (named) => boundedStatement(pool, beginScript, onWait, names.query(text, params, name, named)))
      : clientQueryable(pool).query,

    async transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      const client = await borrow(pool, onWait);
      // A client whose connection broke must not go back to the pool: release(err) destroys it.
      // While checked out, the pool no longer listens to the client's errors: without this
      // listener, a connection dropped mid-transaction would crash the process.
      let broken: Error | undefined;
      const onError = (err: Error) => {
        broken = err;
      };
      // pg's query_timeout answers the caller but leaves the statement in flight on the socket:
      // that client must be destroyed (release with an error ends it, destroying the socket of
      // a client with an active query), not asked for a ROLLBACK that would queue behind it.
      const { query } = clientQueryable(client, (err) => {
        if (isQueryTimeout(err)) broken = coerceError(err);
      });
      const run = (text: string) => query(text);
      client.on("error", onError);
      const tx: Tx = {
        query,
        async exec(script) {
          await run(script);
        },
      };
      try {
        await run(beginScript);
        const result = await fn(tx);
        try {
          await run("commit");
        } catch (err) {
          // The server refused the commit (serialization failure, deferred constraint): the
          // transaction is rolled back and the error is what it says. No answer, or the session
          // ending (class 08, 57P0x): COMMIT was in flight and nobody knows the outcome.
          const code = sqlStateOf(err);
          if (code !== undefined && !code.startsWith("08") && !code.startsWith("57P")) throw err;
          broken = coerceError(err);
          throw new CommitOutcomeUnknownError(err);
        }
        return result;
      } catch (err) {
        if (!broken && !(err instanceof CommitOutcomeUnknownError)) {
          await client.query("rollback").catch((e: unknown) => {
            broken = coerceError(e);
          });
        }
        throw err;
      } finally {
        client.release(broken);
        client.off("error", onError);
      }
    },

    batch: (statements) => withNames(names, (named) => pipelinedBatch(writerPool, statements, beginScript, names, named, onWait)),

    async close() {
      await Promise.all([pool.end(), writerPool === pool ? undefined : writerPool.end()]);
    },
  };
}
