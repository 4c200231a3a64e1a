/**
 * What the engine tells whoever watches it (metrics, traces): a narrow seam of callbacks, passed
 * in, so that the engine names no metrics library, no tracer and no socket. Calls are
 * synchronous and must not throw; the default watches nothing.
 *
 * A run is watched by a probe from the moment it executes here (admitted here, or taken over by
 * recovery) until it stops here: ended (its terminal event committed) or left for recovery
 * (lease lost, shutdown, store lost). A run that ends without executing here (recovery fails it,
 * a cancel settles an orphan) is reported by `runEnded` alone.
 */
import type { TraceContext } from "../../protocol/trace-context.ts";
import type { AbortReason } from "./errors.ts";

/** Who a run is, as every report about it names it. */
export interface RunFacts {
  threadId: string;
  runId: string;
  tenantId: string;
  agentId: string;
  /** The request that posted it (run.accepted), when it came through HTTP. */
  requestId?: string;
  /** The W3C trace context it was posted with (run.accepted): its span's remote parent. */
  traceContext?: TraceContext;
}

export type RunEndOutcome = "completed" | "waiting" | "failed" | "cancelled";

/** Tokens the model reported for this execution's requests (usage.recorded). */
export interface TokenTotals {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** How a run ended, as its terminal event says it; `durationMs` and `tokens` are this instance's part. */
export interface RunEnd {
  outcome: RunEndOutcome;
  /** The failure's code (workflow.failed), for outcome "failed". */
  errorCode?: string;
  durationMs: number;
  tokens: TokenTotals;
}

/** What a recovery sweep did with a run whose lease expired. */
export type RecoveryOutcome = "resumed" | "failed" | "cancelled";

export interface EngineObserver {
  /** A run began executing here. `recovered`: taken over from an instance that stopped heartbeating. */
  runExecuting(run: RunFacts, opts: { recovered: boolean }): RunProbe;
  /** A run's terminal event committed here, whether it executed here or not. */
  runEnded(run: RunFacts, end: RunEnd): void;
  /** A run waits behind its thread's active run (double texting enqueue or interrupt). */
  runQueued(run: RunFacts): void;
  recovery(run: RunFacts, outcome: RecoveryOutcome): void;
  /** A heartbeat of this instance's leases failed (missed, not lost yet: the TTL spans three). */
  heartbeatFailed(): void;
}

export interface RunProbe {
  /** Runs the run's loop as its work (a tracer makes the run's span the active one). */
  within<T>(fn: () => Promise<T>): Promise<T>;
  /** Fields every log line of the run carries (a tracer's `trace_id` and `span_id`). */
  logFields(): Record<string, string>;
  /** Headers that carry the run's trace context onto a request it makes (a remote agent's POST). */
  traceHeaders(): Record<string, string>;
  /** `modelId` is the model's "provider:name" (models/model.ts). */
  modelCall(modelId: string): CallProbe & { firstToken(): void; usage(tokens: TokenTotals): void };
  /** `tool`: the agent's tool, or undefined for a name the agent does not have. */
  toolCall(tool: string | undefined, toolCallId: string): CallProbe;
  /** The run stopped here: ended (its terminal event committed), or left for another instance to resume. */
  stopped(how: { end: RunEnd } | { left: AbortReason }): void;
}

/**
 * How a model or tool call ended. "error" carries the code the call failed with (ModelError's, a
 * tool result's); "aborted": the run stopped under it (cancel, lease lost); "denied": the user
 * did not approve the tool; "waiting": the tool asked the user and the run waits for the answer.
 */
export type CallEnd = { outcome: "ok" | "aborted" | "denied" | "waiting" } | { outcome: "error"; code: string };

export interface CallProbe {
  /** Runs `fn` as this call's work (a tracer makes it the active span, so the calls inside nest under it). */
  within<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Headers that carry this call's trace context onto a request it makes (W3C `traceparent`,
   * `tracestate`, and whatever the application's propagators add): the model request's headers.
   * Explicit, not left to an instrumented fetch: without a context manager nothing else knows
   * which span is the call's.
   */
  traceHeaders(): Record<string, string>;
  /** The first report counts: a later one (a failure after the result was recorded) is ignored. */
  ended(end: CallEnd): void;
}

const none = () => ({});
const noCall: CallProbe = { within: (fn) => fn(), traceHeaders: none, ended: () => {} };
const noProbe: RunProbe = {
  within: (fn) => fn(),
  logFields: none,
  traceHeaders: none,
  modelCall: () => ({ ...noCall, firstToken: () => {}, usage: () => {} }),
  toolCall: () => noCall,
  stopped: () => {},
};

/** Watches nothing: the engine's default. */
export const NO_OBSERVER: EngineObserver = {
  runExecuting: () => noProbe,
  runEnded: () => {},
  runQueued: () => {},
  recovery: () => {},
  heartbeatFailed: () => {},
};

export function noTokens(): TokenTotals {
  return { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
}
