/**
 * Whether a Postgres URL keeps a session per client connection (a direct server, or a pooler in
 * session mode) or hands each transaction whatever server connection is free (a transaction-mode
 * pooler: PgBouncer's pool_mode=transaction, Supabase's port 6543, Neon's `-pooler` host, RDS
 * Proxy once pinned state is refused). LISTEN and advisory locks need the former.
 *
 * Detection asks the server who answers: client A reads pg_backend_pid(); client B, opened while
 * A's connection is still open and idle, begins a transaction and reads its pid; then A reads its
 * pid again. On a session A's backend is A's alone, so B's differs and A's is unchanged. Under
 * transaction pooling A holds no backend between statements: B is given A's (PgBouncer reuses
 * the last freed server first), or, if not, A's next statement lands on another one while B holds
 * its own. Rejected: `SHOW pool_mode` (PgBouncer's admin console, not reachable as a client);
 * comparing two pids of one client (a quiet transaction pooler hands the same server back, which
 * looks like a session); a LISTEN/NOTIFY round trip (its failure shows only as a timeout, seconds
 * at every start). A pooler that defeats this can be declared with DATABASE_POOL_MODE.
 */
import pg from "pg";

export type PoolMode = "session" | "transaction";
/** What the operator declares (DATABASE_POOL_MODE): "direct" is a session without a pooler. */
export type PoolModeSetting = "auto" | "session" | "transaction" | "direct";

export async function detectPoolMode(config: pg.ClientConfig): Promise<PoolMode> {
  const a = new pg.Client(config);
  const b = new pg.Client(config);
  // A probe client that breaks emits "error"; unheard, it would crash the process. Its query
  // rejects as well, which is what reports the failure.
  const ignore = () => {};
  a.on("error", ignore);
  b.on("error", ignore);
  try {
    await a.connect();
    await b.connect();
    const pidA = await backendPid(a);
    await b.query("begin");
    const pidB = await backendPid(b);
    const pidA2 = await backendPid(a);
    await b.query("rollback");
    return pidA === pidB || pidA !== pidA2 ? "transaction" : "session";
  } finally {
    // Best-effort: the probe's answer (or its error) is already decided.
    await Promise.allSettled([a.end(), b.end()]);
  }
}

async function backendPid(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ pid: number }>("select pg_backend_pid() as pid");
  return rows[0]!.pid;
}
