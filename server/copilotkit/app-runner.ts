/**
 * threadline.agentRunner(): CopilotKit's AgentRunner for an application's OWN runtime
 * (`new CopilotRuntime({ agents, runner })`), whatever its agents are (BuiltInAgent, HttpAgent,
 * LangGraph, Mastra: any @ag-ui/client AbstractAgent). Each run's events go to the thread's log as
 * they come (engine/foreign/ingest.ts), so the runtime keeps nothing in memory:
 *
 *   run       -> admission (tenant, double texting), the agent run by the engine, its frames
 *   connect   -> the log's replay and the live run, whichever instance executes it
 *   isRunning -> the thread's status
 *   stop      -> a durable cancel from any instance; the executing one aborts the agent
 *
 * The agent object exists only in the process whose runtime handed it over, so its run cannot go
 * on elsewhere: if that instance dies, recovery on another ends the run with RUN_ERROR
 * RUNNER_RUN_LOST within the lease bound (the code is kept in its run.accepted, since no other
 * registry knows the agent). Rejected: registering the runtime's agents in Threadline's registry
 * (the runtime clones its agent per request, with that request's headers; a registry would run
 * one caller's run with another's credentials).
 *
 * Unlike server/copilotkit/runner.ts (Threadline's own agents behind its own /api/copilotkit),
 * one runner serves every caller of the runtime: the tenant comes from the options, per request
 * where the runtime says anything about the request (app-runner-types.ts).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createRequire } from "node:module";
import type { RunAgentInput } from "@ag-ui/core";
import type { Logger } from "pino";
import type * as Rxjs from "rxjs";
import type { Frame } from "../../protocol/frames.ts";
import { wireRunId } from "../../protocol/run-ids.ts";
import { isActive } from "../../protocol/status.ts";
import { type AgentDefinition, defineAgent } from "../agents/define.ts";
import type { Engine } from "../engine/engine.ts";
import type { ForeignCodes } from "../engine/foreign/ingest.ts";
import { ConflictError, InvalidRequestError } from "../errors.ts";
import { notStartedError, type Serving } from "../serving.ts";
import { connectFrames } from "../http/connect-stream.ts";
import { parseRunRequest } from "../http/run-input.ts";
import { admitRun, runFrames } from "../http/run-stream.ts";
import type { Metrics } from "../metrics.ts";
import type { EventStore } from "../store/types.ts";
import { DEFAULT_TENANT, TENANT_NAME } from "../tenant.ts";
import type { Workspaces } from "../workspace/workspaces.ts";
import { agentEvents, type RunnableAgent, withTraceHeaders } from "./agent-events.ts";
import { RunnerTurns } from "./app-runner-turn.ts";
import { framesObservable } from "./frames-observable.ts";
import type { AgentRunnerOptions, AgentRunnerRequest, HeadersLike, RuntimeEventStream, ThreadlineRunner } from "./app-runner-types.ts";
import { CopilotkitRuntimeMissingError } from "./missing.ts";

/** The RUN_ERROR codes of a run of the runtime's agent. */
export const RUNNER_CODES: ForeignCodes = {
  malformed: "RUNNER_MALFORMED",
  disconnected: "RUNNER_DISCONNECTED",
  failed: "RUNNER_RUN_ERROR",
  tooLarge: "RUNNER_OUTPUT_TOO_LARGE",
  name: "The agent",
};

export const RUNNER_RUN_LOST = {
  code: "RUNNER_RUN_LOST",
  message: "The server running this agent stopped before its answer ended, and the agent cannot be picked up by another server midway. What it had finished is kept; send your message again.",
};

export interface AppRunnerDeps {
  engine: Engine;
  store: EventStore;
  logger: Logger;
  metrics?: Metrics;
  workspaces?: Workspaces;
  /** Until threadline.start() has finished, runs are refused (503 NOT_STARTED). */
  serving: Serving;
}

export class ThreadlineAppRunner implements ThreadlineRunner {
  readonly #deps: AppRunnerDeps;
  readonly #tenant: NonNullable<AgentRunnerOptions["tenant"]>;
  readonly #rxjs: typeof Rxjs;
  readonly #turns: RunnerTurns;
  /** The request the runtime's handler serves now (withRequest): stop and isRunning get no other. */
  readonly #requests = new AsyncLocalStorage<Record<string, string>>();
  #warnedUnscoped = false;

  constructor(deps: AppRunnerDeps, options: AgentRunnerOptions = {}) {
    this.#deps = deps;
    this.#tenant = options.tenant ?? DEFAULT_TENANT;
    if (typeof this.#tenant === "string") checkTenant(this.#tenant);
    this.#rxjs = runtimeRxjs();
    this.#turns = new RunnerTurns(deps, options.queue);
  }

  /** Runs waiting now for their threads' active runs (double texting enqueue / interrupt). */
  get waiting(): number {
    return this.#turns.waiting;
  }

  run({ threadId, agent, input }: { threadId: string; agent: object; input: object }): RuntimeEventStream {
    const app = agent as RunnableAgent & { agentId?: string; headers?: Record<string, string> };
    const headers = lowerCased(app.headers ?? {});
    return this.#stream(async (signal) => {
      if (!this.#deps.serving.started) throw notStartedError();
      const agentId = app.agentId ?? "";
      const tenantId = await this.#tenantOf({ threadId, ...(agentId !== "" && { agentId }), headers });
      // The runtime's parse is an older schema's; the run route's rules apply (ids, the options).
      // The runtime re-streams to CopilotKit's browser client, an @ag-ui/client 0.0.59: the run
      // is recorded and streamed in the forms it accepts (protocol/versions.ts), as runner.ts does.
      const { protocolVersion: _spokenByTheRuntime, ...legacyInput } = input as RunAgentInput;
      const run = parseRunRequest(legacyInput, { get: (name) => headers[name.toLowerCase()] });
      if (!run.ok) throw new InvalidRequestError("INVALID_RUN_INPUT", "The run is not a valid AG-UI RunAgentInput; fix the fields listed in `issues`.", run.issues);
      const definition = runtimeAgent(agentId, app);
      // Every admission refuses a busy thread; the policy decides what the refusal means here
      // (app-runner-turn.ts): only this process holds the agent object a queued run needs.
      const policy = run.options.doubleTexting ?? definition.doubleTexting;
      const rejecting = { ...run, options: { ...run.options, doubleTexting: "reject" as const } };
      const started = await this.#turns.admit(threadId, policy, () => admitRun(this.#deps, definition, rejecting, tenantId));
      return runFrames(this.#deps, started, run, signal);
    });
  }

  connect({ threadId, agentId, headers }: { threadId: string; agentId?: string; headers?: Record<string, string> }): RuntimeEventStream {
    return this.#stream(async (signal) => {
      const tenantId = await this.#tenantOf({ threadId, ...(agentId !== undefined && { agentId }), headers: lowerCased(headers ?? {}) });
      // Another tenant's thread is not found, and answers as an unknown one: an empty stream.
      const thread = await this.#deps.store.getThread(threadId, tenantId);
      if (!thread) return undefined;
      if (agentId !== undefined && thread.agentId !== agentId) {
        throw new ConflictError("THREAD_AGENT_MISMATCH", `Thread ${threadId} belongs to agent "${thread.agentId}", not "${agentId}".`);
      }
      return connectFrames(this.#deps, thread, undefined, signal);
    });
  }

  async isRunning({ threadId }: { threadId: string }): Promise<boolean> {
    const tenantId = await this.#scopedTenant(threadId);
    if (tenantId === null) return false;
    const thread = await this.#deps.store.getThread(threadId, tenantId);
    return thread !== null && isActive(thread.status);
  }

  /**
   * True when a cancel was recorded for the active run (the log carries it to its executor).
   * Another tenant's thread is not found: false, nothing written (the runtime answers
   * `stopped: false`, as for a thread with no active run).
   */
  async stop({ threadId, runId }: { threadId: string; runId?: string }): Promise<boolean> {
    const tenantId = await this.#scopedTenant(threadId);
    if (tenantId === null) return false;
    const thread = await this.#deps.store.getThread(threadId, tenantId);
    if (!thread || !isActive(thread.status)) return false;
    if (runId !== undefined && (thread.activeRunId === null || wireRunId(thread.activeRunId) !== runId)) return false;
    await this.#deps.engine.cancel(threadId);
    return true;
  }

  withRequest<T>(request: { headers: HeadersLike }, handle: () => T): T {
    return this.#requests.run(headersOf(request.headers), handle);
  }

  /**
   * The tenant stop and isRunning act for: the fixed one, or the function's for the request in
   * scope (withRequest). With a function and no request in scope, null: they act on nothing.
   * Rejected: the thread as stored, whoever asks (the runtime's stop route would let any caller
   * stop any tenant's run whose thread id it knows).
   */
  async #scopedTenant(threadId: string): Promise<string | null> {
    if (typeof this.#tenant === "string") return this.#tenant;
    const headers = this.#requests.getStore();
    if (headers === undefined) {
      if (!this.#warnedUnscoped) {
        this.#warnedUnscoped = true;
        this.#deps.logger.warn({ threadId }, "agentRunner() has a tenant function but stop/isRunning were called outside runner.withRequest(): they act on no thread. Wrap the runtime's handler in runner.withRequest(request, ...) (README: Make any AG-UI agent durable).");
      }
      return null;
    }
    return this.#tenantOf({ threadId, headers });
  }

  async #tenantOf(request: AgentRunnerRequest): Promise<string> {
    if (typeof this.#tenant === "string") return this.#tenant;
    const tenant = await this.#tenant(request);
    checkTenant(tenant);
    return tenant;
  }

  /** Frames as the runtime's Observable (frames-observable.ts). */
  #stream(open: (signal: AbortSignal) => Promise<AsyncIterable<Frame> | undefined>): RuntimeEventStream {
    return framesObservable(this.#rxjs, open, { logger: this.#deps.logger, message: "an agentRunner() stream failed" });
  }
}

/**
 * The runtime's agent as a definition for this one run: its events are the agent's own run
 * (agent-events.ts); the engine's instructions, model and tools are unused. onRecovery "fail":
 * no other instance holds the agent.
 */
export function runtimeAgent(agentId: string, agent: RunnableAgent): AgentDefinition {
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(agentId)) {
    throw new InvalidRequestError("INVALID_AGENT_ID", `The runtime's agent id "${agentId}" cannot name a thread's agent: use 1-64 letters, digits, "_" or "-".`, [
      { path: "/agentId", message: "1-64 letters, digits, _ or -" },
    ]);
  }
  const base = defineAgent({ id: agentId, instructions: "", maxTurns: 1, onRecovery: "fail", stateInContext: false });
  return {
    ...base,
    foreign: { events: (input, signal, bounds, trace) => agentEvents(withTraceHeaders(agent, trace), input, signal, RUNNER_CODES, bounds), codes: RUNNER_CODES, lost: RUNNER_RUN_LOST },
  };
}

function checkTenant(tenant: string): void {
  if (!TENANT_NAME.test(tenant)) {
    throw new InvalidRequestError("INVALID_TENANT", `agentRunner()'s tenant "${tenant}" is not a tenant name: use 1-64 letters, digits, "_", "." or "-".`, [
      { path: "/tenant", message: "1-64 letters, digits, _ . or -" },
    ]);
  }
}

/** A fetch Request's Headers or Node's IncomingHttpHeaders, as lower-cased names and one value each. */
function headersOf(headers: HeadersLike): Record<string, string> {
  if (typeof (headers as Headers).forEach === "function" && typeof (headers as Headers).get === "function") {
    const out: Record<string, string> = {};
    (headers as Headers).forEach((value, name) => {
      out[name.toLowerCase()] = value;
    });
    return out;
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/**
 * rxjs as CopilotKit's runtime resolves it (runtime-packages.ts says why), loaded when a runner is
 * built: an application that builds one has the runtime installed, one that never does need not.
 */
function runtimeRxjs(): typeof Rxjs {
  try {
    const fromRuntime = createRequire(createRequire(import.meta.url).resolve("@copilotkit/runtime/v2"));
    return fromRuntime("rxjs") as typeof Rxjs;
  } catch (err) {
    throw new CopilotkitRuntimeMissingError(err);
  }
}
