/**
 * What a Threadline reports about itself, logged and never fatal: each agent's model (at
 * createThreadline), and once the start has opened the store, how the database is reached (pool
 * mode, doorbell, the bounds in effect) and whether the workspaces and the command sandbox can be
 * used.
 */
import type { Logger } from "./logger.ts";
import type { ConnectionReport, EventStore } from "./store/types.ts";
import type { WorkspaceHost } from "./workspace/tools.ts";

/** One line naming each agent's model: which model answers is the first thing to check when answers look wrong. */
export function logModels(ids: Record<string, string> | undefined, logger: Logger): void {
  if (ids) logger.info({ models: ids }, `agents' models: ${Object.entries(ids).map(([agent, model]) => `${agent} → ${model}`).join(", ")}`);
  else logger.info("agents' models: the application's model factory decides per run");
}

/**
 * The path the store took to its database, and the bounds the server applies, as it reported
 * them inside a statement: an operator sees a pooler that dropped them here, not in an outage.
 */
export function logConnections(report: ConnectionReport, logger: Logger): void {
  const doorbell = {
    listen: "LISTEN on a session of DATABASE_URL",
    "listen-direct": "LISTEN on a session of DATABASE_DIRECT_URL",
    polling: `polling every ${report.pollIntervalMs} ms (no session: set DATABASE_DIRECT_URL to a direct connection for LISTEN)`,
  }[report.doorbell];
  logger.info(
    { poolMode: report.poolMode, poolModeFrom: report.poolModeFrom, doorbell: report.doorbell },
    `database: DATABASE_URL is ${report.poolMode === "transaction" ? "a transaction-mode pooler" : "a session (direct or session-mode pooler)"} (${report.poolModeFrom}); other instances are heard by ${doorbell}`,
  );
  const t = report.timeouts;
  logger.info(
    { timeouts: t },
    `database timeouts in effect: statement_timeout=${t.main.statement_timeout} lock_timeout=${t.main.lock_timeout} ` +
      `idle_in_transaction_session_timeout=${t.main.idle_in_transaction_session_timeout} tcp_user_timeout=${t.main.tcp_user_timeout} ` +
      `(lease statements: lock_timeout=${t.lease.lock_timeout})`,
  );
  if (report.warning) logger.warn(report.warning);
}

/**
 * Startup checks of the workspaces: the root is writable and shared with the instances that hold
 * leases now (their markers are visible), and the sandbox starts. Failures are logged, not
 * fatal: the tools say the same to the model when they are called.
 */
export async function checkWorkspace(workspace: WorkspaceHost, store: EventStore, leaseOwner: string, logger: Logger): Promise<void> {
  const { workspaces, sandbox } = workspace;
  try {
    const owners = (await store.listThreads({ status: "RUNNING", limit: 200 })).threads.map((t) => t.leaseOwner).filter((o): o is string => !!o);
    const shared = await workspaces.checkShared(leaseOwner, owners);
    if (shared.unseen.length > 0) {
      logger.error(
        { root: workspaces.root, instances: shared.unseen },
        "the workspace root is not shared with other running instances (their markers are not in it): a run taken over from them will not find its files. Put WORKSPACE_ROOT on storage every instance mounts.",
      );
    } else logger.info({ root: workspaces.root, marker: shared.marker }, "workspaces: root ready (every instance must use this same shared storage)");
  } catch (err) {
    logger.error({ err, root: workspaces.root }, "the workspace root cannot be used: the coding tools will fail until it is writable");
  }
  const status = await sandbox.probe(workspaces.meta).catch((err: Error) => ({ ok: false as const, reason: err.message }));
  if (!status.ok) logger.error({ reason: status.reason }, "the command sandbox cannot start: bash and run will refuse to execute (set UNSAFE_RUN_COMMANDS_WITHOUT_SANDBOX=true only on a machine that is itself a sandbox)");
  else if (status.mode === "unsafe-host") logger.warn("UNSAFE_RUN_COMMANDS_WITHOUT_SANDBOX=true: bash and run execute on this host without a sandbox");
  else logger.info({ limits: sandbox.limits, user: sandbox.user }, "command sandbox: bubblewrap");
  if (status.ok && status.budget.scope === "process") {
    logger.warn({ reason: status.budget.reason }, "command budget per process only: memory and process limits hold for each process of a command, not for its whole tree (no cgroup can be made)");
  }
}
