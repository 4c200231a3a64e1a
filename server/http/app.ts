/** The Express app: routes mounted on narrow deps, JSON errors, API keys on /api. */
import express, { type Express } from "express";
import type { Logger } from "pino";
import type { AgentRegistry } from "../agents/define.ts";
import type { Engine } from "../engine/engine.ts";
import type { Metrics } from "../metrics.ts";
import type { EventStore } from "../store/types.ts";
import type { ApiKey } from "../tenant.ts";
import { requireApiKey } from "./auth.ts";
import { errorHandler, sendError } from "./errors.ts";
import { agentRoutes } from "./routes/agents.ts";
import { connectRoute } from "./routes/connect.ts";
import { healthRoutes } from "./routes/health.ts";
import { runRoute } from "./routes/run.ts";
import { threadRoutes } from "./routes/threads.ts";

export interface AppDeps {
  store: EventStore;
  engine: Engine;
  agents: AgentRegistry;
  metrics: Metrics;
  logger: Logger;
  apiKeys: readonly ApiKey[];
  /** Mounted before the 404 handler: the CopilotKit runtime and the client app. */
  extraRouters?: express.RequestHandler[];
}

/** A run carries the whole conversation; 4 MB holds long threads with a few inline images. */
export const BODY_LIMIT = "4mb";

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(healthRoutes(deps));
  app.use("/api", requireApiKey(deps.apiKeys));
  app.use("/api", express.json({ limit: BODY_LIMIT, type: ["application/json", "application/*+json"] }));
  app.use(agentRoutes(deps));
  app.use(runRoute(deps));
  app.use(connectRoute(deps));
  app.use(threadRoutes(deps));
  for (const r of deps.extraRouters ?? []) app.use(r);
  app.use("/api", (req, res) => {
    sendError(res, 404, "NOT_FOUND", `No route ${req.method} ${req.originalUrl}. The API is described in the README.`);
  });
  app.use(errorHandler(deps.logger));
  return app;
}
