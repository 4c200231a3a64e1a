/**
 * GET /threads/:threadId/state?toolCallId=: the shared state as that tool call left it
 * (protocol/state-at.ts): after its result, or at the end of its run. A card of an earlier run
 * draws its own run's state with it. `done: false` while the call's run still goes on (the state
 * so far); 404 for a call the thread does not have.
 */
import { Router, type RequestHandler } from "express";
import { z } from "zod";
import { StateAtCallEnd } from "../../../protocol/state-at.ts";
import type { Metrics } from "../../metrics.ts";
import type { EventStore } from "../../store/types.ts";
import { callerTenant } from "../auth.ts";
import { sendError, zodIssues } from "../errors.ts";
import { backlogPages } from "../thread-frames.ts";

export const StateQuerySchema = z.object({ toolCallId: z.string().min(1).max(200) });

type ThreadHandler = RequestHandler<{ threadId: string }>;

export function threadStateRoutes(deps: { store: EventStore; metrics?: Metrics }): Router {
  return Router().get("/threads/:threadId/state", stateAtCall(deps));
}

function stateAtCall({ store, metrics }: { store: EventStore; metrics?: Metrics }): ThreadHandler {
  return async (req, res) => {
    const q = StateQuerySchema.safeParse(req.query);
    if (!q.success) {
      return sendError(res, 400, "INVALID_QUERY", "Name the tool call: ?toolCallId=<id> (see `issues`).", { issues: zodIssues(q.error.issues) });
    }
    const gone = new AbortController();
    res.once("close", () => gone.abort());
    const { threadId } = req.params;
    if (!(await store.getThread(threadId, callerTenant(res)))) {
      return sendError(res, 404, "THREAD_NOT_FOUND", `There is no thread "${threadId}". It is created by its first run.`);
    }
    const fold = new StateAtCallEnd(q.data.toolCallId);
    pages: for await (const page of backlogPages(store, threadId, 0, gone.signal, metrics)) {
      for (const e of page) if (fold.push(e)) break pages;
    }
    if (gone.signal.aborted) return;
    if (!fold.seen) {
      return sendError(res, 404, "TOOL_CALL_NOT_FOUND", `Thread ${threadId} has no tool call "${q.data.toolCallId}". Its calls are listed in GET /threads/${threadId} (toolCalls).`);
    }
    res.json({ toolCallId: q.data.toolCallId, done: fold.done, seq: fold.seq, state: fold.state === undefined ? {} : fold.state });
  };
}
