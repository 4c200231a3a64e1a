/**
 * Whether a Postgres URL keeps a session per client connection (a direct server, or a pooler in
 * session mode) or hands each transaction whatever server connection is free (a transaction-mode
 * pooler: PgBouncer's pool_mode=transaction, Supabase's port 6543, Neon's `-pooler` host, RDS
 * Proxy once pinned state is refused). LISTEN and advisory locks need the former.
 *
 * Detection asks the server who answers: client A reads pg_backend_pid(); then, up to
 * PROBE_HOLDERS times, another client begins a transaction (keeping its backend) and reads its
 * pid, and A reads its pid again. On a session A's backend is A's alone, so no holder gets it and
 * A's never changes. Under transaction pooling A holds no backend between statements: a holder is
 * given A's, or A's next statement lands on another one while the holders keep theirs. Rejected: `SHOW pool_mode` (PgBouncer's admin console, not reachable as a client);
 * comparing two pids of one client (a quiet transaction pooler hands the same server back, which
 * looks like a session); a LISTEN/NOTIFY round trip (its failure shows only as a timeout, seconds
 * at every start). A pooler that defeats this can be declared with DATABASE_POOL_MODE.
 */
import pg from "pg";

export type PoolMode = "session" | "transaction";
/** What the operator declares (DATABASE_POOL_MODE): "direct" is a session without a pooler. */
export type PoolModeSetting = "auto" | "session" | "transaction" | "direct";

/**
 * Holders the probe opens at most: each begins a transaction and keeps its backend, so that under
 * transaction pooling the idle backends (the one A just freed among them) are used up and A's
 * next statement must land on another. One was not enough: the server's other pools free
 * backends of their own meanwhile, which PgBouncer hands out first (last freed, first reused).
 */
const PROBE_HOLDERS = 4;
/**
 * Probes with `config`, whose query_timeout bounds each probe statement: a session pooler with
 * every backend bound would make one wait for good. The caller passes the store's own statement
 * bound (pg-connections.ts: DB_STATEMENT_TIMEOUT_MS and a second). Rejected: a shorter bound of
 * the probe's own (it was 2 s): on a loaded machine a statement's answer, or this process's turn
 * to read it, came later than that, and the start failed with "Query read timeout" against a
 * database that was answering.
 */
export async function detectPoolMode(config: pg.ClientConfig): Promise<PoolMode> {
  const clients: pg.Client[] = [];
  // A probe client that breaks emits "error"; unheard, it would crash the process. Its query
  // rejects as well, which is what reports the failure.
  const open = async () => {
    const c = new pg.Client(config);
    c.on("error", () => {});
    clients.push(c);
    await c.connect();
    return c;
  };
  try {
    const a = await open();
    const pidA = await backendPid(a);
    // On a session A's backend is A's alone: no holder is given it and A's never changes. Either
    // seen is proof of transaction pooling; not seeing it after every holder is taken as a session.
    for (let i = 0; i < PROBE_HOLDERS; i++) {
      const holder = await open();
      await holder.query("begin");
      if ((await backendPid(holder)) === pidA) return "transaction";
      if ((await backendPid(a)) !== pidA) return "transaction";
    }
    return "session";
  } finally {
    // Best-effort: the probe's answer (or its error) is already decided.
    await Promise.allSettled(clients.map((c) => c.end()));
  }
}

async function backendPid(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ pid: number }>("select pg_backend_pid() as pid");
  return rows[0]!.pid;
}
