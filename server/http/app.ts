/**
 * The standalone Express app: health and metrics at the root, the API router under /api, the
 * CopilotKit runtime under /api/copilotkit, and the client app at /. A user's own app mounts the
 * same router (and the CopilotKit handler) wherever it likes instead (server/threadline.ts).
 */
import express, { type Express, type RequestHandler } from "express";
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import { DEFAULT_API_BASE } from "../errors.ts";
import type { Metrics } from "../metrics.ts";
import type { EventStore } from "../store/types.ts";
import type { ApiKey } from "../tenant.ts";
import { requireMetricsToken } from "./auth.ts";
import { errorHandler } from "./errors.ts";
import { DEFAULT_EDGE, type EdgeOptions } from "./router.ts";
import { healthRoutes } from "./routes/health.ts";

export type { EdgeOptions } from "./router.ts";

/** Where the standalone app mounts the API router and the CopilotKit runtime. */
const API_BASE_PATH = DEFAULT_API_BASE;
const COPILOTKIT_MOUNT_PATH = `${API_BASE_PATH}/copilotkit`;

export interface AppDeps {
  store: EventStore;
  metrics: Metrics;
  logger: Logger;
  /** Guards /metrics when no METRICS_TOKEN is set (edge.metricsToken). */
  apiKeys: readonly ApiKey[];
  edge?: EdgeOptions;
  /** The API (createRouter), mounted at /api. */
  router: express.Router;
  /** The CopilotKit runtime, mounted at /api/copilotkit ahead of the router (whose 404 would answer first). */
  copilotkit?: RequestHandler;
  /** The client app, at / (after everything else). */
  client?: RequestHandler;
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

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  const edge = deps.edge ?? DEFAULT_EDGE;
  app.use("/metrics", requireMetricsToken(edge.metricsToken, deps.apiKeys));
  app.use(healthRoutes(deps));
  if (deps.copilotkit) app.use(COPILOTKIT_MOUNT_PATH, deps.copilotkit);
  app.use(API_BASE_PATH, deps.router);
  if (deps.client) app.use(deps.client);
  app.use(errorHandler(deps.logger));
  return app;
}
