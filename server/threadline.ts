/**
 * Threadline as a library: createThreadline(options) builds everything synchronously and does
 * no I/O; `start()` migrates the store and starts the engine (recovery, heartbeats, retention);
 * `router()` is the API to mount under any path of the application's Express app; `close()`
 * stops gracefully, within a bound. The standalone server (standalone.ts) is one user of this API.
 */
import { createServer, type Server } from "node:http";
import { trace } from "@opentelemetry/api";
import { Router, type Express, type RequestHandler } from "express";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import { AgentRegistry } from "./agents/define.ts";
import { approvalsAgent } from "./agents/approvals-agent.ts";
import { codingAgent } from "./agents/coding-agent.ts";
import { workspaceHostFromConfig, type WorkspaceHost } from "./workspace/tools.ts";
import { defaultAgent } from "./agents/default-agent.ts";
import { demoAgents } from "./agents/demos/index.ts";
import type { Config } from "./config.ts";
import { ThreadlineAppRunner } from "./copilotkit/app-runner.ts";
import type { AgentRunnerOptions, ThreadlineRunner } from "./copilotkit/app-runner-types.ts";
import { lazyCopilotkitHandler, type LazyCopilotkit } from "./copilotkit/lazy.ts";
import { openDatabase } from "./database.ts";
import { Engine } from "./engine/engine.ts";
import { startRetention } from "./engine/retention.ts";
import { createApp, type EdgeOptions, edgeOptions, operationalRoutes } from "./http/app.ts";
import { createRouter, edgeMiddleware, notStarted } from "./http/router.ts";
import { applyHttpTimeouts, httpTimeouts, type HttpTimeouts } from "./http/server-timeouts.ts";
import { SnapshotCache } from "./http/snapshot-cache.ts";
import { clientApp } from "./http/static.ts";
import { createLogger } from "./logger.ts";
import { usesWorkspace } from "./workspace/workspace-tool-mark.ts";
import { createMetrics, type Metrics } from "./metrics.ts";
import { engineObserver } from "./telemetry/engine-observer.ts";
import { modelsFromConfig } from "./models/from-config.ts";
import { resolveConfig, type ThreadlineOptions } from "./options.ts";
import { listenErrorOf, startErrorOf, startupContext, type StartupContext } from "./startup-errors.ts";
import type { EventStore } from "./store/types.ts";
import type { ApiKey } from "./tenant.ts";
import { backgroundServices, startBackground, type BackgroundServices } from "./background-services.ts";
import type { Memory } from "./memory/memory.ts";
import type { Schedules } from "./schedules/schedules.ts";
import { Serving } from "./serving.ts";
import { checkWorkspace, logConnections, logModels } from "./startup-report.ts";

export type { ThreadlineOptions } from "./options.ts";

export interface Threadline {
  readonly store: EventStore;
  readonly engine: Engine;
  readonly config: Config;
  readonly logger: Logger;
  /**
   * This instance's Prometheus registry (README "Metrics and logs"): the standalone app serves it
   * at /metrics; an application that mounts router() serves `await metrics.metrics()` itself.
   */
  readonly metrics: Registry;
  /** Schedules, per tenant (docs/schedules.md): what /api/schedules serves. */
  readonly schedules: Schedules;
  /** Memory across threads: `memory.forTenant(tenantId)` (docs/memory.md), what /api/memory serves. */
  readonly memory: Memory;
  /** The AG-UI, thread and connect routes, relative: mount it with `app.use("/ai", threadline.router())`. */
  router(): Router;
  /**
   * CopilotKit's runtime in front of the same agents. Needs `@copilotkit/runtime` (an optional
   * peer dependency): when it is missing, start() rejects with a sentence that says what to
   * install, and the handler answers 503 COPILOTKIT_RUNTIME_MISSING.
   */
  copilotkit(): RequestHandler;
  /**
   * CopilotKit's AgentRunner for an application's own runtime, whatever its agents are:
   * `new CopilotRuntime({ agents, runner: threadline.agentRunner() })`. Every run's events go to
   * the thread's log, so reloads, other tabs and other instances read Postgres, stop works from
   * any instance, and a run whose instance dies ends with RUN_ERROR RUNNER_RUN_LOST.
   */
  agentRunner(options?: AgentRunnerOptions): ThreadlineRunner;
  /**
   * Liveness (`GET /healthz`), readiness (`GET /readyz`: 200 only when a run would be accepted,
   * so 503 NOT_STARTED until start() has finished and SERVER_CLOSING once close() began, and the
   * database answers and is migrated) and Prometheus metrics (`GET /metrics`, behind
   * METRICS_TOKEN or the API keys), relative: `app.use(threadline.health())` serves them at the
   * root, as the standalone server does.
   */
  health(): Router;
  /** The bundled client app (client/dist), for `app.use(threadline.client())`. */
  client(): RequestHandler;
  /** The standalone app: health and metrics, router() at /api, copilotkit() at /api/copilotkit, client() at /. */
  readonly app: Express;
  /**
   * Migrates the store and starts the engine; idempotent. Runs are refused (503) until it
   * resolves. A misconfiguration it recognises (the database refuses, DATA_DIR cannot be
   * written...) rejects with a StartupError: one sentence naming the setting and the fix.
   */
  start(): Promise<void>;
  /**
   * The standalone app listens, then start(); resolves with the bound port (0: any free port).
   * The port is bound first, so that a port in use (a StartupError) is found before the
   * database is opened; until start() has finished, /readyz answers 503 and runs 503 NOT_STARTED.
   */
  listen(port?: number, host?: string): Promise<number>;
  /**
   * Graceful and bounded: new runs are refused at once (503 with Retry-After); each run
   * executing here finishes its step in flight (a model answer, a tool) and ends here or is
   * handed over before its next step; steps still going after `drainTimeoutMs` are cut and
   * their runs handed over too (within SHUTDOWN_GRACE_MS more), redoing only the cut step. Another
   * instance continues each at its next sweep; no lease of this instance is left. Then the
   * store closes (a pool or PGlite you passed stays open).
   */
  close(): Promise<void>;
}

export function createThreadline(opts: ThreadlineOptions = {}): Threadline {
  const parts = wire(opts);
  const { store, engine, config, logger, metrics } = parts;
  let server: Server | undefined;
  let starting: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  const handlers = lazyHandlers(parts, opts);

  const threadline: Threadline = {
    store,
    engine,
    config,
    logger,
    metrics: metrics.registry,
    schedules: parts.background.schedules,
    memory: parts.background.memory,
    router: handlers.router,
    copilotkit: handlers.copilotkit,
    agentRunner: (options) =>
      new ThreadlineAppRunner({ engine, store, logger, metrics, workspaces: parts.workspace.workspaces, serving: parts.serving }, options),
    health: handlers.health,
    client: handlers.client,
    get app() {
      return handlers.app();
    },
    start() {
      if (closing) return Promise.reject(new Error("This Threadline is closed: create a new one to start again."));
      starting ??= (async () => {
        try {
          // A mounted door must open (a missing package fails here); side by side, so a refusing database fails at once.
          await Promise.all([handlers.mountedReady(), startParts(parts, opts)]);
        } catch (err) {
          throw startErrorOf(err, parts.startup);
        }
        parts.serving.markStarted();
      })();
      return starting;
    },
    async listen(port = config.PORT, host = config.HOST) {
      // The port before the database: a second server started on a port in use stops here,
      // having opened nothing (its PGlite directory may be the first one's, open there).
      // Rejected: binding after start(), which ran migrations and recovery first.
      const bound = await bind(threadline.app, port, host, httpTimeouts(config.HTTP_KEEP_ALIVE_TIMEOUT_MS, config.HTTP_REQUEST_TIMEOUT_MS));
      server = bound;
      const address = bound.address();
      const boundPort = typeof address === "object" && address ? address.port : port;
      parts.listening.port = boundPort;
      // What is true now, for an operator watching a slow start: the port answers, not ready yet.
      logger.info({ port: boundPort }, `port ${boundPort} bound; starting: /readyz answers 503 NOT_STARTED until the start has finished`);
      try {
        await threadline.start();
      } catch (err) {
        server = undefined;
        const closed = new Promise<void>((resolve) => bound.close(() => resolve()));
        bound.closeAllConnections(); // a client that came in meanwhile got 503s; it must not hold the close
        await closed;
        throw err;
      }
      return boundPort;
    },
    close() {
      // Not ready from this moment (/readyz 503 SERVER_CLOSING): the balancer stops sending
      // runs while the engine drains the ones here.
      parts.serving.markDraining();
      closing ??= closeParts(parts, opts, () => server, starting);
      return closing;
    },
  };
  return threadline;
}

/** What createThreadline wires together, before anything runs: no I/O. */
interface Parts {
  config: Config;
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
  /** What a failed start's sentence names (startup-errors.ts). */
  startup: StartupContext;
  /** The port listen() bound, for the embedded database's lock to name. */
  listening: { port?: number };
  /** Webhooks, memory and schedules (background-services.ts). */
  background: BackgroundServices;
  /** Whether this instance serves runs: what the router, the runners and /readyz read (serving.ts). */
  serving: Serving;
}

function wire(opts: ThreadlineOptions): Parts {
  const config = resolveConfig(opts);
  const logger = opts.logger ?? createLogger(config.LOG_LEVEL, { pretty: process.stdout.isTTY === true });
  const metrics = createMetrics();
  const closers: (() => Promise<void>)[] = [];
  const listening: { port?: number } = {};

  const store =
    opts.store ??
    openDatabase(opts.database, config, {
      writer: {
        onFlush: (f) => {
          if (f.ok) metrics.appendBatch.observe(f.events);
          metrics.commitDuration.observe({ outcome: f.ok ? "ok" : "failed" }, f.ms / 1000);
        },
      },
      onPoolWait: (pool, ms) => metrics.poolWait.observe({ pool }, ms / 1000),
      onError: (err) => logger.warn({ err }, "event store background error; it reconnects and goes on"),
    }, () => listening.port);

  // Building the models does no I/O (a provider's package is imported on its first request), so
  // a wrong MODEL, a missing key or a missing openai SDK fails here, at createThreadline, rather
  // than on a first run.
  const models = modelsFromConfig(config, { model: opts.model, logger });
  closers.push(() => models.close());

  const workspace = opts.workspace ?? workspaceHostFromConfig(config);
  const agents = new AgentRegistry(opts.agents ?? [defaultAgent(), approvalsAgent(), codingAgent({ host: workspace }), ...demoAgents()]);
  logModels(models.check(agents.list()), logger);
  const background = backgroundServices({ config, store, agents, logger, metrics });
  // Spans through the OpenTelemetry API: a no-op until the application registers an SDK.
  const observer = background.observe(engineObserver(metrics, trace.getTracer("threadline")));
  const engine = new Engine({
    store,
    agents,
    memory: background.memory,
    models: models.factory,
    logger,
    leaseOwner: opts.leaseOwner,
    leaseTtlMs: config.LEASE_TTL_MS,
    foreignBounds: { messageBytes: config.FOREIGN_MESSAGE_MAX_BYTES, runBytes: config.FOREIGN_RUN_MAX_BYTES },
    observer,
    onHandOff: (direction, cut) => metrics.runHandOffs.inc({ direction, cut: String(cut) }),
  });
  metrics.watch({
    leasesHeld: () => engine.leasesHeld,
    queuedRuns: () => store.countQueuedRuns(),
    ...(store.poolStats && { pools: () => store.poolStats!() }),
  });
  const edge = edgeOptions(config);
  if (opts.auth && config.API_KEYS.length > 0) logger.warn("an auth hook is given: it decides every request's tenant, and API_KEYS is not used");
  const apiKeys = opts.auth ? [] : config.API_KEYS;
  const startup = startupContext(opts, config);
  return {
    config,
    logger,
    metrics,
    store,
    workspace,
    agents,
    engine,
    edge,
    apiKeys,
    closers,
    startup,
    listening,
    background: background.withEngine(engine, workspace.workspaces),
    serving: new Serving(),
  };
}

/** Where start() opens its database, named as the operator set it: for the sentence of a failure. */
/**
 * The standalone app on a bound port, with timeouts for a deployment behind a load balancer
 * (http/server-timeouts.ts); a port in use (or not permitted) is a StartupError.
 */
function bind(app: Express, port: number, host: string, timeouts: HttpTimeouts): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = applyHttpTimeouts(createServer(app), timeouts);
    const failed = (err: Error) => reject(listenErrorOf(err, port, host));
    server.once("error", failed);
    server.listen(port, host, () => {
      server.off("error", failed);
      resolve(server);
    });
  });
}

/**
 * The request handlers, each built on first use and then the same one: an application that
 * mounts only router() never loads CopilotKit's runtime or builds the client app.
 */
function lazyHandlers(p: Parts, opts: ThreadlineOptions) {
  const { store, engine, agents, metrics, logger, apiKeys, edge } = p;
  // One per instance: a thread reloaded through both doors at once is encoded once per encoding.
  const snapshots = new SnapshotCache({ metrics });
  let router: Router | undefined;
  let health: Router | undefined;
  let copilotkit: LazyCopilotkit | undefined;
  /**
   * "required": the application called copilotkit(); "optional": app() mounted it (a missing runtime answers 503 there).
   * start() waits for the load either way. Rejected: loading after ready (the app's first requests waited on it, and
   * CopilotKit's client, so delayed, never sent the first message: test/browser/keys-agents.test.ts).
   */
  let copilotkitMounted: "required" | "optional" | undefined;
  let client: RequestHandler | undefined;
  const loadCopilotkit = (): LazyCopilotkit =>
    // The same edge as the router (auth, origin, parse, limits): its requests carry run bodies.
    (copilotkit ??= lazyCopilotkitHandler({
      engine,
      store,
      agents,
      logger,
      metrics,
      workspaces: p.workspace.workspaces,
      auth: Router().use(notStarted(p.serving), edgeMiddleware({ apiKeys, auth: opts.auth, edge })),
      maxBodyBytes: edge.maxBodyBytes,
      snapshots,
    }));
  let app: Express | undefined;
  const handlers = {
    router(): Router {
      router ??= createRouter({ store, engine, agents, metrics, logger, apiKeys, auth: opts.auth, edge, workspaces: p.workspace.workspaces, serving: p.serving, snapshots, ...p.background });
      return router;
    },
    copilotkit(): RequestHandler {
      copilotkitMounted = "required";
      return loadCopilotkit().handler;
    },
    /** What start() waits for: the CopilotKit runtime, when mounted (optional: lazy.ts logs its failure). */
    async mountedReady(): Promise<void> {
      if (copilotkitMounted) await loadCopilotkit().ready.catch((err: unknown) => { if (copilotkitMounted === "required") throw err; });
    },
    health(): Router {
      health ??= operationalRoutes({ store, metrics, serving: p.serving, apiKeys: p.config.API_KEYS, edge });
      return health;
    },
    client(): RequestHandler {
      client ??= clientApp();
      return client;
    },
    app(): Express {
      // The standalone app mounts the CopilotKit door without requiring it: without the runtime
      // installed, it answers 503 with what to install, and the API and health routes still serve.
      copilotkitMounted ??= "optional";
      app ??= createApp({ logger, metrics, health: handlers.health(), router: handlers.router(), copilotkit: loadCopilotkit().handler, client: handlers.client() });
      return app;
    },
  };
  return handlers;
}

async function startParts(p: Parts, opts: ThreadlineOptions): Promise<void> {
  const { store, logger, config, engine } = p;
  await store.migrate();
  logger.info({ store: store.kind }, store.kind === "postgres" ? "event store: Postgres" : `event store: embedded PGlite${opts.database ? "" : ` under ${config.DATA_DIR}`}`);
  if (store.connections) logConnections(await store.connections(), logger);
  // Only a server whose agents work in workspaces makes the root and probes the sandbox.
  if (usesWorkspace(p.agents.list())) await checkWorkspace(p.workspace, store, engine.leaseOwner, logger);
  await engine.start();
  const stopRetention = startRetention(store, config.RETENTION_HOURS * 3_600_000, logger);
  p.closers.unshift(async () => stopRetention());
  startBackground(p.background, p.closers);
}

/** `server` is read when needed: a listen() in flight may bind it while the engine drains. */
async function closeParts(p: Parts, opts: ThreadlineOptions, server: () => Server | undefined, starting: Promise<void> | undefined): Promise<void> {
  const { engine, logger } = p;
  const drainTimeoutMs = p.config.DRAIN_TIMEOUT_MS;
  // No new connections; those open (a stream of a run that is finishing) stay until the drain ends.
  const listening = server();
  const stopped = listening ? new Promise<void>((r) => listening.close(() => r())) : Promise.resolve();
  // A start in flight finishes first: its engine is what drains. Its failure already rejected
  // start() for its caller; here it is logged, and close() goes on to release what it opened.
  await starting?.catch((err: unknown) => logger.warn({ err }, "closing after a start() that failed"));
  // No tick fires into an engine that refuses runs (it would wait for the sweep of unstarted ticks).
  await p.background.scheduler.close();
  if (starting) {
    logger.info({ drainTimeoutMs }, "closing: new runs are refused; the runs executing here finish their step in flight (within DRAIN_TIMEOUT_MS), then end here or are handed over");
    await engine.drain(AbortSignal.timeout(drainTimeoutMs));
  }
  await engine.close();
  server()?.closeAllConnections();
  await stopped;
  for (const close of p.closers) await close().catch((err: unknown) => logger.warn({ err }, "close failed"));
  if (!opts.store) await p.store.close().catch((err: unknown) => logger.warn({ err }, "closing the event store failed"));
}
