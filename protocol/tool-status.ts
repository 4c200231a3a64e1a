/**
 * What became of each tool call, from the durable log alone: the one owner of a tool call's
 * status, for the REST thread view (live and after a reload alike) and so for every card the app
 * draws. Seven states, each true of the log:
 *
 * - awaiting_approval / awaiting_input: an interrupt asks a person and has no answer yet, or the
 *   run suspended for a frontend tool's result (the client's answer) and nothing came since;
 * - running: the call's run is the thread's active run, and the call has no result yet;
 * - complete / failed: the call has its result (an error result, or its task failed, is failed);
 * - cancelled: its run was cancelled before it had a result, or its interrupt was closed unanswered
 *   (superseded by a newer message, or expired);
 * - never_run: its run ended without running it (denied, skipped for a newer message, or the run
 *   ended or failed before it started).
 *
 * The lifecycle's key rule holds: "running" only while the thread is active.
 * Rejected: "complete" for every settled call without a result (the rule this replaces), which
 * showed an email waiting for approval, and a plan the user cancelled, as done.
 *
 * The ledger folds the facts (which run last took a call up, whether it started, how it failed, how
 * each such run ended, what the last suspension waited for); `toolCallStatuses` reads them against
 * the conversation at snapshot time. Pure; no clock (an expired interrupt stays awaiting until the
 * next admission records it cancelled).
 */
import type { ContentPart, Message } from "@ag-ui/core";
import { z } from "zod";
import type { StoredEvent } from "./events.ts";
import type { InterruptRecord } from "./interrupts.ts";
import { isActive, type ThreadStatus } from "./lifecycle.ts";

export const TOOL_CALL_STATES = ["awaiting_approval", "awaiting_input", "running", "complete", "failed", "cancelled", "never_run"] as const;
export type ToolCallState = (typeof TOOL_CALL_STATES)[number];

/** Why a call was cancelled or never ran, when the log says. */
export type ToolCallReason = "denied" | "skipped" | "superseded" | "expired" | "run_cancelled" | "run_failed" | "not_run";

export interface ToolCallStatus {
  name: string;
  status: ToolCallState;
  reason?: ToolCallReason;
  /** The tool message's content, when a result was appended. */
  result?: string | ContentPart[];
}

const RunEndSchema = z.enum(["suspended", "completed", "failed", "cancelled"]);
type RunEnd = z.infer<typeof RunEndSchema>;

/** The ledger as a checkpoint keeps it (protocol/checkpoint.ts). */
export const ToolLedgerStateSchema = z.object({
  /** call id -> [the run that last took it up, started (a task ran it), its task's failure code] */
  calls: z.array(z.tuple([z.string(), z.string(), z.boolean(), z.string().optional()])),
  /** how each run that took a call up ended */
  runEnds: z.array(z.tuple([z.string(), RunEndSchema])),
  /** the last suspension for frontend tools: its run and the calls it waits for */
  suspended: z.object({ runId: z.string(), callIds: z.array(z.string()) }).optional(),
});
export type ToolLedgerState = z.infer<typeof ToolLedgerStateSchema>;

interface CallFacts {
  run: string;
  started: boolean;
  failCode?: string;
}

/** A question closed without an answer: a newer message came instead, or it expired. */
function closedAsk(ask: InterruptRecord): Pick<ToolCallStatus, "status" | "reason"> {
  return { status: "cancelled", reason: ask.resolution?.via === "expired" ? "expired" : "superseded" };
}

/** Result codes (task.failed) that mean the tool itself never ran. */
const NOT_RUN_CODES: Readonly<Record<string, ToolCallReason>> = { DENIED: "denied", SKIPPED: "skipped" };

export class ToolLedger {
  readonly #calls = new Map<string, CallFacts>();
  readonly #runEnds = new Map<string, RunEnd>();
  readonly #runsWithCalls = new Set<string>();
  #suspended: { runId: string; callIds: string[] } | undefined;

  /** From a checkpoint; one older than the ledger knows only which calls' tasks failed. */
  static from(state: ToolLedgerState | undefined, failedCalls: readonly string[] = []): ToolLedger {
    const l = new ToolLedger();
    for (const [id, run, started, failCode] of state?.calls ?? []) l.#set(id, { run, started, ...(failCode && { failCode }) });
    if (!state) for (const id of failedCalls) l.#set(id, { run: "", started: true, failCode: "TOOL_ERROR" });
    for (const [run, end] of state?.runEnds ?? []) l.#runEnds.set(run, end);
    l.#suspended = state?.suspended;
    return l;
  }

  toState(): ToolLedgerState {
    return {
      calls: [...this.#calls].map(([id, f]) => [id, f.run, f.started, ...(f.failCode ? [f.failCode] : [])] as ToolLedgerState["calls"][number]),
      runEnds: [...this.#runEnds],
      ...(this.#suspended && { suspended: this.#suspended }),
    };
  }

  #set(id: string, facts: CallFacts): void {
    this.#calls.set(id, facts);
    this.#runsWithCalls.add(facts.run);
  }

  /** A run took the call up: proposed it, answered its interrupt, or started its task. */
  touch(callId: string, runId: string, started = false): void {
    const prev = this.#calls.get(callId);
    this.#set(callId, { run: runId, started: started || (prev?.run === runId && prev.started) });
  }

  taskFailed(callId: string, code: string): void {
    const f = this.#calls.get(callId);
    if (f) f.failCode = code;
  }

  /** A retry that succeeded. */
  taskCompleted(callId: string): void {
    const f = this.#calls.get(callId);
    if (f) delete f.failCode;
  }

  /** The durable events that move a call: the Reconstructor hands each to it. */
  push(e: StoredEvent): void {
    switch (e.type) {
      case "message.appended": {
        const m = e.data.message as Message;
        if (m.role === "assistant" && e.data.runId) for (const c of m.toolCalls ?? []) this.touch(c.id, e.data.runId);
        return;
      }
      case "workflow.suspended":
        this.#ended(e.data.runId, "suspended");
        this.#suspended = e.data.reason === "frontend_tool" ? { runId: e.data.runId, callIds: e.data.pendingToolCallIds } : undefined;
        return;
      case "workflow.completed":
        this.#ended(e.data.runId, "completed");
        return;
      case "workflow.failed":
        this.#ended(e.data.runId, "failed");
        return;
      case "workflow.cancelled":
        this.#ended(e.data.runId, "cancelled");
        return;
      default:
    }
  }

  #ended(runId: string, end: RunEnd): void {
    if (this.#runsWithCalls.has(runId)) this.#runEnds.set(runId, end);
  }

  /** Every call of the conversation with what became of it. */
  statuses(view: {
    messages: readonly Message[];
    interrupts: ReadonlyMap<string, InterruptRecord>;
    status: ThreadStatus | null;
    activeRunId: string | undefined;
    lastEndedRunId: string | undefined;
  }): Record<string, ToolCallStatus> {
    const results = new Map<string, { content: string | ContentPart[]; error: boolean }>();
    for (const m of view.messages) if (m.role === "tool") results.set(m.toolCallId, { content: m.content, error: m.error !== undefined });
    const asks = new Map<string, InterruptRecord>();
    for (const rec of view.interrupts.values()) asks.set(rec.request.toolCallId, rec);
    const active = view.status !== null && isActive(view.status);
    const out: Record<string, ToolCallStatus> = {};
    for (const m of view.messages) {
      if (m.role !== "assistant") continue;
      for (const call of m.toolCalls ?? []) {
        const result = results.get(call.id);
        const ask = asks.get(call.id);
        const fate = result ? this.#answered(call.id, result.error, ask) : this.#open(call.id, ask, active, view);
        out[call.id] = { name: call.function.name, ...fate, ...(result && { result: result.content }) };
      }
    }
    return out;
  }

  #answered(callId: string, error: boolean, ask: InterruptRecord | undefined): Pick<ToolCallStatus, "status" | "reason"> {
    // Its question was closed unanswered: the result only tells the model so.
    if (ask?.resolution?.status === "cancelled") return closedAsk(ask);
    const code = this.#calls.get(callId)?.failCode;
    const notRun = code === undefined ? undefined : NOT_RUN_CODES[code];
    if (notRun) return { status: "never_run", reason: notRun };
    return { status: error || code !== undefined ? "failed" : "complete" };
  }

  #open(
    callId: string,
    ask: InterruptRecord | undefined,
    active: boolean,
    view: { activeRunId: string | undefined; lastEndedRunId: string | undefined },
  ): Pick<ToolCallStatus, "status" | "reason"> {
    if (ask && !ask.resolution) return { status: ask.request.kind === "approval" ? "awaiting_approval" : "awaiting_input" };
    if (ask?.resolution?.status === "cancelled") return closedAsk(ask);
    const facts = this.#calls.get(callId);
    if (active && facts?.run === view.activeRunId) return { status: "running" };
    const s = this.#suspended;
    if (!active && s && s.runId === view.lastEndedRunId && s.callIds.includes(callId)) return { status: "awaiting_input" };
    const end = facts ? this.#runEnds.get(facts.run) : undefined;
    if (end === "cancelled") return { status: "cancelled", reason: "run_cancelled" };
    if (end === "failed") return facts?.started ? { status: "failed", reason: "run_failed" } : { status: "never_run", reason: "run_failed" };
    // A frontend call the next message left unanswered, or a call its run never reached.
    return { status: "never_run", reason: s?.callIds.includes(callId) ? "superseded" : "not_run" };
  }
}
