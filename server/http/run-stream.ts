/**
 * A run's admission and its AG-UI frames, as every door that starts a run serves them: the run
 * route (SSE) and the CopilotKit runner (an Observable inside the runtime's response). One
 * function each, so the two cannot drift: the same tenant and double-texting rules, the same
 * frames from the same log position, the same cancel-on-disconnect.
 */
import type { Logger } from "pino";
import type { StoredEvent } from "../../protocol/events.ts";
import type { Frame } from "../../protocol/frames.ts";
import { levelOf } from "../../protocol/versions.ts";
import type { AgentDefinition } from "../agents/define.ts";
import type { Engine, StartedRun } from "../engine/engine.ts";
import type { RunWebhook } from "../engine/admission.ts";
import { InvalidRequestError } from "../errors.ts";
import type { Metrics } from "../metrics.ts";
import type { EventStore } from "../store/types.ts";
import type { Workspaces } from "../workspace/workspaces.ts";
import type { ParsedRun } from "./run-input.ts";
import { streamLag } from "./stream-lag.ts";
import { isTerminalFrame, ThreadEvents } from "./thread-frames.ts";

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
export async function admitRun(deps: RunStreamDeps, agent: AgentDefinition, run: ValidRun, tenantId: string, requestId?: string, webhook?: RunWebhook): Promise<StartedRun> {
  // A workingDirectory outside the tenant's part (or on a server that allows none) is refused
  // here, before anything is written, rather than by every tool call of the run.
  const refused = await deps.workspaces?.checkWorkingDirectory(run.input.forwardedProps, tenantId);
  if (refused) throw new InvalidRequestError("INVALID_WORKING_DIRECTORY", refused, [{ path: "/forwardedProps/threadline/workingDirectory", message: refused }]);
  const started = await deps.engine.startRun(agent, run.input, {
    doubleTexting: run.options.doubleTexting,
    tenantId,
    fork: run.options.fork,
    ...(requestId !== undefined && { requestId }),
    ...(run.options.traceContext && { traceContext: run.options.traceContext }),
    ...(webhook && { webhook }),
  });
  deps.metrics?.runsStarted.inc({ agent: agent.id });
  return started;
}

/**
 * The frames of one admitted run, read back from the log through the projection, up to and
 * including its terminal frame, an event's frames at a time (next()). The run does not belong to
 * the reader: when `signal` aborts (the client left) the frames stop and the run goes on, unless
 * the request asked for cancel-on-disconnect (close()). Pull-driven: the next page of the log is
 * read only when the caller asks for the next frames, so a slow reader holds back its own reads,
 * never the engine. A pull (the run route calls it directly) rather than a generator per layer:
 * each generator was one more hop per token (docs/performance.md, "The hops a token takes").
 */
export class RunFrames {
  readonly #deps: RunStreamDeps;
  readonly #started: StartedRun;
  readonly #run: ValidRun;
  readonly #signal: AbortSignal;
  readonly #lag: (event: StoredEvent) => void;
  #events: ThreadEvents | undefined;
  #page: StoredEvent[] = [];
  #at = 0;
  /** The event whose frames were handed out last: the caller wrote them when it pulls again. */
  #handed: StoredEvent | undefined;
  #finished = false;

  constructor(deps: RunStreamDeps, started: StartedRun, run: ValidRun, signal: AbortSignal) {
    this.#deps = deps;
    this.#started = started;
    this.#run = run;
    this.#signal = signal;
    this.#lag = streamLag(deps.store, deps.metrics);
  }

  /** The frames of the run's next event that has any; undefined once the run's stream is over. */
  async next(): Promise<readonly Frame[] | undefined> {
    const handed = this.#handed;
    this.#handed = undefined;
    // Pull-driven: the caller asked for more, so it wrote this event's frames (stream-lag.ts).
    if (handed) this.#lag(handed);
    const { threadId, runId, afterSeq, start } = this.#started;
    for (;;) {
      if (this.#finished || this.#signal.aborted) return undefined;
      if (this.#at === this.#page.length) {
        // The poster reads its own run: the forms are what it declared (protocol/versions.ts).
        this.#events ??= new ThreadEvents(this.#deps.store, threadId, this.#signal, this.#deps.metrics, start, levelOf(this.#run.input.protocolVersion));
        const page = await this.#events.next();
        if (page === undefined) return undefined;
        this.#page = page;
        this.#at = 0;
        continue;
      }
      const event = this.#page[this.#at++]!;
      const frames = this.#events!.project(event);
      if (event.seq <= afterSeq || event.runId !== runId || frames.length === 0) continue;
      if (frames.some(isTerminalFrame)) this.#finished = true;
      this.#handed = event;
      return frames;
    }
  }

  /** Ends the feed; a client that left before the terminal frame cancels the run if it asked to. */
  async close(): Promise<void> {
    try {
      await this.#events?.close();
    } finally {
      const { threadId, runId } = this.#started;
      if (!this.#finished && this.#signal.aborted && this.#run.options.cancelOnDisconnect) {
        await this.#deps.engine.cancel(threadId, "the client disconnected (cancel-on-disconnect)").catch((err: unknown) => {
          this.#deps.logger.error({ err, threadId, runId }, "cancel-on-disconnect failed; the run goes on");
        });
      }
    }
  }
}

/** RunFrames a frame at a time (the CopilotKit runners' Observables). */
export async function* runFrames(deps: RunStreamDeps, started: StartedRun, run: ValidRun, signal: AbortSignal): AsyncGenerator<Frame, void, undefined> {
  const frames = new RunFrames(deps, started, run, signal);
  try {
    for (let batch = await frames.next(); batch !== undefined; batch = await frames.next()) {
      for (const frame of batch) yield frame;
    }
  } finally {
    await frames.close();
  }
}
