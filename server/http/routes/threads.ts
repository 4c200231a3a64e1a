/**
 * The thread API: list (by title, archived or not), inspect (rebuilt from the log), raw events
 * (JSON, or SSE live for the inspector), cancel from any instance, delete; rename and archive
 * are thread-meta.ts.
 */
import { Router, type Request, type RequestHandler } from "express";
import { z } from "zod";
import { endsRun } from "../../../protocol/lifecycle.ts";
import { MAIN_BRANCH } from "../../../protocol/branches.ts";
import { isExpired, wireInterrupt } from "../../../protocol/interrupts.ts";
import { wireRunId } from "../../../protocol/run-ids.ts";
import { Reconstructor } from "../../../protocol/reconstruct.ts";
import { isActive, isSettled, ThreadStatusSchema } from "../../../protocol/status.ts";
import type { Engine } from "../../engine/engine.ts";
import { foldThread } from "../../engine/thread-fold.ts";
import type { Metrics } from "../../metrics.ts";
import { encodeThreadCursor, ThreadCursorSchema } from "../../store/thread-cursor.ts";
import { listingJson } from "./thread-json.ts";
import { threadMetaRoutes } from "./thread-meta.ts";
import { threadStateRoutes } from "./thread-state.ts";
import type { EventStore, ThreadRow } from "../../store/types.ts";
import { callerTenant } from "../auth.ts";
import { cursorAhead, parseSeqCursor } from "../cursor.ts";
import { sendError, zodIssues } from "../errors.ts";
import { sendJson } from "../json-slices.ts";
import { SseResponse } from "../sse-response.ts";
import { backlogPages, livePages } from "../thread-frames.ts";

export const ListQuerySchema = z.object({
  agentId: z.string().min(1).optional(),
  status: ThreadStatusSchema.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /** Checked and decoded here (bounds, no NUL, the format): a bad cursor is a 400 before any read. */
  cursor: ThreadCursorSchema.optional(),
  /** Threads whose title contains this text (any case). */
  q: z.string().trim().min(1).max(200).optional(),
  /** false (default): not archived; true: archived only; all: both. */
  archived: z.enum(["true", "false", "all"]).default("false"),
});

export const ThreadQuerySchema = z.object({
  /** a branch of the thread (GET lists them in `branches`); default: the current one */
  branch: z.string().min(1).max(200).optional(),
});

export const EventsQuerySchema = z.object({
  after: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  limit: z.coerce.number().int().min(1).max(10_000).default(1000),
});

function wantsSse(req: Request): boolean {
  return (req.get("accept") ?? "").includes("text/event-stream");
}

interface ThreadRoutesDeps {
  store: EventStore;
  engine: Engine;
  metrics?: Metrics;
}

type ThreadHandler = RequestHandler<{ threadId: string }>;

export function threadRoutes(deps: ThreadRoutesDeps): Router {
  return Router()
    .get("/threads", listThreads(deps))
    .get("/threads/:threadId", inspectThread(deps))
    .get("/threads/:threadId/events", threadEvents(deps))
    .post("/threads/:threadId/cancel", cancelThread(deps))
    .delete("/threads/:threadId", deleteThread(deps))
    .use(threadMetaRoutes(deps))
    .use(threadStateRoutes(deps));
}

function listThreads({ store }: ThreadRoutesDeps): RequestHandler {
  return async (req, res) => {
    const q = ListQuerySchema.safeParse(req.query);
    if (!q.success) {
      return sendError(res, 400, "INVALID_QUERY", "Fix the query parameters listed in `issues`.", { issues: zodIssues(q.error.issues) });
    }
    const page = await store.listThreads({
      tenantId: callerTenant(res),
      agentId: q.data.agentId,
      status: q.data.status,
      limit: q.data.limit,
      // The store's filter takes the opaque text: the key the schema read, written back.
      before: q.data.cursor && encodeThreadCursor(q.data.cursor),
      archived: q.data.archived === "all" ? "all" : q.data.archived === "true",
      titleHas: q.data.q,
    });
    res.json({ threads: page.threads.map(listingJson), next: page.next });
  };
}

/** One thread's status, messages and state, rebuilt from the log; `?branch=` an earlier branch's. */
function inspectThread({ store, metrics }: ThreadRoutesDeps): ThreadHandler {
  return async (req, res) => {
    const q = ThreadQuerySchema.safeParse(req.query);
    if (!q.success) {
      return sendError(res, 400, "INVALID_QUERY", "Fix the query parameters listed in `issues`.", { issues: zodIssues(q.error.issues) });
    }
    // A client that leaves stops the reads (listened for before the first await).
    const gone = new AbortController();
    res.once("close", () => gone.abort());
    // The listing, not the bare row: the app's header shows the title, and whether the thread is archived or waits for a person.
    const thread = await store.getThreadListing(req.params.threadId, callerTenant(res));
    if (!thread) return sendError(res, 404, "THREAD_NOT_FOUND", `There is no thread "${req.params.threadId}". It is created by its first run.`);
    // The checkpoint, then the events after it page by page (one page in memory, the event loop
    // running between pages): a finished thread costs its last run's end, not its length.
    const fold = await foldThread(store, thread.threadId, { signal: gone.signal, metrics, lastSeq: thread.lastSeq });
    if (gone.signal.aborted) return;
    const snap = fold.snapshot({ status: thread.status });
    const current = snap.branch ?? MAIN_BRANCH;
    const branches = [{ branchId: MAIN_BRANCH }, ...(snap.branches ?? []).map((b) => ({ ...b, at: new Date(b.at).toISOString() }))];
    const wanted = q.data.branch ?? current;
    // Written in slices (json-slices.ts): the answer is as large as the conversation.
    if (wanted === current) {
      return sendJson(res, {
        ...listingJson(thread),
        branch: current,
        branches,
        messages: snap.messages,
        state: snap.state,
        toolCalls: snap.toolCalls,
        usage: snap.usage,
        // One past its expiresAt is no longer asked (the next run records it cancelled as expired).
        pendingInterrupts: snap.pendingInterrupts.filter((r) => !isExpired(r, Date.now())).map((r) => wireInterrupt(r, "1.0")),
      });
    }
    const leftAt = (snap.branches ?? []).find((b) => b.fromBranchId === wanted);
    if (!leftAt) {
      return sendError(res, 404, "BRANCH_NOT_FOUND", `Thread ${thread.threadId} has no branch "${wanted}". Its branches are listed in \`branches\`.`, {
        branches: branches.map((b) => b.branchId),
      });
    }
    const then = await snapshotBefore(store, thread.threadId, leftAt.seq, gone.signal, metrics);
    if (gone.signal.aborted) return;
    await sendJson(res, { ...listingJson(thread), branch: wanted, current, branches, messages: then.messages, state: then.state, toolCalls: then.toolCalls, usage: then.usage });
  };
}

/**
 * An earlier branch is the log as it stood when a fork left it: the events before `seq`, folded
 * from the start, page by page.
 */
async function snapshotBefore(store: EventStore, threadId: string, seq: number, signal: AbortSignal, metrics: Metrics | undefined) {
  const old = new Reconstructor();
  for await (const page of backlogPages(store, threadId, 0, signal, metrics)) {
    for (const e of page) if (e.seq < seq) old.push(e);
    if (page.at(-1)!.seq >= seq) break;
  }
  return old.snapshot();
}

/** The raw workflow events: a JSON page, or with `Accept: text/event-stream` the live log. */
function threadEvents({ store, metrics }: ThreadRoutesDeps): ThreadHandler {
  return async (req, res) => {
    const q = EventsQuerySchema.safeParse(req.query);
    if (!q.success) {
      return sendError(res, 400, "INVALID_QUERY", "Fix the query parameters listed in `issues`.", { issues: zodIssues(q.error.issues) });
    }
    const { threadId } = req.params;
    // Inputs first, then the store: a bad cursor is a 400 whatever the thread.
    const lastEventId = req.get("last-event-id");
    const after = lastEventId ? parseSeqCursor(lastEventId, "header Last-Event-ID") : q.data.after;
    // Unknown and other tenants' threads alike: 404, never a stream that waits for the id.
    const thread = await store.getThread(threadId, callerTenant(res));
    if (!thread) {
      return sendError(res, 404, "THREAD_NOT_FOUND", `There is no thread "${threadId}". It is created by its first run.`);
    }
    // Past the end: 409 with the last id, not an empty page or a stream that waits for ids this
    // thread will reach only by coincidence.
    const ahead = cursorAhead(threadId, wantsSse(req) ? after : q.data.after, thread.lastSeq, lastEventId && wantsSse(req) ? "Last-Event-ID" : "?after=");
    if (ahead) throw ahead;
    if (!wantsSse(req)) {
      // At most `limit` events and a page's bytes (store.readPage): `next` whenever it stopped short of the end.
      const { events, more } = await store.readPage(threadId, { after: q.data.after, limit: q.data.limit });
      const last = events.at(-1);
      return res.json({ events, next: more && last ? last.seq : null });
    }
    // SSE: the raw log, live, for the inspector. Each frame's id is its seq (Last-Event-ID resumes).
    // The same stream owner as the AG-UI streams: back-pressure (no page is read while the socket
    // is full), keep-alive, and the close noticed at any moment.
    const sse = new SseResponse(req, res, { metrics, mode: "sse" });
    sse.open();
    try {
      for await (const page of livePages(store, threadId, after, sse.signal, metrics)) {
        for (const e of page) {
          await sse.writeText(`id: ${e.seq}\ndata: ${JSON.stringify(e)}\n\n`);
          if (sse.signal.aborted) return;
        }
      }
    } finally {
      sse.end();
    }
  };
}

function cancelThread({ store, engine }: ThreadRoutesDeps): ThreadHandler {
  return async (req, res) => {
    const { threadId } = req.params;
    const before = await store.getThread(threadId, callerTenant(res));
    if (!before) return sendError(res, 404, "THREAD_NOT_FOUND", `There is no thread "${threadId}".`);
    if (!isActive(before.status)) {
      return res.json({ threadId, cancelled: false, status: before.status, message: `Nothing to cancel: the thread is ${before.status}.` });
    }
    await engine.cancel(threadId);
    const after = await waitForSettled(store, threadId, 10_000);
    res.status(after && isSettled(after.status) ? 200 : 202).json({
      threadId,
      cancelled: true,
      runId: before.activeRunId === null ? null : wireRunId(before.activeRunId),
      status: after?.status ?? "CANCELLING",
    });
  };
}

function deleteThread({ store }: ThreadRoutesDeps): ThreadHandler {
  return async (req, res) => {
    const { threadId } = req.params;
    const tenantId = callerTenant(res);
    const outcome = await store.deleteThread(threadId, tenantId);
    if (outcome === "not_found") return sendError(res, 404, "THREAD_NOT_FOUND", `There is no thread "${threadId}".`);
    if (outcome === "busy") {
      const thread = await store.getThread(threadId, tenantId);
      return sendError(res, 409, "THREAD_ACTIVE", `Thread ${threadId} has a run that is active or queued${thread ? ` (it is ${thread.status})` : ""}. Cancel it first (POST ${req.baseUrl}/threads/${threadId}/cancel), wait for queued runs to finish, then delete it.`);
    }
    res.status(204).end();
  };
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
  } catch (err) {
    // Timed out: report what the row says now. Anything else (the store failing) is the
    // request's error, not a quiet "still cancelling".
    if (!stop.aborted) throw err;
  }
  return store.getThread(threadId);
}
