/**
 * A run's admission and its AG-UI frames, as every door that starts a run serves them: the run
 * route (SSE) and the CopilotKit runner (an Observable inside the runtime's response). One
 * function each, so the two cannot drift: the same tenant and double-texting rules, the same
 * frames from the same log position, the same cancel-on-disconnect.
 */
import type { Logger } from "pino";
import type { Frame } from "../../protocol/frames.ts";
import { levelOf } from "../../protocol/versions.ts";
import type { AgentDefinition } from "../agents/define.ts";
import type { Engine, StartedRun } from "../engine/engine.ts";
import { InvalidRequestError } from "../errors.ts";
import type { Metrics } from "../metrics.ts";
import type { EventStore } from "../store/types.ts";
import type { Workspaces } from "../workspace/workspaces.ts";
import type { ParsedRun } from "./run-input.ts";
import { streamLag } from "./stream-lag.ts";
import { isTerminalFrame, threadFrames } from "./thread-frames.ts";

export interface RunStreamDeps {
  store: EventStore;
  engine: Engine;
  logger: Logger;
  metrics?: Metrics;
  /** The threads' workspaces: a run that names a workingDirectory has it checked before admission. */
  workspaces?: Workspaces;
}

type ValidRun = Extract<ParsedRun, { ok: true }>;

/**
 * Starts the run (or queues it, by the thread's double-texting policy) for `tenantId`. Throws
 * the engine's refusals (a busy thread, a reused run id, another agent's or another tenant's
 * thread) before anything is streamed, with nothing written.
 */
export async function admitRun(deps: RunStreamDeps, agent: AgentDefinition, run: ValidRun, tenantId: string, requestId?: string): Promise<StartedRun> {
  // A workingDirectory outside the tenant's part (or on a server that allows none) is refused
  // here, before anything is written, rather than by every tool call of the run.
  const refused = await deps.workspaces?.checkWorkingDirectory(run.input.forwardedProps, tenantId);
  if (refused) throw new InvalidRequestError("INVALID_WORKING_DIRECTORY", refused, [{ path: "/forwardedProps/threadline/workingDirectory", message: refused }]);
  const started = await deps.engine.startRun(agent, run.input, { doubleTexting: run.options.doubleTexting, tenantId, fork: run.options.fork, ...(requestId !== undefined && { requestId }) });
  deps.metrics?.runsStarted.inc({ agent: agent.id });
  return started;
}

/**
 * The frames of one admitted run, read back from the log through the projection, up to and
 * including its terminal frame. The run does not belong to the reader: when `signal` aborts (the
 * client left) the frames stop and the run goes on, unless the request asked for
 * cancel-on-disconnect. Pull-driven: the next page of the log is read only when the caller asks
 * for the next frame, so a slow reader holds back its own reads, never the engine.
 */
export async function* runFrames(deps: RunStreamDeps, started: StartedRun, run: ValidRun, signal: AbortSignal): AsyncGenerator<Frame, void, undefined> {
  let finished = false;
  const lag = streamLag(deps.store, deps.metrics);
  try {
    if (signal.aborted) return;
    // The poster reads its own run: the forms are what it declared (protocol/versions.ts).
    const reader = levelOf(run.input.protocolVersion);
    for await (const { event, frames } of threadFrames(deps.store, started.threadId, signal, deps.metrics, started.start, reader)) {
      if (event.seq <= started.afterSeq || event.runId !== started.runId) continue;
      for (const frame of frames) {
        yield frame;
        if (isTerminalFrame(frame)) finished = true;
      }
      // Pull-driven: the caller asked for more, so it wrote this event's frames (stream-lag.ts).
      if (frames.length > 0) lag(event);
      if (finished || signal.aborted) return;
    }
  } finally {
    if (!finished && signal.aborted && run.options.cancelOnDisconnect) {
      await deps.engine.cancel(started.threadId, "the client disconnected (cancel-on-disconnect)").catch((err: unknown) => {
        deps.logger.error({ err, threadId: started.threadId, runId: started.runId }, "cancel-on-disconnect failed; the run goes on");
      });
    }
  }
}
