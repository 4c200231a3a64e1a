/**
 * POST <mount>/agents/:agentId/run: an AG-UI run in, its frames out over SSE.
 *
 * Everything is checked before the first byte of stream (415, 413, 404, 400, 409 as JSON);
 * then the engine appends the run to the log and this handler only reads the log back through
 * the projection. The run does not belong to this response: if the client goes away, the run
 * goes on (unless the request asked for cancel-on-disconnect), and /connect picks it up.
 */
import { Router } from "express";
import type { Logger } from "pino";
import type { AgentRegistry } from "../../agents/define.ts";
import type { Engine } from "../../engine/engine.ts";
import type { Metrics } from "../../metrics.ts";
import type { EventStore } from "../../store/types.ts";
import type { Workspaces } from "../../workspace/workspaces.ts";
import { callerTenant } from "../auth.ts";
import { levelOf } from "../../../protocol/versions.ts";
import { agentFitIssues } from "../agent-fit.ts";
import { sendError } from "../errors.ts";
import { requestIdOf, requestLogger } from "../request-context.ts";
import { parseRunRequest } from "../run-input.ts";
import { admitRun, RunFrames } from "../run-stream.ts";
import { SseResponse } from "../sse-response.ts";

export interface RunRouteDeps {
  logger: Logger;
  store: EventStore;
  engine: Engine;
  agents: AgentRegistry;
  metrics: Metrics;
  workspaces?: Workspaces;
}

export function runRoute(deps: RunRouteDeps): Router {
  const { agents, metrics } = deps;
  const router = Router();
  router.post("/agents/:agentId/run", async (req, res) => {
    if (!req.is("application/json")) {
      return sendError(res, 415, "UNSUPPORTED_MEDIA_TYPE", "Send the run as JSON with the header `Content-Type: application/json`.");
    }
    const agentId = req.params.agentId;
    const agent = agents.get(agentId);
    if (!agent) {
      return sendError(res, 404, "AGENT_NOT_FOUND", `There is no agent "${agentId}". GET ${req.baseUrl}/agents lists the agents this server hosts.`, {
        agents: agents.list().map((a) => a.id),
      });
    }
    const parsed = parseRunRequest(req.body, { get: (h) => req.get(h) });
    if (!parsed.ok) {
      return sendError(res, 400, "INVALID_RUN_INPUT", "The body is not a valid AG-UI RunAgentInput; fix the fields listed in `issues`.", {
        issues: parsed.issues,
      });
    }
    const unfit = agentFitIssues(agent, () => deps.engine.modelIfBuilt(agent), parsed.input);
    if (unfit.length > 0) {
      return sendError(res, 400, "INVALID_RUN_INPUT", `Agent "${agentId}" cannot take this run as sent; fix the fields listed in \`issues\`.`, { issues: unfit });
    }
        // Listening for the close before admission is awaited: a client that leaves meanwhile is
    // noticed (cancel-on-disconnect applies, nothing is opened or followed for it).
    const sse = new SseResponse(req, res, { metrics, reader: levelOf(parsed.input.protocolVersion) });
    // A busy thread, a reused run id, another agent's or another tenant's thread: the error
    // handler answers 409 or 404 (server/errors.ts), before any byte of stream.
    const reqDeps = { ...deps, logger: requestLogger(res, deps.logger) };
    const started = await admitRun(reqDeps, agent, parsed, callerTenant(res), requestIdOf(res));

    sse.open();
    const frames = new RunFrames(reqDeps, started, parsed, sse.signal);
    try {
      // An event's frames at a time, straight from the pull (run-stream.ts), not through a
      // generator: one hop less per token.
      streaming: for (let batch = await frames.next(); batch !== undefined; batch = await frames.next()) {
        for (const frame of batch) {
          await sse.write(frame);
          if (sse.signal.aborted) break streaming;
        }
      }
    } finally {
      try {
        await frames.close();
      } finally {
        sse.end();
      }
    }
  });
  return router;
}
