/**
 * The thread API: list, inspect (rebuilt from the log), raw events (JSON, or SSE live for the
 * inspector), cancel from any instance, delete.
 */
import { Router, type Request } from "express";
import { z } from "zod";
import { reconstruct } from "../../../protocol/reconstruct.ts";
import { endsRun } from "../../../protocol/lifecycle.ts";
import { isActive, isSettled, ThreadStatusSchema } from "../../../protocol/status.ts";
import type { Engine } from "../../engine/engine.ts";
import type { EventStore, ThreadRow } from "../../store/types.ts";
import { sendError, zodIssues } from "../errors.ts";

const ListQuerySchema = z.object({
  agentId: z.string().min(1).optional(),
  status: ThreadStatusSchema.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).optional(),
});

const EventsQuerySchema = z.object({
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(10_000).default(1000),
});

function threadJson(t: ThreadRow) {
  return {
    threadId: t.threadId,
    agentId: t.agentId,
    status: t.status,
    activeRunId: t.activeRunId,
    lastSeq: t.lastSeq,
    createdAt: new Date(t.createdAt).toISOString(),
    updatedAt: new Date(t.updatedAt).toISOString(),
  };
}

function wantsSse(req: Request): boolean {
  return (req.get("accept") ?? "").includes("text/event-stream");
}

export function threadRoutes({ store, engine }: { store: EventStore; engine: Engine }): Router {
  const router = Router();

  router.get("/api/threads", async (req, res) => {
    const q = ListQuerySchema.safeParse(req.query);
    if (!q.success) {
      return sendError(res, 400, "INVALID_QUERY", "Fix the query parameters listed in `issues`.", { issues: zodIssues(q.error.issues) });
    }
    const page = await store.listThreads({
      agentId: q.data.agentId,
      status: q.data.status,
      limit: q.data.limit,
      before: q.data.cursor,
    });
    res.json({ threads: page.threads.map(threadJson), next: page.next });
  });

  router.get("/api/threads/:threadId", async (req, res) => {
    const thread = await store.getThread(req.params.threadId);
    if (!thread) return sendError(res, 404, "THREAD_NOT_FOUND", `There is no thread "${req.params.threadId}". It is created by its first run.`);
    const snap = reconstruct(await store.read(thread.threadId), { status: thread.status });
    res.json({ ...threadJson(thread), messages: snap.messages, state: snap.state, toolCalls: snap.toolCalls, usage: snap.usage });
  });

  router.get("/api/threads/:threadId/events", async (req, res) => {
    const q = EventsQuerySchema.safeParse(req.query);
    if (!q.success) {
      return sendError(res, 400, "INVALID_QUERY", "Fix the query parameters listed in `issues`.", { issues: zodIssues(q.error.issues) });
    }
    const { threadId } = req.params;
    if (!wantsSse(req)) {
      const events = await store.read(threadId, { after: q.data.after, limit: q.data.limit });
      const last = events.at(-1);
      return res.json({ events, next: events.length === q.data.limit && last ? last.seq : null });
    }
    // SSE: the raw log, live, for the inspector. Each frame's id is its seq (Last-Event-ID resumes).
    const after = Number(req.get("last-event-id") ?? q.data.after) || 0;
    const closed = new AbortController();
    res.on("close", () => closed.abort());
    res.status(200);
    res.setHeader("Content-Type", "text/event-stream");
    res.setHeader("Cache-Control", "no-cache, no-transform");
    res.setHeader("X-Accel-Buffering", "no");
    res.flushHeaders();
    const keepAlive = setInterval(() => res.write(": keep-alive\n\n"), 15_000);
    try {
      for await (const batch of store.follow(threadId, after, closed.signal)) {
        for (const e of batch) res.write(`id: ${e.seq}\ndata: ${JSON.stringify(e)}\n\n`);
      }
    } finally {
      clearInterval(keepAlive);
      if (!res.writableEnded) res.end();
    }
  });

  router.post("/api/threads/:threadId/cancel", async (req, res) => {
    const { threadId } = req.params;
    const before = await store.getThread(threadId);
    if (!before) return sendError(res, 404, "THREAD_NOT_FOUND", `There is no thread "${threadId}".`);
    if (!isActive(before.status)) {
      return res.json({ threadId, cancelled: false, status: before.status, message: `Nothing to cancel: the thread is ${before.status}.` });
    }
    await engine.cancel(threadId);
    const after = await waitForSettled(store, threadId, 10_000);
    res.status(after && isSettled(after.status) ? 200 : 202).json({
      threadId,
      cancelled: true,
      runId: before.activeRunId,
      status: after?.status ?? "CANCELLING",
    });
  });

  router.delete("/api/threads/:threadId", async (req, res) => {
    const { threadId } = req.params;
    const thread = await store.getThread(threadId);
    if (!thread) return sendError(res, 404, "THREAD_NOT_FOUND", `There is no thread "${threadId}".`);
    if (isActive(thread.status)) {
      return sendError(res, 409, "THREAD_ACTIVE", `Thread ${threadId} is ${thread.status}. Cancel it first (POST /api/threads/${threadId}/cancel), then delete it.`);
    }
    await store.deleteThread(threadId);
    res.status(204).end();
  });

  return router;
}

/** Follows the log until the thread settles (the cancel reached it) or the time is up. */
async function waitForSettled(store: EventStore, threadId: string, timeoutMs: number): Promise<ThreadRow | null> {
  const stop = AbortSignal.timeout(timeoutMs);
  const thread = await store.getThread(threadId);
  if (!thread || isSettled(thread.status)) return thread;
  try {
    for await (const batch of store.follow(threadId, thread.lastSeq, stop)) {
      if (batch.some(endsRun)) break;
    }
  } catch {
    // timed out: report what the row says now
  }
  return store.getThread(threadId);
}
