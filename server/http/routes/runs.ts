/**
 * Background runs (docs/background-runs.md): POST <mount>/threads/:threadId/runs starts a run
 * nobody streams, answering 202 with its id; GET <mount>/threads/:threadId/runs/:runId says how it
 * stands, `?wait=<ms>` holding the answer until it is over (at most RUN_WAIT_MAX_MS).
 *
 * A background run is admitted and executed as any run (run-stream.ts admitRun, the engine): the
 * same tenant and double-texting rules, durable, recovered after a crash, and joined live by any
 * client through /connect (Last-Event-ID). Only nobody holds its stream.
 */
import { Router } from "express";
import { z } from "zod";
import { wireRunId } from "../../../protocol/run-ids.ts";
import { wireRunStatus } from "../../../protocol/run-wire-status.ts";
import type { AgentRegistry } from "../../agents/define.ts";
import type { Engine } from "../../engine/engine.ts";
import type { Metrics } from "../../metrics.ts";
import type { RunStatusRow } from "../../store/sql/run-status.ts";
import type { EventStore } from "../../store/types.ts";
import type { WebhookSettings } from "../../webhooks/settings.ts";
import type { Workspaces } from "../../workspace/workspaces.ts";
import { callerTenant } from "../auth.ts";
import { agentFitIssues } from "../agent-fit.ts";
import { parseBackgroundRun } from "../background-run-input.ts";
import { sendError, zodIssues } from "../errors.ts";
import { validatePathIds } from "../ids.ts";
import { requestIdOf, requestLogger } from "../request-context.ts";
import { admitRun } from "../run-stream.ts";
import { RUN_WAIT_MAX_MS, waitForRun } from "../run-wait.ts";
import type { Logger } from "pino";

export interface RunsRouteDeps {
  logger: Logger;
  store: EventStore;
  engine: Engine;
  agents: AgentRegistry;
  metrics: Metrics;
  webhooks: WebhookSettings;
  workspaces?: Workspaces;
}

export const WaitQuerySchema = z.object({
  wait: z.coerce.number().int().min(0).max(RUN_WAIT_MAX_MS, `must be at most ${RUN_WAIT_MAX_MS} ms; ask again to wait longer`).default(0),
});

export function runsRoutes(deps: RunsRouteDeps): Router {
  const router = Router();
  router.use("/threads/:threadId/runs/:runId", validatePathIds("runId"));

  router.post("/threads/:threadId/runs", async (req, res) => {
    const { threadId } = req.params;
    const parsed = parseBackgroundRun(req.body, threadId, { get: (h) => req.get(h) }, deps.webhooks.allowed);
    if (!parsed.ok) {
      return sendError(res, 400, "INVALID_RUN_INPUT", "The body is not `{ agentId, input, webhook? }` with a valid RunAgentInput (without threadId) as `input`; fix the fields listed in `issues`.", {
        issues: parsed.issues,
      });
    }
    const agent = deps.agents.get(parsed.agentId);
    if (!agent) {
      return sendError(res, 404, "AGENT_NOT_FOUND", `There is no agent "${parsed.agentId}". GET ${req.baseUrl}/agents lists the agents this server hosts.`, {
        agents: deps.agents.list().map((a) => a.id),
      });
    }
    const tenantId = callerTenant(res);
    if (parsed.webhook && deps.webhooks.secretFor(tenantId) === undefined) {
      return sendError(res, 400, "WEBHOOKS_NOT_CONFIGURED", "This server cannot sign webhooks: its operator sets WEBHOOK_SECRET (or a WEBHOOK_TENANT_SECRETS entry for your tenant). Start the run without `webhook` meanwhile.");
    }
    const unfit = agentFitIssues(agent, () => deps.engine.modelIfBuilt(agent), parsed.run.input);
    if (unfit.length > 0) {
      return sendError(res, 400, "INVALID_RUN_INPUT", `Agent "${agent.id}" cannot take this run as sent; fix the fields listed in \`issues\`.`, {
        issues: unfit.map((i) => ({ ...i, path: `input.${i.path}` })),
      });
    }
    // Refusals (a busy thread, a reused run id, another tenant's thread) go to the error handler.
    const started = await admitRun({ ...deps, logger: requestLogger(res, deps.logger) }, agent, parsed.run, tenantId, requestIdOf(res), parsed.webhook);
    const runId = wireRunId(started.runId);
    res
      .status(202)
      .location(`${req.baseUrl}/threads/${encodeURIComponent(threadId)}/runs/${encodeURIComponent(runId)}`)
      .json({ runId, status: started.queued ? "queued" : "running" });
  });

  router.get("/threads/:threadId/runs/:runId", async (req, res) => {
    const q = WaitQuerySchema.safeParse(req.query);
    if (!q.success) {
      return sendError(res, 400, "INVALID_QUERY", "Fix the query parameters listed in `issues`.", { issues: zodIssues(q.error.issues) });
    }
    const { threadId, runId } = req.params;
    // Another tenant's thread answers as an unknown one.
    if (!(await deps.store.getThread(threadId, callerTenant(res)))) {
      return sendError(res, 404, "THREAD_NOT_FOUND", `There is no thread "${threadId}". It is created by its first run.`);
    }
    const gone = new AbortController();
    res.once("close", () => gone.abort());
    const run = await waitForRun(deps.store, threadId, runId, q.data.wait, gone.signal);
    if (gone.signal.aborted && !res.writable) return;
    if (!run) return sendError(res, 404, "RUN_NOT_FOUND", `Thread "${threadId}" has no run "${runId}".`);
    res.json(runJson(threadId, runId, run));
  });
  return router;
}

function runJson(threadId: string, runId: string, run: RunStatusRow) {
  const w = run.webhook;
  return {
    runId,
    threadId,
    status: wireRunStatus(run.status, run.suspendReason ?? undefined),
    ...(run.error && { error: run.error }),
    createdAt: new Date(run.createdAt).toISOString(),
    updatedAt: new Date(run.updatedAt).toISOString(),
    ...(w && {
      webhook: {
        url: w.url,
        attempts: w.attempts,
        delivered: w.deliveredAt !== null,
        ...(w.deliveredAt !== null && { deliveredAt: new Date(w.deliveredAt).toISOString() }),
        ...(w.gaveUpAt !== null && { gaveUpAt: new Date(w.gaveUpAt).toISOString() }),
        ...(w.nextAt !== null && { nextAttemptAt: new Date(w.nextAt).toISOString() }),
        ...(w.lastStatus !== null && { lastStatus: w.lastStatus }),
        ...(w.lastError !== null && { lastError: w.lastError }),
      },
    }),
  };
}
