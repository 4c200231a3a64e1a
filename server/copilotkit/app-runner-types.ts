/**
 * The types of threadline.agentRunner(), declared without CopilotKit's: `@copilotkit/runtime` is
 * an optional peer dependency, so nothing an application imports from threadline may name its
 * types (or rxjs's, which they lead to). The runner is CopilotKit's v2 `AgentRunner` by shape.
 */

/** What the runtime tells the runner about the request it serves (all it passes). */
export interface AgentRunnerRequest {
  threadId: string;
  /** The agent's id, when the runtime names it (run, and connect on the multi-route transport). */
  agentId?: string;
  /**
   * The request's headers as the runtime forwards them: to a run, the ones its
   * forwardHeadersPolicy lets through (by default `authorization` and `x-*`); to a connect, the
   * ones the runtime passes. To stop and isRunning, which the runtime calls with a thread id
   * alone, the headers of the request in scope (ThreadlineRunner.withRequest), all of them.
   */
  headers: Record<string, string>;
}

export interface AgentRunnerOptions {
  /**
   * Whose threads the runner's calls are: a fixed tenant (default "default"), or a function of
   * the request. The runtime calls stop and isRunning with a thread id and nothing else: with a
   * function, serve the runtime's handler inside `runner.withRequest(request, ...)` so they know
   * the request; outside it they act on no thread (stop answers false, isRunning false), never on
   * another tenant's. Another tenant's thread is not found, whatever the call.
   * The headers are the client's: derive the tenant from what your auth verifies (a token's
   * claims), never from a header a client could set to another tenant's name.
   */
  tenant?: string | ((request: AgentRunnerRequest) => string | Promise<string>);
  /** Bounds of double texting "enqueue" and "interrupt" (app-runner-turn.ts). */
  queue?: RunnerQueueOptions;
}

/** How runs sent to a busy thread wait for it (double texting "enqueue" or "interrupt"). */
export interface RunnerQueueOptions {
  /** How long a run waits for the active one to end; past it, QUEUE_WAIT_EXCEEDED (409), nothing written. Default 120 000 ms. */
  waitMs?: number;
  /** Runs waiting in this runner at once (each follows its thread); past it, RUNNER_QUEUE_FULL (503). Default 100. */
  max?: number;
}

/**
 * rxjs's Observable of AG-UI events, as the runtime consumes them. `any` by necessity: naming
 * rxjs here would make every application's type check need the runtime's dependencies.
 */
// biome-ignore lint/suspicious/noExplicitAny: the runtime's rxjs Observable, which threadline's declarations cannot name (see above).
export type RuntimeEventStream = any;

/** A request's headers: a fetch Request's `Headers`, or Node's `IncomingHttpHeaders`. */
export type HeadersLike = { forEach(callback: (value: string, name: string) => void): void; get(name: string): string | null } | Record<string, string | string[] | undefined>;

/** CopilotKit's AgentRunner (`@copilotkit/runtime/v2`), by shape: pass it as `new CopilotRuntime({ agents, runner })`. */
export interface ThreadlineRunner {
  run(request: { threadId: string; agent: object; input: object }): RuntimeEventStream;
  connect(request: { threadId: string; agentId?: string; headers?: Record<string, string> }): RuntimeEventStream;
  isRunning(request: { threadId: string }): Promise<boolean>;
  stop(request: { threadId: string; runId?: string }): Promise<boolean>;
  /**
   * Runs `handle` (the runtime's handler serving `request`) with the request in scope, so that
   * stop and isRunning, which the runtime calls without it, are scoped by the tenant function:
   * `(req) => runner.withRequest(req, () => handler(req))`.
   */
  withRequest<T>(request: { headers: HeadersLike }, handle: () => T): T;
}
