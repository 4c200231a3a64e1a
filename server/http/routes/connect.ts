/**
 * POST /api/agents/:agentId/connect: replay, then the live tail of the active run, then the end.
 *
 * With a cursor (`Last-Event-ID`, or `lastSeenEventId` in the body): exactly the frames after
 * it, as a client that never left received them, then the active run live until its terminal
 * frame. Without one (a page reload): the conversation as a snapshot (a synthetic run carrying
 * MESSAGES_SNAPSHOT and STATE_SNAPSHOT), then the active run from its start, so the browser
 * shows the conversation at once and re-attaches to the streaming answer.
 *
 * The response always ends once nothing runs: CopilotKit shows a thread as running for as
 * long as its connect stream is open.
 */
import { Router } from "express";
import { z } from "zod";
import type { StoredEvent } from "../../../protocol/events.ts";
import { parseFrameId, type FrameId } from "../../../protocol/frames.ts";
import { Projector } from "../../../protocol/project.ts";
import { snapshotRunFrames } from "../../../protocol/reconstruct.ts";
import { isActive } from "../../../protocol/status.ts";
import type { AgentRegistry } from "../../agents/define.ts";
import type { Metrics } from "../../metrics.ts";
import type { EventStore } from "../../store/types.ts";
import { callerTenant } from "../auth.ts";
import { sendError, zodIssues } from "../errors.ts";
import { SseResponse } from "../sse-response.ts";
import { isTerminalFrame } from "../thread-frames.ts";

const ConnectBodySchema = z.looseObject({
  threadId: z.string().min(1).max(200),
  lastSeenEventId: z.string().min(1).optional(),
});

export function connectRoute({ store, agents, metrics }: { store: EventStore; agents: AgentRegistry; metrics: Metrics }): Router {
  const router = Router();
  router.post("/api/agents/:agentId/connect", async (req, res) => {
    if (!req.is("application/json")) {
      return sendError(res, 415, "UNSUPPORTED_MEDIA_TYPE", "Send `{ \"threadId\": \"...\" }` as JSON with `Content-Type: application/json`.");
    }
    const agentId = req.params.agentId;
    if (!agents.get(agentId)) {
      return sendError(res, 404, "AGENT_NOT_FOUND", `There is no agent "${agentId}". GET /api/agents lists the agents this server hosts.`);
    }
    const body = ConnectBodySchema.safeParse(req.body);
    if (!body.success) {
      return sendError(res, 400, "INVALID_CONNECT_INPUT", "Send `{ \"threadId\": \"...\", \"lastSeenEventId\"?: \"...\" }`; fix the fields in `issues`.", {
        issues: zodIssues(body.error.issues),
      });
    }
    const rawCursor = req.get("last-event-id") ?? body.data.lastSeenEventId;
    let cursor: FrameId | undefined;
    if (rawCursor !== undefined && rawCursor !== "") {
      cursor = parseFrameId(rawCursor);
      if (!cursor) {
        return sendError(res, 400, "INVALID_CURSOR", `"${rawCursor}" is not an event id of this server. Send the \`id:\` of the last frame you received, or no cursor to get the whole conversation.`);
      }
    }
    const { threadId } = body.data;
    // The row first, then the log: the log read afterwards holds at least what the row says.
    // Another tenant's thread is not found, and answers as an unknown one: an empty stream.
    const thread = await store.getThread(threadId, callerTenant(res));
    if (thread && thread.agentId !== agentId) {
      return sendError(res, 409, "THREAD_AGENT_MISMATCH", `Thread ${threadId} belongs to agent "${thread.agentId}"; connect through /api/agents/${thread.agentId}/connect.`);
    }

    const sse = new SseResponse(req, res, { metrics });
    sse.open();
    try {
      if (!thread) return;
      const backlog = await store.read(threadId);
      const activeRunId = isActive(thread.status) ? thread.activeRunId : null;
      // Retention deleted stream events after the cursor: the frames the client missed can no
      // longer be reproduced one for one, so it gets the snapshot (a resync) instead.
      const exact = cursor === undefined || contiguousFrom(backlog, cursor.seq);
      await replay({ store, sse, threadId, backlog, activeRunId, cursor: exact ? cursor : undefined });
    } finally {
      sse.end();
    }
  });
  return router;
}

/** True when no event after `seq` was compacted away (the log's seqs are gapless until then). */
function contiguousFrom(backlog: StoredEvent[], seq: number): boolean {
  const last = backlog.at(-1)?.seq ?? 0;
  if (seq >= last) return true;
  const after = backlog.filter((e) => e.seq > seq).length;
  return after === last - seq;
}

interface ReplayParams {
  store: EventStore;
  sse: SseResponse;
  threadId: string;
  backlog: StoredEvent[];
  activeRunId: string | null;
  cursor: FrameId | undefined;
}

async function replay({ store, sse, threadId, backlog, activeRunId, cursor }: ReplayParams): Promise<void> {
  const projector = new Projector(threadId);
  let from: (e: StoredEvent) => boolean;
  if (cursor) {
    from = (e) => e.seq >= cursor.seq;
  } else {
    const accepted = activeRunId
      ? backlog.find((e) => e.type === "run.accepted" && e.data.runId === activeRunId)
      : undefined;
    const horizon = accepted ? accepted.seq - 1 : (backlog.at(-1)?.seq ?? 0);
    const before = backlog.filter((e) => e.seq <= horizon);
    // Nothing to show before the active run (its thread's first): no empty snapshot run.
    if (before.some((e) => e.type === "message.appended" || e.type === "state.set" || e.type === "state.patched")) {
      for (const frame of snapshotRunFrames(before, horizon)) await sse.write(frame);
    }
    from = (e) => e.seq > horizon;
  }
  const afterCursor = (id: string) => {
    if (!cursor) return true;
    const f = parseFrameId(id)!;
    return f.seq > cursor.seq || (cursor.part !== null && f.part !== null && f.part > cursor.part);
  };

  let activeEnded = activeRunId === null;
  const handle = async (e: StoredEvent): Promise<void> => {
    const frames = projector.push(e);
    if (!from(e)) return;
    for (const frame of frames) {
      if (afterCursor(frame.id)) await sse.write(frame);
      if (isTerminalFrame(frame) && e.runId === activeRunId) activeEnded = true;
    }
  };
  for (const e of backlog) await handle(e);
  if (activeEnded) return;

  const lastSeq = backlog.at(-1)?.seq ?? 0;
  for await (const batch of store.follow(threadId, lastSeq, sse.signal)) {
    for (const e of batch) {
      await handle(e);
      if (activeEnded) return;
    }
  }
}
