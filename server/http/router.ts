/**
 * The API as one Express router, mountable under any path (`app.use("/ai", router)`): the AG-UI
 * run and connect routes, the agents, threads and workspace routes, and the edge rules in front
 * of them. Every path here is relative to the mount; a message that names a route names it under
 * `req.baseUrl`, the mount the request came through.
 *
 * The edge runs before any route reads the body or the store: who is calling (auth), browser
 * rules, the parse, the limits, the ids in the path. Each refusal goes to the router's own error
 * handler, so the host app's error handling (or its absence) never decides what our clients see.
 */
import express, { Router, type RequestHandler } from "express";
import type { Logger } from "pino";
import type { AgentRegistry } from "../agents/define.ts";
import type { Engine } from "../engine/engine.ts";
import { notStartedError, type Serving } from "../serving.ts";
import type { Metrics } from "../metrics.ts";
import type { EventStore } from "../store/types.ts";
import type { ApiKey } from "../tenant.ts";
import type { Workspaces } from "../workspace/workspaces.ts";
import { resolveTenant, type AuthHook } from "./auth.ts";
import { errorHandler, sendError } from "./errors.ts";
import { requestContext } from "./request-context.ts";
import { validatePathIds } from "./ids.ts";
import { DEFAULT_INPUT_LIMITS, enforceInputLimits, type InputLimits } from "./limits.ts";
import { SnapshotCache } from "./snapshot-cache.ts";
import { PACKAGE_VERSION } from "../package-root.ts";
import { openApiDocument } from "./openapi.ts";
import { agentRoutes } from "./routes/agents.ts";
import { connectRoute } from "./routes/connect.ts";
import { runRoute } from "./routes/run.ts";
import { runsRoutes } from "./routes/runs.ts";
import { scheduleRoutes } from "./routes/schedules.ts";
import type { Schedules } from "../schedules/schedules.ts";
import { memoryRoutes } from "./routes/memory.ts";
import type { Memory } from "../memory/memory.ts";
import { NO_WEBHOOKS, type WebhookSettings } from "../webhooks/settings.ts";
import { attachmentLimits } from "./media-parts.ts";
import { threadRoutes } from "./routes/threads.ts";
import { workspaceRoutes } from "./routes/workspace.ts";
import { checkOrigin, requireJsonBodies } from "./web.ts";

export interface EdgeOptions {
  /** A run carries the whole conversation; 4 MB holds long threads with a few inline images. */
  maxBodyBytes: number;
  limits: InputLimits;
  allowedOrigins: string[];
  metricsToken?: string;
}

export const DEFAULT_EDGE: EdgeOptions = { maxBodyBytes: 4 * 1024 * 1024, limits: DEFAULT_INPUT_LIMITS, allowedOrigins: [] };

export interface RouterDeps {
  store: EventStore;
  engine: Engine;
  agents: AgentRegistry;
  metrics: Metrics;
  logger: Logger;
  apiKeys: readonly ApiKey[];
  /** The application's own authentication; when given, it decides the tenant instead of the keys. */
  auth?: AuthHook;
  /** The threads' workspaces (coding agent): GET <mount>/threads/:threadId/workspace[/file]. */
  workspaces?: Workspaces;
  /** Input limits and browser rules; defaults as in the README's "Limits and failure modes". */
  edge?: EdgeOptions;
  /** Reload snapshots shared by the streams sending them; one per instance (the CopilotKit runner shares it). Default: the router's own. */
  snapshots?: SnapshotCache;
  /** Until the store is migrated and the engine runs (Threadline.start()), requests get 503 NOT_STARTED. */
  serving?: Serving;
  /** Webhook settings (docs/webhooks.md): what POST threads/:threadId/runs checks a webhook against. Default: none configured. */
  webhooks?: WebhookSettings;
  /** Schedules (docs/schedules.md): <mount>/schedules; absent, those routes are not mounted. */
  schedules?: Schedules;
  /** Memory across threads (docs/memory.md): <mount>/memory; absent, those routes are not mounted. */
  memory?: Memory;
}

/**
 * Auth, origin, JSON-only bodies, the parse and the input limits: what every request under the
 * API passes first. Shared with the CopilotKit mount, whose requests carry the same bodies.
 */
export function edgeMiddleware(deps: Pick<RouterDeps, "apiKeys" | "auth" | "edge">): RequestHandler[] {
  const edge = deps.edge ?? DEFAULT_EDGE;
  return [
    resolveTenant({ apiKeys: deps.apiKeys, auth: deps.auth }),
    checkOrigin(edge.allowedOrigins),
    requireJsonBodies(),
    express.json({ limit: edge.maxBodyBytes, type: "application/json" }),
    enforceInputLimits(edge.limits),
  ];
}

/** 503 NOT_STARTED until the store is migrated and the engine runs (Threadline.start()). */
export function notStarted(serving: Serving): RequestHandler {
  return (_req, _res, next) => {
    if (serving.started) return next();
    next(notStartedError());
  };
}

export function createRouter(deps: RouterDeps): Router {
  const router = Router();
  router.use(requestContext(deps));
  if (deps.serving) router.use(notStarted(deps.serving));
  router.use(edgeMiddleware(deps));
  router.use("/agents/:agentId", validatePathIds("agentId"));
  router.use("/threads/:threadId", validatePathIds("threadId"));
  const edge = deps.edge ?? DEFAULT_EDGE;
  router.use(agentRoutes({ ...deps, attachments: attachmentLimits(edge.limits, edge.maxBodyBytes) }));
  router.use(runRoute(deps));
  router.use(runsRoutes({ ...deps, webhooks: deps.webhooks ?? NO_WEBHOOKS }));
  router.use(connectRoute({ ...deps, snapshots: deps.snapshots ?? new SnapshotCache({ metrics: deps.metrics }) }));
  router.use(threadRoutes(deps));
  if (deps.schedules) router.use(scheduleRoutes(deps.schedules));
  if (deps.memory) router.use(memoryRoutes(deps.memory));
  if (deps.workspaces) router.use(workspaceRoutes({ store: deps.store, workspaces: deps.workspaces }));
  router.get("/openapi.json", (req, res) => {
    res.json(openApiDocument(PACKAGE_VERSION, req.baseUrl || "/"));
  });
  // Everything under the mount answers JSON: an unknown path must not fall through to the host
  // app, whose 404 (an HTML page, or its SPA's index.html) an API client cannot read.
  router.use((req, res) => {
    sendError(res, 404, "NOT_FOUND", `No route ${req.method} ${req.originalUrl}. This API is mounted at ${req.baseUrl || "/"}: POST ${req.baseUrl}/agents/<agentId>/run, GET ${req.baseUrl}/agents, GET ${req.baseUrl}/threads (GET ${req.baseUrl}/openapi.json describes them all).`);
  });
  router.use(errorHandler(deps.logger));
  return router;
}
