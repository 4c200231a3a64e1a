/**
 * CopilotKit's v2 runtime at /api/copilotkit, in front of our own agents.
 *
 * Each agent of our registry appears to the runtime as an `HttpAgent` aimed at our run endpoint
 * (`@ag-ui/client` 0.0.59, the version the runtime is built against), and the runtime's runner is
 * ours (runner.ts), so history, reconnect and stop come from the event log, not runtime memory.
 */
import "./telemetry.ts"; // first: the runtime reads the telemetry switch when it is imported
import { HttpAgent, type AbstractAgent } from "@ag-ui/client-0059";
import { CopilotRuntime } from "@copilotkit/runtime/v2";
import { createCopilotExpressHandler } from "@copilotkit/runtime/v2/express";
import type { RequestHandler } from "express";
import { requireApiKey } from "../http/auth.ts";
import type { ApiKey } from "../tenant.ts";
import { callerContext, forwardableHeaders, localOrigin } from "./request-context.ts";
import { ThreadlineAgentRunner, type ThreadlineRunnerOptions } from "./runner.ts";

export const COPILOTKIT_BASE_PATH = "/api/copilotkit";

export interface CopilotkitRouterOptions {
  /** The agents to expose; `AgentRegistry` fits. Read on every request, so it may change. */
  agents: { list(): readonly { id: string; description: string }[] };
  /** Our server's origin. Default: the local address of the connection each request came in on. */
  baseUrl?: ThreadlineRunnerOptions["baseUrl"];
  /**
   * When non-empty, /api/copilotkit needs `Authorization: Bearer <key>` like the rest of /api.
   * The tenant is not carried from here: the runner forwards the caller's Authorization to our
   * endpoints, whose own check derives the same tenant from the same key.
   */
  apiKeys?: readonly ApiKey[];
}

export function copilotkitRouter({ agents, baseUrl, apiKeys = [] }: CopilotkitRouterOptions): RequestHandler {
  const runner = new ThreadlineAgentRunner({ baseUrl });
  const runtime = new CopilotRuntime({
    runner,
    // Built per request: the run URL depends on where this server answers.
    agents: () => {
      const origin = runner.origin();
      const record: Record<string, AbstractAgent> = {};
      for (const a of agents.list()) {
        record[a.id] = new HttpAgent({ agentId: a.id, description: a.description, url: `${origin}/api/agents/${encodeURIComponent(a.id)}/run` });
      }
      return record as Record<string, AbstractAgent> & { [k: string]: AbstractAgent };
    },
  });
  const handler = createCopilotExpressHandler({
    runtime,
    basePath: COPILOTKIT_BASE_PATH,
    cors: false, // same origin in production; the Vite dev server proxies
    activateChannels: false,
  });
  const auth = requireApiKey(apiKeys);
  const prefix = new RegExp(`^${COPILOTKIT_BASE_PATH}(/|$)`);

  return (req, res, next) => {
    if (!prefix.test(req.path)) return next();
    auth(req, res, () => {
      const context = { origin: localOrigin(req), headers: forwardableHeaders(req) };
      callerContext.run(context, () => handler(req, res, next));
    });
  };
}
