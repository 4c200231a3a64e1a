/**
 * The agent loop of one run. It is written to resume: every decision is taken from the
 * conversation as the log records it, never from a counter kept in memory, so the same function
 * serves a fresh run and a run recovered by another instance after a crash.
 *
 *   answered interrupts of calls without a result? -> run those calls (approved, or the tool
 *                                      asked and now gets its answer) or record the denial
 *   unresolved backend tool calls?  -> run them (a recorded result is never run again); those that
 *                                      need the user end the run, WAITING for their interrupts
 *   all calls answered, a tool's followUp due? -> the agent's own call of the client's tool
 *   unresolved frontend tool calls? -> end the run, WAITING for the client's results
 *   last message an answer?         -> end the run, WAITING for input
 *   otherwise                       -> one more LLM request (up to maxTurns per run, counted
 *                                      from the log's task.created, so across recoveries)
 * Before each step (a tool call, an LLM request), a draining instance stops the run instead, to
 * hand it over (RunAborted "handoff"); the step in flight always finishes first.
 */
import type { AssistantMessage, Message, ToolCall } from "@ag-ui/core";
import { InterruptRaised, RunAborted, RunFailure, type AbortReason } from "./errors.ts";
import { appendFollowUps, dueFollowUps } from "./follow-up-calls.ts";
import { runLlmTask } from "./llm-task.ts";
import type { RunContext } from "./run-context.ts";
import { runToolTask, skipToolCall } from "./tool-task.ts";

export type RunOutcome =
  | { kind: "waiting"; reason: "input" | "frontend_tool" | "approval" | "interrupt"; pendingToolCallIds: string[]; interruptIds?: string[] }
  | { kind: "completed"; result?: unknown }
  | { kind: "failed"; code: string; message: string }
  | { kind: "aborted"; reason: AbortReason };

function lastAssistant(messages: Message[]): AssistantMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "assistant") return m;
    if (m.role === "user") return undefined;
  }
  return undefined;
}

/** Tool calls of the latest assistant message that have no result yet. */
export function unresolvedToolCalls(messages: Message[]): ToolCall[] {
  const assistant = lastAssistant(messages);
  if (!assistant?.toolCalls?.length) return [];
  const answered = new Set(messages.filter((m) => m.role === "tool").map((m) => m.toolCallId));
  return assistant.toolCalls.filter((c) => !answered.has(c.id));
}

function isFrontendCall(ctx: RunContext, call: ToolCall): boolean {
  const backend = ctx.agent.tools.some((t) => t.name === call.function.name);
  return !backend && ctx.frontendTools.some((t) => t.name === call.function.name);
}

function endsWithAnswer(messages: Message[]): boolean {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "reasoning" || m.role === "activity") continue;
    return m.role === "assistant" && !m.toolCalls?.length;
  }
  return false;
}

/**
 * Calls anywhere in the conversation whose interrupt was answered and that have no result yet:
 * a new user message may follow them (it superseded the question), so the latest assistant
 * message alone does not find them. Rejected: leaving them to the stand-in result of
 * models/from-agui.ts, which would tell the model "never completed" instead of the user's answer.
 */
function answeredInterruptCalls(ctx: RunContext): ToolCall[] {
  const results = new Set(ctx.messages.filter((m) => m.role === "tool").map((m) => m.toolCallId));
  const wanted = new Set<string>();
  for (const rec of ctx.interrupts.values()) {
    if (rec.resolution && !results.has(rec.request.toolCallId)) wanted.add(rec.request.toolCallId);
  }
  if (wanted.size === 0) return [];
  const calls: ToolCall[] = [];
  for (const m of ctx.messages) {
    if (m.role !== "assistant") continue;
    for (const c of m.toolCalls ?? []) if (wanted.has(c.id)) calls.push(c);
  }
  return calls;
}

/**
 * The calls in the order they run: each alone, but consecutive subagent calls together (a model
 * that hands two tasks over in one turn has them worked on at once). Rejected: every call of a
 * turn at once, since tools may depend on the order the model gave them (write, then read).
 */
function batchesOf(ctx: RunContext, calls: ToolCall[]): ToolCall[][] {
  const batches: ToolCall[][] = [];
  let together: ToolCall[] = [];
  for (const call of calls) {
    const parallel = ctx.agent.tools.some((t) => t.name === call.function.name && t.subagent !== undefined);
    if (parallel) {
      together.push(call);
      continue;
    }
    if (together.length > 0) batches.push(together);
    together = [];
    batches.push([call]);
  }
  if (together.length > 0) batches.push(together);
  return batches;
}

async function runCall(ctx: RunContext, call: ToolCall): Promise<void> {
  if (ctx.steered()) await skipToolCall(ctx, call);
  else if (ctx.handingOver()) throw new RunAborted("handoff");
  else await runToolTask(ctx, call);
}

export async function runLoop(ctx: RunContext): Promise<RunOutcome> {
  // The requests this run made before (another instance's, before a recovery) count too.
  let llmRequests = ctx.modelRequests;
  try {
    for (;;) {
      const answered = answeredInterruptCalls(ctx);
      const answeredIds = new Set(answered.map((c) => c.id));
      const unresolved = unresolvedToolCalls(ctx.messages).filter((c) => !answeredIds.has(c.id));
      const backend = [...answered, ...unresolved.filter((c) => !isFrontendCall(ctx, c))];
      if (backend.length > 0) {
        // Parallel calls that each need the user are asked together: a call that waits does not
        // stop the others, and the run waits for all of them in one outcome. Rejected: stopping
        // at the first, which asked the user one question per round trip.
        const waiting: InterruptRaised[] = [];
        for (const batch of batchesOf(ctx, backend)) {
          if (ctx.signal.aborted) throw new RunAborted(ctx.abortReason() ?? "cancelled");
          const settled = await Promise.allSettled(batch.map((call) => runCall(ctx, call)));
          // Every call of a batch has settled before any failure is thrown: a parallel child
          // still writing when the run ends would write into a run that has ended.
          const failure = settled.find((r) => r.status === "rejected" && !(r.reason instanceof InterruptRaised));
          if (failure) throw (failure as PromiseRejectedResult).reason;
          for (const r of settled) if (r.status === "rejected") waiting.push(r.reason as InterruptRaised);
        }
        if (waiting.length > 0) {
          const kind = waiting.every((w) => w.kind === "approval") ? "approval" : "input";
          throw new InterruptRaised(kind, waiting.flatMap((w) => w.interruptIds));
        }
        if (ctx.completion) return { kind: "completed", ...ctx.completion };
        continue;
      }
      const followUps = dueFollowUps(ctx);
      if (followUps.length > 0) {
        await appendFollowUps(ctx, followUps);
        continue;
      }
      const frontend = unresolved.filter((c) => isFrontendCall(ctx, c));
      if (frontend.length > 0) {
        return { kind: "waiting", reason: "frontend_tool", pendingToolCallIds: frontend.map((c) => c.id) };
      }
      if (ctx.steered() || endsWithAnswer(ctx.messages)) {
        return { kind: "waiting", reason: "input", pendingToolCallIds: [] };
      }
      if (llmRequests >= ctx.agent.maxTurns) {
        throw new RunFailure(
          "MAX_TURNS_EXCEEDED",
          `The agent made ${llmRequests} model requests in this run, its limit (maxTurns). ` +
            `Send a new message to continue, or raise maxTurns in the agent definition.`,
        );
      }
      if (ctx.signal.aborted) throw new RunAborted(ctx.abortReason() ?? "cancelled");
      if (ctx.handingOver()) throw new RunAborted("handoff");
      llmRequests++;
      await runLlmTask(ctx, llmRequests);
    }
  } catch (err) {
    if (err instanceof InterruptRaised) {
      const reason = err.kind === "approval" ? "approval" : "interrupt";
      return { kind: "waiting", reason, pendingToolCallIds: [], interruptIds: err.interruptIds };
    }
    if (err instanceof RunAborted) return { kind: "aborted", reason: err.reason };
    const reason = ctx.abortReason();
    if (reason) return { kind: "aborted", reason };
    if (err instanceof RunFailure) return { kind: "failed", code: err.code, message: err.message };
    ctx.logger.error({ err, runId: ctx.runId }, "run failed on an unexpected error");
    const message = err instanceof Error ? err.message : String(err);
    return { kind: "failed", code: "INTERNAL_ERROR", message: `The run failed on an internal error: ${message}` };
  }
}
