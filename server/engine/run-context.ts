/** What one executing run carries: its ids, its agent, the conversation so far, its seams. */
import type { Context, Message, Tool } from "@ag-ui/core";
import type { Logger } from "pino";
import type { InterruptRecord } from "../../protocol/interrupts.ts";
import type { AgentDefinition } from "../agents/define.ts";
import type { CutAnswer } from "./cut-answer.ts";
import type { AbortReason } from "./errors.ts";
import type { Model } from "../models/model.ts";
import type { RunProbe, TokenTotals } from "./observer.ts";
import type { RunPen } from "./run-writer.ts";
import type { RunOutcome } from "./run-loop.ts";
import type { ModelFactory } from "../models/model.ts";
import type { TenantMemory } from "../memory/memory.ts";
import type { ForeignBounds } from "./foreign/bounds.ts";

export interface IdSource {
  message(): string;
  toolCall(): string;
}

export interface RunContext {
  threadId: string;
  /** The tenant that owns the thread. */
  tenantId: string;
  runId: string;
  agent: AgentDefinition;
  /** Tools the client executes (RunAgentInput.tools): calls to them end the run, WAITING. */
  frontendTools: Tool[];
  /** RunAgentInput.context: told to the LLM after the agent's instructions. */
  context: Context[];
  /** RunAgentInput.forwardedProps as the run was accepted (tools and instructionsFor read it). */
  forwardedProps?: unknown;
  /** The conversation as the LLM will see it; the engine appends to it as the log grows. */
  messages: Message[];
  /**
   * The thread's conversation as the log held it when this execution began, every subagent's
   * messages included (they carry `subagentRunId`, and `messages` leaves them out): where a
   * child resumed after a recovery or an answer finds its own work (subagent-task.ts).
   */
  logMessages: readonly Message[];
  /** Set in a subagent's context: the child run whose work this is (protocol/subagent-events.ts). */
  subagentRunId?: string;
  /** The model of another agent: a subagent's (subagent-task.ts). */
  modelFor: ModelFactory;
  /** Runs an agent's loop (or its remote's, or a foreign source's) in a context: a subagent's (subagent-task.ts). */
  runAgent: (ctx: RunContext) => Promise<RunOutcome>;
  /** The thread's shared state, kept equal to what the log says. */
  state: unknown;
  writer: RunPen;
  /** Aborted on cancel, on lease loss, on shutdown and when the store is lost; `abortReason` says which. */
  signal: AbortSignal;
  abortReason(): AbortReason | undefined;
  /** True once a newer message asked this run to stop after the current tool (interrupt). */
  steered(): boolean;
  /**
   * True once this instance drains: the step in flight finishes, and the run stops before its
   * next step, to be handed over (a step started now could be cut by the drain's end and redone).
   */
  handingOver(): boolean;
  /**
   * The answer a cut model request had streamed, when this run was taken over mid-answer: the
   * next model request is held against it (answer-echo.ts), then it is cleared.
   */
  cutAnswer?: CutAnswer;
  /**
   * Every interrupt of the thread with its answer, as the log has it (the run's fold, which the
   * run's own commits keep current): what needsApproval and ctx.interrupt() decide from.
   */
  interrupts: ReadonlyMap<string, InterruptRecord>;
  /**
   * Model requests the log records for this run before this executor took it up: 0 for a fresh
   * run, the count of its task.created (kind "llm") for a recovered one. maxTurns counts on from
   * it, so a run that changes instances never gets more requests than its agent allows.
   */
  modelRequests: number;
  /** Set by a tool through ToolContext.complete: the run ends COMPLETED after it. */
  completion?: { result?: unknown };
  model: Model;
  ids: IdSource;
  /** Names the thread, the run and the request that posted it. */
  logger: Logger;
  /** The observer's probe of this run (metrics, traces): model calls and tool calls report to it. */
  probe: RunProbe;
  /** What the model reported this execution used (usage.recorded), summed: the run-end line says it. */
  tokens: TokenTotals;
  /** The memory of the thread's tenant (docs/memory.md): tools reach it as ctx.memory. */
  memory: TenantMemory;
  /** What a foreign agent's run may write (engine/foreign/bounds.ts); default DEFAULT_FOREIGN_BOUNDS. */
  foreignBounds?: ForeignBounds;
}
