/**
 * POST <mount>/agents/:agentId/connect: replay, then the live tail of the active run, then the end.
 *
 * With a cursor (`Last-Event-ID`, or `lastSeenEventId` in the body): exactly the frames after
 * it, as a client that never left received them, then the active run live until its terminal
 * frame. A cursor past the end of the thread's log is 409 CURSOR_AHEAD with the thread's last id
 * (cursor.ts), never an empty stream. Without one (a page reload): the conversation as a snapshot (a synthetic run carrying
 * MESSAGES_SNAPSHOT and STATE_SNAPSHOT), then the active run from its start, so the browser
 * shows the conversation at once and re-attaches to the streaming answer.
 *
 * `?replay=exact`: the log's frames one for one. By default (`compacted`) a finished run's stretches
 * of consecutive deltas of one message that lie wholly after the cursor come as one delta each,
 * under the id of the stretch's last (connect-stream.ts connectFrames): what a client holds after
 * any id is the same, and the catch-up of a 10k-token answer is a few frames instead of 10k.
 *
 * The response always ends once nothing runs: CopilotKit shows a thread as running for as
 * long as its connect stream is open.
 *
 * The stream opens with its first frame: a read that fails before it answers with the error (503
 * with its reason), so an existing thread never gets the empty 200 of an unknown one.
 *
 * A reload of a thread where nothing runs sends the snapshot alone: its bytes come from the
 * shared cache (snapshot-cache.ts), so ten clients reloading a long thread hold one copy of it.
 */
import { Router } from "express";
import { z } from "zod";
import { parseFrameId, type FrameId } from "../../../protocol/frames.ts";
import { levelOf, PROTOCOL_VERSION_MAX_CHARS } from "../../../protocol/versions.ts";
import type { AgentRegistry } from "../../agents/define.ts";
import type { Metrics } from "../../metrics.ts";
import type { EventStore } from "../../store/types.ts";
import { callerTenant } from "../auth.ts";
import { connectFrames, isSnapshotReload, REPLAY_FORMS, sendSharedReload } from "../connect-stream.ts";
import { cursorAhead } from "../cursor.ts";
import { sendError, zodIssues } from "../errors.ts";
import type { EncodedFrames, SnapshotCache } from "../snapshot-cache.ts";
import { SseResponse } from "../sse-response.ts";

/**
 * `protocolVersion`: the AG-UI version the client speaks, as RunAgentInput names it (a 1.0
 * HttpAgent's connect input carries it there too). It decides the forms each run's frames take
 * (protocol/versions.ts) and whether protobuf may be sent; absent, the frames are the ones both
 * 0.0.59 and 1.0 accept. Rejected: a header of our own, which no AG-UI client sets.
 */
export const ConnectBodySchema = z.looseObject({
  threadId: z.string().min(1).max(200),
  lastSeenEventId: z.string().min(1).optional(),
  protocolVersion: z.string().min(1).max(PROTOCOL_VERSION_MAX_CHARS).optional(),
});

/** The query: how to replay finished runs (connect-stream.ts ReplayForm). */
export const ConnectQuerySchema = z.looseObject({ replay: z.enum(REPLAY_FORMS).optional() });

export function connectRoute({ store, agents, metrics, snapshots }: { store: EventStore; agents: AgentRegistry; metrics: Metrics; snapshots: SnapshotCache }): Router {
  const router = Router();
  router.post("/agents/:agentId/connect", async (req, res) => {
    if (!req.is("application/json")) {
      return sendError(res, 415, "UNSUPPORTED_MEDIA_TYPE", "Send `{ \"threadId\": \"...\" }` as JSON with `Content-Type: application/json`.");
    }
    const agentId = req.params.agentId;
    if (!agents.get(agentId)) {
      return sendError(res, 404, "AGENT_NOT_FOUND", `There is no agent "${agentId}". GET ${req.baseUrl}/agents lists the agents this server hosts.`);
    }
    const body = ConnectBodySchema.safeParse(req.body);
    if (!body.success) {
      return sendError(res, 400, "INVALID_CONNECT_INPUT", "Send `{ \"threadId\": \"...\", \"lastSeenEventId\"?: \"...\" }`; fix the fields in `issues`.", {
        issues: zodIssues(body.error.issues),
      });
    }
    const query = ConnectQuerySchema.safeParse(req.query);
    if (!query.success) {
      return sendError(res, 400, "INVALID_CONNECT_INPUT", "`?replay=` is `exact` (the log's frames one for one) or `compacted` (the default); fix the fields in `issues`.", {
        issues: zodIssues(query.error.issues),
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
    // Listening for the close before the first await: a client gone by the time the row is read
    // gets nothing opened, counted or followed for it.
    const reader = levelOf(body.data.protocolVersion);
    const sse = new SseResponse(req, res, { metrics, reader });
    // The row first, then the log: the log read afterwards holds at least what the row says.
    // Another tenant's thread is not found, and answers as an unknown one: an empty stream.
    const thread = await store.getThread(threadId, callerTenant(res));
    if (thread && thread.agentId !== agentId) {
      return sendError(res, 409, "THREAD_AGENT_MISMATCH", `Thread ${threadId} belongs to agent "${thread.agentId}"; connect through ${req.baseUrl}/agents/${thread.agentId}/connect.`);
    }
    // A cursor past the log's end: 409, not an empty stream the client would take for "up to
    // date". An unknown thread keeps the fixed answer (ARCHITECTURE.md: 200, an empty stream),
    // cursor or not: there is nothing to reload, and another tenant's thread answers the same.
    const ahead = cursor && thread && cursorAhead(threadId, cursor.seq, thread.lastSeq, "The cursor");
    if (ahead) throw ahead;

    // The stream opens with its first bytes, not before: a read that fails before them (the
    // checkpoint, the first page) is answered as an error that says why (503 with the reason,
    // through the error handler), never as a 200 with an empty body, which is what a client is
    // told of a thread that does not exist. Rejected: opening first, so that a proxy sees bytes
    // sooner; the first page is one bounded read (store.readPage), the keep-alive follows it. A
    // client caught up with a live run gets its headers once the backlog is read (onCaughtUp).
    let failed = true;
    let opened = false;
    const open = () => {
      if (!opened) sse.open();
      opened = true;
    };
    const stream = {
      format: sse.format,
      writeEncoded: async (encoded: EncodedFrames) => {
        open();
        await sse.writeEncoded(encoded);
      },
    };
    try {
      if (!thread || sse.signal.aborted) {
        failed = false;
        return; // nothing is built or read for a client gone, or a thread unknown
      }
      if (isSnapshotReload(thread, cursor)) {
        await sendSharedReload({ store, metrics, snapshots }, thread, stream, sse.format, reader);
        failed = false;
        return;
      }
      for await (const frame of connectFrames({ store, metrics, onCaughtUp: open }, thread, cursor, sse.signal, reader, query.data.replay)) {
        open();
        await sse.write(frame);
        if (sse.signal.aborted) break;
      }
      failed = false;
    } finally {
      // A stream that opened and then failed ends there (the client reconnects with its cursor);
      // one that never opened leaves the answer to the error handler.
      if (!failed) open();
      if (opened) sse.end();
    }
  });
  return router;
}
