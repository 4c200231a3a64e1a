/**
 * The agent loop of one run. It is written to resume: every decision is taken from the
 * conversation as the log records it, never from a counter kept in memory, so the same function
 * serves a fresh run and a run recovered by another instance after a crash.
 *
 *   unresolved backend tool calls?  -> run them (a recorded result is never run again)
 *   unresolved frontend tool calls? -> end the run, WAITING for the client's results
 *   last message an answer?         -> end the run, WAITING for input
 *   otherwise                       -> one more LLM request (up to maxTurns per run)
 */
import type { AssistantMessage, Message, ToolCall } from "@ag-ui/core";
import { RunAborted, RunFailure, type AbortReason } from "./errors.ts";
import { runLlmTask } from "./llm-task.ts";
import type { RunContext } from "./run-context.ts";
import { runToolTask, skipToolCall } from "./tool-task.ts";

export type RunOutcome =
  | { kind: "waiting"; reason: "input" | "frontend_tool"; pendingToolCallIds: string[] }
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

export async function runLoop(ctx: RunContext): Promise<RunOutcome> {
  let llmRequests = 0;
  try {
    for (;;) {
      const unresolved = unresolvedToolCalls(ctx.messages);
      const backend = unresolved.filter((c) => !isFrontendCall(ctx, c));
      if (backend.length > 0) {
        for (const call of backend) {
          if (ctx.signal.aborted) throw new RunAborted(ctx.abortReason() ?? "cancelled");
          if (ctx.steered()) await skipToolCall(ctx, call);
          else await runToolTask(ctx, call);
        }
        if (ctx.completion) return { kind: "completed", ...ctx.completion };
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
      llmRequests++;
      await runLlmTask(ctx, llmRequests);
    }
  } catch (err) {
    if (err instanceof RunAborted) return { kind: "aborted", reason: err.reason };
    const reason = ctx.abortReason();
    if (reason) return { kind: "aborted", reason };
    if (err instanceof RunFailure) return { kind: "failed", code: err.code, message: err.message };
    ctx.logger.error({ err, runId: ctx.runId }, "run failed on an unexpected error");
    const message = err instanceof Error ? err.message : String(err);
    return { kind: "failed", code: "INTERNAL_ERROR", message: `The run failed on an internal error: ${message}` };
  }
}
