/**
 * CopilotKit's connect for a thread where nothing runs, answered before the runtime with the
 * reload snapshot the connect route shares (http/connect-stream.ts sendSharedReload), in the bytes
 * the runtime writes (SSE without `id:` lines). Through the runtime, every reload encoded the
 * whole conversation again and handed it to the socket in one chunk: ten clients that do not read
 * held ten copies of a long thread. Anything else (a running thread, whose live tail the runner
 * follows; an unknown one; another agent's; protobuf; a body without a thread id) goes on to the
 * runtime, which answers it as before.
 */
import type { RequestHandler } from "express";
import { negotiate } from "../../protocol/sse.ts";
import { callerTenant } from "../http/auth.ts";
import { type ConnectStreamDeps, isSnapshotReload, sendSharedReload } from "../http/connect-stream.ts";
import type { SnapshotCache } from "../http/snapshot-cache.ts";
import { SseResponse } from "../http/sse-response.ts";

export function copilotkitReload(deps: ConnectStreamDeps & { snapshots: SnapshotCache }): RequestHandler {
  return async (req, res, next) => {
    const threadId: unknown = (req.body as { threadId?: unknown } | undefined)?.threadId;
    if (typeof threadId !== "string" || negotiate(req.get("accept")) !== "sse") return next();
    // Another tenant's thread is not found here; the runtime then answers it as an unknown one.
    let thread: Awaited<ReturnType<typeof deps.store.getThread>>;
    try {
      thread = await deps.store.getThread(threadId, callerTenant(res));
    } catch {
      // A store that cannot answer: the runtime's connect reports it inside its own stream
      // (RUN_ERROR DATABASE_UNAVAILABLE), as every CopilotKit connect failure is reported.
      return next();
    }
    if (!thread || thread.agentId !== req.params.agentId || !isSnapshotReload(thread, undefined)) return next();
    const sse = new SseResponse(req, res, { metrics: deps.metrics });
    sse.open();
    try {
      if (!sse.signal.aborted) await sendSharedReload(deps, thread, sse, "sse-without-ids");
    } finally {
      sse.end();
    }
  };
}
