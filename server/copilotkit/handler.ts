/**
 * CopilotKit's v2 runtime (multi-route) in front of our agents, as an Express handler that works
 * under any mount: `app.use("/copilotkit", copilotkitHandler(deps))`. Routes are matched below
 * the mount (req.baseUrl), so no path is hard-wired; errors name the mount they came through.
 *
 * Per request, after the auth middleware admitted the caller: a runner bound to the caller's
 * tenant (runner.ts), our agents as in-process agents on that runner (agent.ts), and a runtime
 * around them. The runtime hands `stop` and `connect` a thread id and nothing else, so a runtime
 * shared by every caller could not scope them without an ambient "current request"; building it
 * per request costs about 0.2 ms of CPU, and nothing of it outlives the response. (With
 * CopilotKit's telemetry opted in, the runtime reports one "instance created" per request.)
 */
import "./telemetry.ts"; // first: the runtime reads the telemetry switch when it is imported
import type { AbstractAgent } from "@ag-ui/client-0059";
import { CopilotRuntime, createCopilotRuntimeHandler } from "@copilotkit/runtime/v2";
import express, { Router, type RequestHandler, type Response } from "express";
import { agentCapabilities } from "../agents/capabilities.ts";
import type { AgentRegistry } from "../agents/define.ts";
import { InvalidRequestError, NotFoundError } from "../errors.ts";
import { callerTenant } from "../http/auth.ts";
import { errorHandler } from "../http/errors.ts";
import { requestContext, requestIdOf, requestLogger } from "../http/request-context.ts";
import { validateBodyIds, validatePathIds } from "../http/ids.ts";
import { SnapshotCache } from "../http/snapshot-cache.ts";
import { ThreadlineAgent } from "./agent.ts";
import { sendFetchResponse, toFetchRequest } from "./fetch-bridge.ts";
import { copilotkitReload } from "./reload.ts";
import { requireRunAgentInput } from "./run-body.ts";
import { ThreadlineAgentRunner, type ThreadlineRunnerDeps, unknownAgent } from "./runner.ts";

export interface CopilotkitHandlerDeps extends ThreadlineRunnerDeps {
  /**
   * Admits the caller and sets its tenant on the request (read back with callerTenant), or
   * answers 401 itself. Every thread the runtime touches is scoped to that tenant.
   */
  auth: RequestHandler;
  /** The JSON body limit when nothing in front of the handler parsed the body. Default 4 MB. */
  maxBodyBytes?: number;
  /** Reload snapshots shared with the connect route (reload.ts). Default: the handler's own. */
  snapshots?: SnapshotCache;
}

const MOUNT_LOCAL = "threadlineCopilotkitMount";

/** The path this handler is mounted at, as the request reached it (recorded on entry). */
function mountOf(res: Response): string {
  return String(res.locals[MOUNT_LOCAL] ?? "");
}

export function copilotkitHandler(deps: CopilotkitHandlerDeps): Router {
  const router = Router();
  router.use(requestContext(deps));
  router.use((req, res, next) => {
    res.locals[MOUNT_LOCAL] = req.baseUrl;
    next();
  });
  router.use(deps.auth);
  // A body an outer parser already read is left as it is (body-parser skips a consumed stream).
  router.use(express.json({ limit: deps.maxBodyBytes ?? 4 * 1024 * 1024, type: "application/json" }));
  const runtime = toRuntime(deps);
  const agentPath = [validatePathIds("agentId"), requireKnownAgent(deps.agents)];
  // The routes CopilotKit's client calls, and no others. The runtime matches a path by its last
  // segments, so `/<anything>/agent/:agentId/run` reached it past the checks mounted on
  // `/agent/:agentId`; here each route checks its ids, and the runtime is handed the canonical
  // path rebuilt from the checked values, never the client's. Rejected: mirroring the runtime's
  // suffix matching, which would have to follow its router release by release.
  router.get("/info", runtime(() => "/info"));
  router.get("/inspector-metadata", runtime(() => "/inspector-metadata"));
  // A reload of a thread where nothing runs is answered from the shared snapshot (reload.ts).
  const reload = copilotkitReload({ ...deps, snapshots: deps.snapshots ?? new SnapshotCache({ metrics: deps.metrics }) });
  for (const verb of ["run", "connect", "suggest"] as const) {
    const before = verb === "connect" ? [requireRunAgentInput(), reload] : verb === "run" ? [requireRunAgentInput()] : [];
    router.post(`/agent/:agentId/${verb}`, ...agentPath, validateBodyIds("threadId", "runId"), ...before, runtime((p) => `/agent/${encodeURIComponent(p.agentId!)}/${verb}`));
  }
  router.post(
    "/agent/:agentId/stop/:threadId",
    validatePathIds("agentId", "threadId"),
    requireKnownAgent(deps.agents),
    validateBodyIds("runId"),
    runtime((p) => `/agent/${encodeURIComponent(p.agentId!)}/stop/${encodeURIComponent(p.threadId!)}`),
  );
  // Our runtime has no transcription service; its own answer would be a 503 for a bad request.
  router.all("/transcribe", (_req, _res, next) => {
    next(new NotFoundError("NOT_FOUND", "This server's CopilotKit runtime has no transcription service: transcribe audio in your own app."));
  });
  router.use((req, res, next) => next(noRoute(req.method, req.path, mountOf(res))));
  // JSON errors whatever the host app's error handling; the same shape as the rest of the API.
  router.use(errorHandler(deps.logger));
  return router;
}

/**
 * The runtime for one request, at `path(req.params)`: a runner bound to the caller's tenant, our
 * agents on it, and CopilotKit's Fetch handler. Only the path, the method, the headers and the
 * body reach it (no query: none of these routes reads one).
 */
function toRuntime(deps: CopilotkitHandlerDeps) {
  return (path: (params: Record<string, string | undefined>) => string): RequestHandler =>
    async (req, res, next) => {
      const runner = new ThreadlineAgentRunner({ ...deps, logger: requestLogger(res, deps.logger), tenantId: callerTenant(res), mountPath: mountOf(res), requestId: requestIdOf(res) });
      const runtime = new CopilotRuntime({ runner, agents: inProcessAgents(deps, runner) });
      const handle = createCopilotRuntimeHandler({ runtime, basePath: "/", cors: false, activateChannels: false });
      const gone = new AbortController();
      res.once("close", () => {
        if (!res.writableFinished) gone.abort();
      });
      try {
        const response = await handle(toFetchRequest(req, path(req.params as Record<string, string | undefined>), gone.signal));
        if (response.status >= 400 && !response.headers.get("content-type")?.includes("event-stream")) {
          return next(runtimeRefusal(response.status, await response.text(), runner.failure()));
        }
        await sendFetchResponse(res, response);
      } catch (err) {
        next(err);
      }
    };
}

/**
 * The runtime's own error answers, in the API's error shape: its 4xx (a stop body with other
 * keys, a connect body that is no RunAgentInput) keep their status and reason; its 5xx carry the
 * failing error's text (a database's, say), so they become what our runner threw, or a logged
 * 500 that hides it.
 */
function runtimeRefusal(status: number, text: string, failure: { error: unknown } | undefined): Error {
  if (status >= 500) return failure?.error instanceof Error ? failure.error : new Error(`CopilotKit's runtime answered ${status}: ${text.slice(0, 500)}`);
  let reason = "";
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    reason = [body.error, body.message].filter((v) => typeof v === "string").join(": ");
  } catch {
    reason = "";
  }
  const what = reason ? `CopilotKit's runtime refused the request (${reason.slice(0, 300)})` : "CopilotKit's runtime refused the request";
  return new InvalidRequestError(`COPILOTKIT_HTTP_${status}`, `${what}. Check the body against the route: run and connect take a RunAgentInput, stop takes {} or { "runId": "..." }.`, undefined, status);
}

/** Anything else under the mount: a JSON 404 that lists the routes, never the host app's page. */
function noRoute(method: string, path: string, mount: string): NotFoundError {
  // A single-route client (useSingleEndpoint) POSTs its envelope to the mount itself.
  const singleRoute = method === "POST" && (path === "/" || path === "")
    ? " This runtime is multi-route: drop useSingleEndpoint from the CopilotKit provider."
    : "";
  return new NotFoundError(
    "NOT_FOUND",
    `No CopilotKit route ${method} ${mount}${path}.${singleRoute} The routes are GET ${mount}/info, POST ${mount}/agent/<agentId>/run, .../connect, .../suggest and .../stop/<threadId>.`,
  );
}

function inProcessAgents({ agents, engine }: Pick<CopilotkitHandlerDeps, "agents" | "engine">, runner: ThreadlineAgentRunner): Record<string, AbstractAgent> {
  // A null prototype: an id like "constructor" must not find Object.prototype's member.
  const record: Record<string, AbstractAgent> = Object.create(null);
  for (const a of agents.list()) {
    const capabilities = agentCapabilities(a, engine.modelIfBuilt(a));
    record[a.id] = new ThreadlineAgent({ agentId: a.id, description: a.description, runner, capabilities });
  }
  return record;
}

/**
 * 404 before the runtime sees an agent id this server does not host: the runtime looks agents up
 * in a plain object, where "__proto__" would find Object.prototype and fail with a 500.
 */
function requireKnownAgent(agents: AgentRegistry): RequestHandler {
  return (req, res, next) => {
    const agentId = String(req.params.agentId ?? "");
    if (agents.get(agentId)) return next();
    next(unknownAgent(agents, mountOf(res), agentId));
  };
}
