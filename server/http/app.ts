/** The Express app: routes mounted on narrow deps, JSON errors, API keys on /api. */
import express, { type Express } from "express";
import type { Logger } from "pino";
import type { AgentRegistry } from "../agents/define.ts";
import type { Config } from "../config.ts";
import type { Engine } from "../engine/engine.ts";
import type { Metrics } from "../metrics.ts";
import type { EventStore } from "../store/types.ts";
import type { ApiKey } from "../tenant.ts";
import { requireApiKey, requireMetricsToken } from "./auth.ts";
import { errorHandler, sendError } from "./errors.ts";
import { validatePathIds } from "./ids.ts";
import { DEFAULT_INPUT_LIMITS, enforceInputLimits, type InputLimits } from "./limits.ts";
import { agentRoutes } from "./routes/agents.ts";
import { connectRoute } from "./routes/connect.ts";
import { healthRoutes } from "./routes/health.ts";
import { runRoute } from "./routes/run.ts";
import { threadRoutes } from "./routes/threads.ts";
import { workspaceRoutes } from "./routes/workspace.ts";
import type { Workspaces } from "../workspace/workspaces.ts";
import { checkOrigin, requireJsonBodies } from "./web.ts";
import { COPILOTKIT_BASE_PATH, copilotkitHandler } from "../copilotkit/handler.ts";

export interface AppDeps {
  store: EventStore;
  engine: Engine;
  agents: AgentRegistry;
  metrics: Metrics;
  logger: Logger;
  apiKeys: readonly ApiKey[];
  /** The threads' workspaces (coding agent): GET /api/threads/:threadId/workspace[/file]. */
  workspaces?: Workspaces;
  /** Mounted before the 404 handler: the CopilotKit runtime and the client app. */
  extraRouters?: express.RequestHandler[];
  /** Input limits and browser rules; defaults as in the README's "Limits and failure modes". */
  edge?: EdgeOptions;
}

export interface EdgeOptions {
  /** A run carries the whole conversation; 4 MB holds long threads with a few inline images. */
  maxBodyBytes: number;
  limits: InputLimits;
  allowedOrigins: string[];
  metricsToken?: string;
}

export function edgeOptions(config: Config): EdgeOptions {
  return {
    maxBodyBytes: config.MAX_BODY_BYTES,
    limits: {
      maxDepth: config.MAX_JSON_DEPTH,
      maxStringBytes: config.MAX_STRING_BYTES,
      maxArrayLength: config.MAX_ARRAY_LENGTH,
      maxObjectKeys: config.MAX_OBJECT_KEYS,
    },
    allowedOrigins: config.ALLOWED_ORIGINS,
    metricsToken: config.METRICS_TOKEN,
  };
}

const DEFAULT_EDGE: EdgeOptions = { maxBodyBytes: 4 * 1024 * 1024, limits: DEFAULT_INPUT_LIMITS, allowedOrigins: [] };

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  const edge = deps.edge ?? DEFAULT_EDGE;
  app.use("/metrics", requireMetricsToken(edge.metricsToken, deps.apiKeys));
  app.use(healthRoutes(deps));
  app.use("/api", requireApiKey(deps.apiKeys));
  // Everything below runs before any route reads the body or the store: browser rules, the
  // parse, the limits, the ids in the path. Each refusal goes to the one error handler.
  app.use("/api", checkOrigin(edge.allowedOrigins));
  app.use("/api", requireJsonBodies());
  app.use("/api", express.json({ limit: edge.maxBodyBytes, type: "application/json" }));
  app.use("/api", enforceInputLimits(edge.limits));
  app.use("/api/agents/:agentId", validatePathIds("agentId"));
  app.use("/api/threads/:threadId", validatePathIds("threadId"));
  app.use(COPILOTKIT_BASE_PATH, copilotkitHandler({ ...deps, auth: requireApiKey(deps.apiKeys), maxBodyBytes: edge.maxBodyBytes }));
  app.use(agentRoutes(deps));
  app.use(runRoute(deps));
  app.use(connectRoute(deps));
  app.use(threadRoutes(deps));
  if (deps.workspaces) app.use(workspaceRoutes({ store: deps.store, workspaces: deps.workspaces }));
  for (const r of deps.extraRouters ?? []) app.use(r);
  app.use("/api", (req, res) => {
    sendError(res, 404, "NOT_FOUND", `No route ${req.method} ${req.originalUrl}. The API is described in the README.`);
  });
  app.use(errorHandler(deps.logger));
  return app;
}

