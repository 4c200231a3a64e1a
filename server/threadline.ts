/**
 * The composition root: config in, a running server out. Every seam (store, models, agents,
 * logger) can be passed in; what is not is built from the configuration.
 */
import type { Server } from "node:http";
import type { Express } from "express";
import type { Logger } from "pino";
import { AgentRegistry, type AgentDefinition } from "./agents/define.ts";
import { approvalsAgent } from "./agents/approvals-agent.ts";
import { codingAgent } from "./agents/coding-agent.ts";
import { workspaceHostFromConfig, type WorkspaceHost } from "./workspace/tools.ts";
import { defaultAgent } from "./agents/default-agent.ts";
import { demoAgents } from "./agents/demos/index.ts";
import { dbTimeouts, loadConfig, type Config } from "./config.ts";
import { Engine } from "./engine/engine.ts";
import { startRetention } from "./engine/retention.ts";
import { createApp, edgeOptions } from "./http/app.ts";
import { clientApp } from "./http/static.ts";
import { createLogger } from "./logger.ts";
import { createMetrics } from "./metrics.ts";
import { modelsFromConfig } from "./models/from-config.ts";
import type { Model, ModelFactory } from "./models/model.ts";
import { createStore } from "./store/index.ts";
import type { EventStore } from "./store/types.ts";

export interface ThreadlineOptions {
  /** Defaults to the environment (loadConfig). */
  config?: Config;
  /** Defaults to the built-in `default` agent and the feature demo agents (agents/demos). */
  agents?: AgentDefinition[];
  store?: EventStore;
  /** The default model: a Model, a ModelFactory (deciding for every agent), or a "provider:name" spec; defaults to MODEL / OPENAI_* or the demo. */
  models?: Model | ModelFactory | string;
  logger?: Logger;
  instanceId?: string;
  /** Where the threads' workspaces are and how commands run; defaults to the configuration's. */
  workspace?: WorkspaceHost;
}

export interface Threadline {
  app: Express;
  store: EventStore;
  engine: Engine;
  config: Config;
  logger: Logger;
  /** Starts listening; resolves with the bound port (pass 0 for any free port). */
  listen(port?: number, host?: string): Promise<number>;
  close(): Promise<void>;
}

export async function createThreadline(opts: ThreadlineOptions = {}): Promise<Threadline> {
  const config = opts.config ?? loadConfig();
  const logger = opts.logger ?? createLogger(config.LOG_LEVEL);
  const metrics = createMetrics();
  const closers: (() => Promise<void>)[] = [];

  const store =
    opts.store ??
    createStore({
      databaseUrl: config.DATABASE_URL,
      dataDir: config.DATA_DIR,
      schema: config.DATABASE_SCHEMA,
      timeouts: dbTimeouts(config),
      retry: { maxElapsedMs: config.DB_RETRY_MAX_MS },
      writer: { onFlush: (f) => f.ok && metrics.appendBatch.observe(f.events) },
      onError: (err) => logger.warn({ err }, "event store background error; it reconnects and goes on"),
    });
  if (!opts.store) closers.push(() => store.close());
  await store.migrate();
  logger.info({ store: store.kind }, store.kind === "postgres" ? "event store: Postgres" : `event store: embedded PGlite under ${config.DATA_DIR}`);

  const modelSet = modelsFromConfig(config, { model: opts.models, logger });
  closers.push(() => modelSet.close());
  const models = modelSet.factory;

  const workspace = opts.workspace ?? workspaceHostFromConfig(config);
  const agents = new AgentRegistry(opts.agents ?? [defaultAgent(), approvalsAgent(), codingAgent({ host: workspace }), ...demoAgents()]);
  const engine = new Engine({ store, agents, models, logger, instanceId: opts.instanceId, leaseTtlMs: config.LEASE_TTL_MS });
  await checkWorkspace(workspace, store, engine.instanceId, logger);
  await engine.start();
  closers.unshift(() => engine.close());
  const stopRetention = startRetention(store, config.RETENTION_HOURS * 3_600_000, logger);
  closers.unshift(async () => stopRetention());

  // The client app at / (CopilotKit's runtime is mounted by createApp at /api/copilotkit).
  const extraRouters = [clientApp()];
  const app = createApp({ store, engine, agents, metrics, logger, apiKeys: config.API_KEYS, extraRouters, edge: edgeOptions(config), workspaces: workspace.workspaces });
  let server: Server | undefined;

  return {
    app,
    store,
    engine,
    config,
    logger,
    listen(port = config.PORT, host = config.HOST) {
      return new Promise((resolve, reject) => {
        server = app.listen(port, host, (err?: Error) => {
          if (err) return reject(err);
          const address = server!.address();
          resolve(typeof address === "object" && address ? address.port : port);
        });
      });
    },
    async close() {
      if (server) {
        server.closeAllConnections();
        await new Promise<void>((r) => server!.close(() => r()));
      }
      for (const close of closers) await close().catch((err: unknown) => logger.warn({ err }, "close failed"));
    },
  };
}

/**
 * Startup checks of the workspaces: the root is writable and shared with the instances that hold
 * leases now (their markers are visible), and the sandbox starts. Failures are logged, not
 * fatal: the tools say the same to the model when they are called.
 */
async function checkWorkspace(workspace: WorkspaceHost, store: EventStore, instanceId: string, logger: Logger): Promise<void> {
  const { workspaces, sandbox } = workspace;
  try {
    const owners = (await store.listThreads({ status: "RUNNING", limit: 200 })).threads.map((t) => t.leaseOwner).filter((o): o is string => !!o);
    const shared = await workspaces.checkShared(instanceId, owners);
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
}
