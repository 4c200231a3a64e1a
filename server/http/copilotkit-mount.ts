/**
 * The edge in front of the CopilotKit runtime, wherever it is mounted: the same auth, browser
 * rules, parse and limits as the API router (its requests carry the same run bodies), the checks
 * of the runtime's own paths, and the JSON error handler. Paths are relative to the mount.
 */
import { Router, type RequestHandler } from "express";
import type { Logger } from "pino";
import type { AgentRegistry } from "../agents/define.ts";
import { NotFoundError } from "../errors.ts";
import { errorHandler } from "./errors.ts";
import { validatePathIds } from "./ids.ts";
import { edgeMiddleware, type RouterDeps } from "./router.ts";

export interface CopilotkitMountDeps extends Pick<RouterDeps, "apiKeys" | "auth" | "edge"> {
  agents: AgentRegistry;
  logger: Logger;
  /** The runtime's handler (server/copilotkit). */
  handler: RequestHandler;
}

export function copilotkitMount(deps: CopilotkitMountDeps): Router {
  const router = Router();
  router.use(edgeMiddleware(deps));
  router.use("/agent/:agentId", validatePathIds("agentId"), requireKnownAgent(deps.agents));
  // Our runtime has no transcription service; its own answer would be a 503 for a bad request.
  router.all("/transcribe", (_req, _res, next) => {
    next(new NotFoundError("NOT_FOUND", "This server's CopilotKit runtime has no transcription service: transcribe audio in your own app."));
  });
  router.use(deps.handler);
  router.use(errorHandler(deps.logger));
  return router;
}

/**
 * 404 before CopilotKit's runtime sees an agent id this server does not host: the runtime looks
 * agents up in a plain object, where "__proto__" or "constructor" would find Object.prototype's
 * members and fail with a 500.
 */
function requireKnownAgent(agents: AgentRegistry): RequestHandler {
  return (req, _res, next) => {
    const agentId = String(req.params.agentId ?? "");
    if (agents.get(agentId)) return next();
    next(new NotFoundError("AGENT_NOT_FOUND", `There is no agent "${agentId}". The runtime at ${req.baseUrl} lists the agents this server hosts (GET ${req.baseUrl}/info).`, { agents: agents.list().map((a) => a.id) }));
  };
}
