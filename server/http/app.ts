/**
 * The standalone Express app: health and metrics at the root, the API router under /api, the
 * CopilotKit runtime under /api/copilotkit, and the client app at /. A user's own app mounts the
 * same router (and the CopilotKit handler) wherever it likes instead (server/threadline.ts).
 */
import express, { Router, type Express, type RequestHandler } from "express";
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import { DEFAULT_API_BASE } from "../errors.ts";
import type { Metrics } from "../metrics.ts";
import type { EventStore } from "../store/types.ts";
import type { Serving } from "../serving.ts";
import type { ApiKey } from "../tenant.ts";
import { requireMetricsToken } from "./auth.ts";
import { errorHandler } from "./errors.ts";
import { requestContext } from "./request-context.ts";
import { DEFAULT_EDGE, type EdgeOptions } from "./router.ts";
import { healthRoutes } from "./routes/health.ts";

export type { EdgeOptions } from "./router.ts";

/** Where the standalone app mounts the API router and the CopilotKit runtime. */
const API_BASE_PATH = DEFAULT_API_BASE;
const COPILOTKIT_MOUNT_PATH = `${API_BASE_PATH}/copilotkit`;

export interface OperationalDeps {
  store: EventStore;
  metrics: Metrics;
  /** Whether this instance serves runs (start() finished, close() not begun): /readyz reads it. */
  serving: Serving;
  /** Guards /metrics when no METRICS_TOKEN is set (edge.metricsToken). */
  apiKeys: readonly ApiKey[];
  edge?: EdgeOptions;
}

/**
 * /healthz, /readyz and /metrics (guarded), relative: the standalone app serves them at its root,
 * and `threadline.health()` gives them to an application to mount where its probes look.
 */
export function operationalRoutes(deps: OperationalDeps): Router {
  const router = Router();
  router.use("/metrics", requireMetricsToken((deps.edge ?? DEFAULT_EDGE).metricsToken, deps.apiKeys));
  router.use(healthRoutes(deps));
  return router;
}

export interface AppDeps {
  logger: Logger;
  /** Counts every request (requestContext); absent: logged only. */
  metrics?: Metrics;
  /** operationalRoutes, at the root. */
  health: Router;
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
  app.use(requestContext(deps));
  app.use(deps.health);
  if (deps.copilotkit) app.use(COPILOTKIT_MOUNT_PATH, deps.copilotkit);
  app.use(API_BASE_PATH, deps.router);
  if (deps.client) app.use(deps.client);
  app.use(errorHandler(deps.logger));
  return app;
}
