/**
 * CopilotKit's AgentRunner on Threadline's engine, in process, for ONE caller: the runtime keeps
 * no thread in memory, the event log is the only history, and every call is scoped to the tenant
 * this runner was built for.
 *
 *   run       -> admission as the run route (tenant, double texting), then the run's frames
 *   connect   -> the connect route's replay + live tail of the active run
 *   isRunning -> the thread's status (protocol/status.ts)
 *   stop      -> a durable cancel, from any instance
 *
 * Why one runner per caller: the runtime calls `stop({ threadId })` and `connect({ threadId })`
 * with nothing that says who asks, so the runner itself must know. Rejected: a process-wide
 * runner reading the caller from AsyncLocalStorage (an implicit channel every await must carry),
 * and a tenant in a forwarded header (the runtime merges the caller's own headers into it, so a
 * client could name someone else's tenant).
 */
import type { BaseEvent } from "@ag-ui/client-0059";
import {
  AgentRunner,
  type AgentRunnerConnectRequest,
  type AgentRunnerIsRunningRequest,
  type AgentRunnerRunRequest,
  type AgentRunnerStopRequest,
} from "@copilotkit/runtime/v2";
import type { Logger } from "pino";
import type { Observable } from "rxjs";
import type { Frame } from "../../protocol/frames.ts";
import { wireRunId } from "../../protocol/run-ids.ts";
import { isActive } from "../../protocol/status.ts";
import type { AgentRegistry } from "../agents/define.ts";
import { NotFoundError, ConflictError, InvalidRequestError } from "../errors.ts";
import type { Engine } from "../engine/engine.ts";
import { connectFrames } from "../http/connect-stream.ts";
import { agentFitIssues } from "../http/agent-fit.ts";
import { parseRunRequest } from "../http/run-input.ts";
import { admitRun, runFrames } from "../http/run-stream.ts";
import type { Metrics } from "../metrics.ts";
import type { EventStore } from "../store/types.ts";
import type { Workspaces } from "../workspace/workspaces.ts";
import { framesObservable } from "./frames-observable.ts";
import { rxjs } from "./runtime-packages.ts";

export interface ThreadlineRunnerDeps {
  engine: Engine;
  store: EventStore;
  agents: AgentRegistry;
  logger: Logger;
  metrics?: Metrics;
  /** The threads' workspaces: a run's workingDirectory is checked before admission. */
  workspaces?: Workspaces;
}

export interface ThreadlineRunnerOptions extends ThreadlineRunnerDeps {
  /** The caller's tenant, as the auth middleware admitted the request. */
  tenantId: string;
  /** Where the CopilotKit handler is mounted (req.baseUrl), for the sentences errors carry. */
  mountPath: string;
  /** The request's id (http/request-context.ts): the run it posts keeps it, its RUN_ERROR names it. */
  requestId?: string | undefined;
}

export class ThreadlineAgentRunner extends AgentRunner {
  readonly #deps: ThreadlineRunnerDeps;
  readonly #tenantId: string;
  readonly #mountPath: string;
  readonly #requestId: string | undefined;
  #failure: { error: unknown } | undefined;

  constructor({ tenantId, mountPath, requestId, ...deps }: ThreadlineRunnerOptions) {
    super();
    this.#deps = deps;
    this.#tenantId = tenantId;
    this.#mountPath = mountPath;
    this.#requestId = requestId;
  }

  run({ agent, input }: AgentRunnerRunRequest): Observable<BaseEvent> {
    const headers = (agent as { headers?: Record<string, string> }).headers ?? {};
    return this.#stream(async (signal) => {
      const agentId = agent.agentId ?? "";
      const definition = this.#deps.agents.get(agentId);
      if (!definition) throw unknownAgent(this.#deps.agents, this.#mountPath, agentId);
      // The same validation as the run route: the runtime's own parse is an older schema's, and
      // it does not know this server's rules (ids, unique message ids, the threadline options).
      // The runtime re-streams to CopilotKit's browser client, an @ag-ui/client 0.0.59: whatever
      // version the request declared, the run is recorded and streamed in the forms 0.0.59
      // accepts (protocol/versions.ts), so its replay anywhere is what this stream was.
      const { protocolVersion: _spokenByTheRuntimeNotTheCaller, ...legacyInput } = input as typeof input & { protocolVersion?: string };
      const run = parseRunRequest(legacyInput, { get: (name) => headers[name.toLowerCase()] });
      if (!run.ok) throw new InvalidRequestError("INVALID_RUN_INPUT", "The run is not a valid AG-UI RunAgentInput; fix the fields listed in `issues`.", run.issues);
      const unfit = agentFitIssues(definition, () => this.#deps.engine.modelIfBuilt(definition), run.input);
      if (unfit.length > 0) throw new InvalidRequestError("INVALID_RUN_INPUT", `Agent "${agentId}" cannot take this run as sent; fix the fields listed in \`issues\`.`, unfit);
      const started = await admitRun(this.#deps, definition, run, this.#tenantId, this.#requestId);
      return runFrames(this.#deps, started, run, signal);
    });
  }

  connect({ threadId, agentId }: AgentRunnerConnectRequest): Observable<BaseEvent> {
    return this.#stream(async (signal) => {
      // Another tenant's thread is not found, and answers as an unknown one: an empty stream.
      const thread = await this.#deps.store.getThread(threadId, this.#tenantId);
      if (!thread) return undefined;
      if (agentId !== undefined && thread.agentId !== agentId) {
        throw new ConflictError(
          "THREAD_AGENT_MISMATCH",
          `Thread ${threadId} belongs to agent "${thread.agentId}"; connect through ${this.#mountPath}/agent/${encodeURIComponent(thread.agentId)}/connect.`,
        );
      }
      return connectFrames(this.#deps, thread, undefined, signal);
    });
  }

  isRunning({ threadId }: AgentRunnerIsRunningRequest): Promise<boolean> {
    return this.#recorded(async () => {
      const thread = await this.#deps.store.getThread(threadId, this.#tenantId);
      return thread !== null && isActive(thread.status);
    });
  }

  /** True when a cancel was recorded for the active run (the log carries it to its executor). */
  stop({ threadId, runId }: AgentRunnerStopRequest): Promise<boolean> {
    return this.#recorded(async () => {
      const thread = await this.#deps.store.getThread(threadId, this.#tenantId);
      if (!thread || !isActive(thread.status)) return false;
      if (runId !== undefined && (thread.activeRunId === null || wireRunId(thread.activeRunId) !== runId)) return false;
      await this.#deps.engine.cancel(threadId);
      return true;
    });
  }

  /**
   * The first failure of stop or isRunning in this request, for the handler to answer (the
   * runtime would make any of them a 500 of its own). Boxed, so that a thrown `undefined` counts.
   */
  failure(): { error: unknown } | undefined {
    return this.#failure;
  }

  async #recorded<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      this.#failure ??= { error: err };
      throw err;
    }
  }

  /** Frames as the runtime's Observable (frames-observable.ts). */
  #stream(open: (signal: AbortSignal) => Promise<AsyncIterable<Frame> | undefined>): Observable<BaseEvent> {
    return framesObservable(rxjs, open, {
      logger: this.#deps.logger,
      message: "a CopilotKit runtime stream failed",
      context: { tenantId: this.#tenantId },
      ...(this.#requestId !== undefined && { metadata: { requestId: this.#requestId } }),
    }) as Observable<BaseEvent>;
  }
}

/** An agent id this server does not host, as the CopilotKit mount at `mountPath` refuses it. */
export function unknownAgent(agents: AgentRegistry, mountPath: string, agentId: string): NotFoundError {
  return new NotFoundError("AGENT_NOT_FOUND", `There is no agent "${agentId}". GET ${mountPath}/info lists the agents this server hosts.`, {
    agents: agents.list().map((a) => a.id),
  });
}
