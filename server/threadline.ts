/**
 * Threadline as a library: createThreadline(options) builds everything synchronously and does
 * no I/O; `start()` migrates the store and starts the engine (recovery, heartbeats, retention);
 * `router()` is the API to mount under any path of the application's Express app; `close()`
 * stops gracefully, within a bound. The standalone server (main.ts) is one user of this API.
 */
import type { Server } from "node:http";
import { Router, type Express, type RequestHandler } from "express";
import type { Logger } from "pino";
import { AgentRegistry } from "./agents/define.ts";
import { approvalsAgent } from "./agents/approvals-agent.ts";
import { codingAgent } from "./agents/coding-agent.ts";
import { workspaceHostFromConfig, type WorkspaceHost } from "./workspace/tools.ts";
import { defaultAgent } from "./agents/default-agent.ts";
import { demoAgents } from "./agents/demos/index.ts";
import type { Config } from "./config.ts";
import { copilotkitHandler } from "./copilotkit/handler.ts";
import { openDatabase } from "./database.ts";
import { Engine } from "./engine/engine.ts";
import { startRetention } from "./engine/retention.ts";
import { createApp, type EdgeOptions, edgeOptions } from "./http/app.ts";
import { createRouter, edgeMiddleware, notStarted } from "./http/router.ts";
import { SnapshotCache } from "./http/snapshot-cache.ts";
import { clientApp } from "./http/static.ts";
import { createLogger } from "./logger.ts";
import { createMetrics, type Metrics } from "./metrics.ts";
import { modelsFromConfig } from "./models/from-config.ts";
import { drainTimeoutOf, resolveConfig, type ThreadlineOptions } from "./options.ts";
import type { ConnectionReport, EventStore } from "./store/types.ts";
import type { ApiKey } from "./tenant.ts";

export type { ThreadlineOptions } from "./options.ts";

export interface Threadline {
  readonly store: EventStore;
  readonly engine: Engine;
  readonly config: Config;
  readonly logger: Logger;
  /** The AG-UI, thread and connect routes, relative: mount it with `app.use("/ai", threadline.router())`. */
  router(): Router;
  /** CopilotKit's runtime in front of the same agents. */
  copilotkit(): RequestHandler;
  /** The bundled client app (client/dist), for `app.use(threadline.client())`. */
  client(): RequestHandler;
  /** The standalone app: health and metrics, router() at /api, copilotkit() at /api/copilotkit, client() at /. */
  readonly app: Express;
  /** Migrates the store and starts the engine; idempotent. Runs are refused (503) until it resolves. */
  start(): Promise<void>;
  /** start(), then the standalone app listens; resolves with the bound port (0: any free port). */
  listen(port?: number, host?: string): Promise<number>;
  /**
   * Graceful and bounded: new runs are refused at once (503 with Retry-After); the runs
   * executing here get `drainTimeoutMs` to finish, then are stopped and their leases freed so
   * that another instance resumes them at once (within SHUTDOWN_GRACE_MS more); no lease of
   * this instance is left. Then the store closes (a pool or PGlite you passed stays open).
   */
  close(): Promise<void>;
}

export function createThreadline(opts: ThreadlineOptions = {}): Threadline {
  const parts = wire(opts);
  const { store, engine, config, logger } = parts;
  let server: Server | undefined;
  let starting: Promise<void> | undefined;
  let started = false;
  let closing: Promise<void> | undefined;
  const handlers = lazyHandlers(parts, opts, () => started);

  const threadline: Threadline = {
    store,
    engine,
    config,
    logger,
    router: handlers.router,
    copilotkit: handlers.copilotkit,
    client: handlers.client,
    get app() {
      return handlers.app();
    },
    start() {
      if (closing) return Promise.reject(new Error("This Threadline is closed: create a new one to start again."));
      starting ??= (async () => {
        await startParts(parts, opts);
        started = true;
      })();
      return starting;
    },
    async listen(port = config.PORT, host = config.HOST) {
      await threadline.start();
      const standalone = threadline.app;
      return new Promise((resolve, reject) => {
        server = standalone.listen(port, host, (err?: Error) => {
          if (err) return reject(err);
          const address = server!.address();
          resolve(typeof address === "object" && address ? address.port : port);
        });
      });
    },
    close() {
      closing ??= closeParts(parts, opts, () => server, starting);
      return closing;
    },
  };
  return threadline;
}

/** What createThreadline wires together, before anything runs: no I/O. */
interface Parts {
  config: Config;
  drainTimeoutMs: number;
  logger: Logger;
  metrics: Metrics;
  store: EventStore;
  workspace: WorkspaceHost;
  agents: AgentRegistry;
  engine: Engine;
  edge: EdgeOptions;
  /** The keys the router checks: none when an auth hook decides every request's tenant. */
  apiKeys: readonly ApiKey[];
  /** Run at close, in order, after the engine: what start() opened. */
  closers: (() => Promise<void>)[];
}

function wire(opts: ThreadlineOptions): Parts {
  const config = resolveConfig(opts);
  const logger = opts.logger ?? createLogger(config.LOG_LEVEL);
  const metrics = createMetrics();
  const closers: (() => Promise<void>)[] = [];

  const store =
    opts.store ??
    openDatabase(opts.database, config, {
      writer: { onFlush: (f) => f.ok && metrics.appendBatch.observe(f.events) },
      onError: (err) => logger.warn({ err }, "event store background error; it reconnects and goes on"),
    });

  // Building the models does no I/O (the demo model starts its local upstream on first use), so
  // a wrong MODEL or a missing key fails here, at createThreadline, rather than on a first run.
  const models = modelsFromConfig(config, { model: opts.model, logger });
  closers.push(() => models.close());

  const workspace = opts.workspace ?? workspaceHostFromConfig(config);
  const agents = new AgentRegistry(opts.agents ?? [defaultAgent(), approvalsAgent(), codingAgent({ host: workspace }), ...demoAgents()]);
  const engine = new Engine({ store, agents, models: models.factory, logger, leaseOwner: opts.leaseOwner, leaseTtlMs: config.LEASE_TTL_MS });
  const edge = edgeOptions(config);
  if (opts.auth && config.API_KEYS.length > 0) logger.warn("an auth hook is given: it decides every request's tenant, and API_KEYS is not used");
  const apiKeys = opts.auth ? [] : config.API_KEYS;
  return { config, drainTimeoutMs: drainTimeoutOf(opts), logger, metrics, store, workspace, agents, engine, edge, apiKeys, closers };
}

/**
 * The request handlers, each built on first use and then the same one: an application that
 * mounts only router() never builds CopilotKit's runtime or the client app.
 */
function lazyHandlers(p: Parts, opts: ThreadlineOptions, started: () => boolean) {
  const { store, engine, agents, metrics, logger, apiKeys, edge } = p;
  // One per instance: a thread reloaded through both doors at once is encoded once per encoding.
  const snapshots = new SnapshotCache({ metrics });
  let router: Router | undefined;
  let copilotkit: RequestHandler | undefined;
  let client: RequestHandler | undefined;
  let app: Express | undefined;
  const handlers = {
    router(): Router {
      router ??= createRouter({ store, engine, agents, metrics, logger, apiKeys, auth: opts.auth, edge, workspaces: p.workspace.workspaces, started, snapshots });
      return router;
    },
    copilotkit(): RequestHandler {
      // The same edge as the router (auth, origin, parse, limits): its requests carry run bodies.
      copilotkit ??= copilotkitHandler({
        engine,
        store,
        agents,
        logger,
        metrics,
        workspaces: p.workspace.workspaces,
        auth: Router().use(notStarted(started), edgeMiddleware({ apiKeys, auth: opts.auth, edge })),
        maxBodyBytes: edge.maxBodyBytes,
        snapshots,
      });
      return copilotkit;
    },
    client(): RequestHandler {
      client ??= clientApp();
      return client;
    },
    app(): Express {
      app ??= createApp({ store, metrics, logger, apiKeys: p.config.API_KEYS, edge, router: handlers.router(), copilotkit: handlers.copilotkit(), client: handlers.client() });
      return app;
    },
  };
  return handlers;
}

/**
 * The path the store took to its database, and the bounds the server applies, as it reported
 * them inside a statement: an operator sees a pooler that dropped them here, not in an outage.
 */
function logConnections(report: ConnectionReport, logger: Logger): void {
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

async function startParts(p: Parts, opts: ThreadlineOptions): Promise<void> {
  const { store, logger, config, engine } = p;
  await store.migrate();
  logger.info({ store: store.kind }, store.kind === "postgres" ? "event store: Postgres" : `event store: embedded PGlite${opts.database ? "" : ` under ${config.DATA_DIR}`}`);
  if (store.connections) logConnections(await store.connections(), logger);
  await checkWorkspace(p.workspace, store, engine.leaseOwner, logger);
  await engine.start();
  const stopRetention = startRetention(store, config.RETENTION_HOURS * 3_600_000, logger);
  p.closers.unshift(async () => stopRetention());
}

/** `server` is read when needed: a listen() in flight may bind it while the engine drains. */
async function closeParts(p: Parts, opts: ThreadlineOptions, server: () => Server | undefined, starting: Promise<void> | undefined): Promise<void> {
  const { engine, logger, drainTimeoutMs } = p;
  // No new connections; those open (a stream of a run that is finishing) stay until the drain ends.
  const listening = server();
  const stopped = listening ? new Promise<void>((r) => listening.close(() => r())) : Promise.resolve();
  // A start in flight finishes first: its engine is what drains. Its failure already rejected
  // start() for its caller; here it is logged, and close() goes on to release what it opened.
  await starting?.catch((err: unknown) => logger.warn({ err }, "closing after a start() that failed"));
  if (starting) {
    logger.info({ drainTimeoutMs }, "closing: new runs are refused; the runs executing here get drainTimeoutMs to finish");
    await engine.drain(AbortSignal.timeout(drainTimeoutMs));
  }
  await engine.close();
  server()?.closeAllConnections();
  await stopped;
  for (const close of p.closers) await close().catch((err: unknown) => logger.warn({ err }, "close failed"));
  if (!opts.store) await p.store.close().catch((err: unknown) => logger.warn({ err }, "closing the event store failed"));
}

/**
 * Startup checks of the workspaces: the root is writable and shared with the instances that hold
 * leases now (their markers are visible), and the sandbox starts. Failures are logged, not
 * fatal: the tools say the same to the model when they are called.
 */
async function checkWorkspace(workspace: WorkspaceHost, store: EventStore, leaseOwner: string, logger: Logger): Promise<void> {
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
