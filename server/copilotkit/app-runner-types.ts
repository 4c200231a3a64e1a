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
   * ones the runtime passes. stop and isRunning get none (see AgentRunnerOptions.tenant).
   */
  headers: Record<string, string>;
}

export interface AgentRunnerOptions {
  /**
   * Whose threads the runner's calls are: a fixed tenant (default "default"), or a function of
   * the request for runs and connects. The runtime calls stop and isRunning with a thread id and
   * nothing else, so with a function they act on the thread as stored, whoever asks: authorize
   * the runtime's stop route in your own middleware when tenants must not stop each other's runs.
   * The headers are the client's: derive the tenant from what your auth verifies (a token's
   * claims), never from a header a client could set to another tenant's name.
   */
  tenant?: string | ((request: AgentRunnerRequest) => string | Promise<string>);
}

/**
 * rxjs's Observable of AG-UI events, as the runtime consumes them. `any` by necessity: naming
 * rxjs here would make every application's type check need the runtime's dependencies.
 */
// biome-ignore lint/suspicious/noExplicitAny: the runtime's rxjs Observable, which threadline's declarations cannot name (see above).
export type RuntimeEventStream = any;

/** CopilotKit's AgentRunner (`@copilotkit/runtime/v2`), by shape: pass it as `new CopilotRuntime({ agents, runner })`. */
export interface ThreadlineRunner {
  run(request: { threadId: string; agent: object; input: object }): RuntimeEventStream;
  connect(request: { threadId: string; agentId?: string; headers?: Record<string, string> }): RuntimeEventStream;
  isRunning(request: { threadId: string }): Promise<boolean>;
  stop(request: { threadId: string; runId?: string }): Promise<boolean>;
}
