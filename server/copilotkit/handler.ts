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
import { NotFoundError } from "../errors.ts";
import { callerTenant } from "../http/auth.ts";
import { errorHandler } from "../http/errors.ts";
import { validatePathIds } from "../http/ids.ts";
import { ThreadlineAgent } from "./agent.ts";
import { sendFetchResponse, toFetchRequest } from "./fetch-bridge.ts";
import { ThreadlineAgentRunner, type ThreadlineRunnerDeps, unknownAgent } from "./runner.ts";

export interface CopilotkitHandlerDeps extends ThreadlineRunnerDeps {
  /**
   * Admits the caller and sets its tenant on the request (read back with callerTenant), or
   * answers 401 itself. Every thread the runtime touches is scoped to that tenant.
   */
  auth: RequestHandler;
  /** The JSON body limit when nothing in front of the handler parsed the body. Default 4 MB. */
  maxBodyBytes?: number;
}

const MOUNT_LOCAL = "threadlineCopilotkitMount";

/** The path this handler is mounted at, as the request reached it (recorded on entry). */
function mountOf(res: Response): string {
  return String(res.locals[MOUNT_LOCAL] ?? "");
}

export function copilotkitHandler(deps: CopilotkitHandlerDeps): Router {
  const router = Router();
  router.use((req, res, next) => {
    // Below, nested mounts (`/agent/:agentId`) extend req.baseUrl; record the handler's own.
    res.locals[MOUNT_LOCAL] = req.baseUrl;
    next();
  });
  router.use(deps.auth);
  // A body an outer parser already read is left as it is (body-parser skips a consumed stream).
  router.use(express.json({ limit: deps.maxBodyBytes ?? 4 * 1024 * 1024, type: "application/json" }));
  router.use("/agent/:agentId", validatePathIds("agentId"), requireKnownAgent(deps.agents));
  // Our runtime has no transcription service; its own answer would be a 503 for a bad request.
  router.all("/transcribe", (_req, _res, next) => {
    next(new NotFoundError("NOT_FOUND", "This server's CopilotKit runtime has no transcription service: transcribe audio in your own app."));
  });
  router.use(async (req, res, next) => {
    const runner = new ThreadlineAgentRunner({ ...deps, tenantId: callerTenant(res), mountPath: mountOf(res) });
    const runtime = new CopilotRuntime({ runner, agents: inProcessAgents(deps, runner) });
    // basePath "/": the request's URL is the part below this handler's mount (req.url).
    const handle = createCopilotRuntimeHandler({ runtime, basePath: "/", cors: false, activateChannels: false });
    const gone = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) gone.abort();
    });
    try {
      await sendFetchResponse(res, await handle(toFetchRequest(req, gone.signal)));
    } catch (err) {
      next(err);
    }
  });
  // JSON errors whatever the host app's error handling; the same shape as the rest of the API.
  router.use(errorHandler(deps.logger));
  return router;
}

function inProcessAgents({ agents, engine }: Pick<CopilotkitHandlerDeps, "agents" | "engine">, runner: ThreadlineAgentRunner): Record<string, AbstractAgent> {
  // A null prototype: an id like "constructor" must not find Object.prototype's member.
  const record: Record<string, AbstractAgent> = Object.create(null);
  for (const a of agents.list()) {
    const capabilities = agentCapabilities(a, engine.modelOf(a));
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
