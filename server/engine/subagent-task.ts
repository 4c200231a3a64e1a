/**
 * A subagent call (agents/subagent.ts) as a durable task: the child agent runs inside the
 * parent's run, under its lease and signal, and writes through an attributed pen
 * (attributed-pen.ts), so everything it does is in the log as the child run's work.
 *
 * It is written to resume, like the run loop: the child's run id is the parent's tool call's
 * (`<callId>~sub`), and its conversation is the log's messages attributed to it, so a call run
 * again (after a recovery, after the user answered the child's question) finds the child where
 * it was. A child that finished has its answer last: its loop makes no request and the answer
 * becomes the result again. A finished child is never run twice; a child cut mid-request goes on
 * from its last durable step, as any run does.
 *
 * How the child ends, and what the parent gets:
 * - an answer (or a completion): `subagent.ended` success, the answer is the tool's result;
 * - it waits for the user (an approval, ctx.interrupt()): `subagent.ended` suspended, and the
 *   parent waits for the same interrupts; the answering run calls the child again;
 * - a failure: `subagent.ended` failed, and an error result the parent's model reads;
 * - a cancel: `subagent.ended` cancelled, and the parent's run ends cancelled. A lost lease, a
 *   drain or a shutdown write no end: the run goes on elsewhere, and the child with it.
 */
import type { Message, ToolCall, ToolMessage } from "@ag-ui/core";
import { toolContentText } from "../../protocol/frames.ts";
import type { SubagentArgs, SubagentSpec } from "../agents/subagent.ts";
import type { ToolDefinition } from "../agents/define.ts";
import { attributedPen } from "./attributed-pen.ts";
import { InterruptRaised, RunAborted } from "./errors.ts";
import type { RunContext } from "./run-context.ts";
import type { RunOutcome } from "./run-loop.ts";
import { endWaiting } from "./tool-interrupts.ts";
import type { ToolOutcome } from "./tool-task.ts";

/** The child run of a parent's call: one per call, whichever run or instance executes it. */
export function childRunIdOf(toolCallId: string): string {
  return `${toolCallId}~sub`;
}

type RecordResult = (outcome: ToolOutcome) => Promise<ToolMessage>;

export async function runSubagentCall(
  ctx: RunContext,
  call: ToolCall,
  tool: ToolDefinition,
  spec: SubagentSpec,
  args: SubagentArgs,
  taskId: string,
  record: RecordResult,
): Promise<ToolMessage> {
  const childRunId = childRunIdOf(call.id);
  const parentMessageId = ctx.messages.findLast((m) => m.role === "assistant" && m.toolCalls?.some((c) => c.id === call.id))?.id;
  await ctx.writer.commit({
    type: "subagent.started",
    data: {
      runId: ctx.runId,
      childRunId,
      name: tool.name,
      agentId: spec.agent.id,
      ...(spec.agent.description && { description: spec.agent.description }),
      parentToolCallId: call.id,
      ...(parentMessageId !== undefined && { parentMessageId }),
    },
  });
  const child = await childContext(ctx, spec, childRunId, args);
  const outcome = await ctx.runAgent(child);
  return settle(ctx, child, outcome, taskId, tool, record);
}

async function childContext(ctx: RunContext, spec: SubagentSpec, childRunId: string, args: SubagentArgs): Promise<RunContext> {
  const writer = attributedPen(ctx.writer, childRunId);
  const messages: Message[] = ctx.logMessages.filter((m) => m.subagentRunId === childRunId);
  if (messages.length === 0) {
    // The child's conversation starts with its task, as a user turn of its own.
    const task: Message = { id: `${childRunId}-task`, role: "user", content: args.task, subagentRunId: childRunId };
    await writer.commit({ type: "message.appended", data: { runId: ctx.runId, source: "agent", message: task } });
    messages.push(task);
  }
  const { completion: _parentsCompletion, cutAnswer: _parentsCut, ...shared } = ctx;
  const child: RunContext = {
    ...shared,
    agent: spec.agent,
    // The client's tools and context are the parent's conversation with the client, not the child's.
    frontendTools: [],
    context: [],
    messages,
    subagentRunId: childRunId,
    writer,
    model: ctx.modelFor(spec.agent),
    logger: ctx.logger.child({ subagentRunId: childRunId, subagent: spec.agent.id }),
    // Its requests before a recovery are not counted (recovery counts the parent's): a child's
    // maxTurns is per execution of its task, bounded by the parent's own recoveries.
    modelRequests: 0,
  };
  // One state for the parent and all its children: a child's write is the thread's, and
  // parallel children each patch what the others left (the order of the log's writes). Rejected:
  // a copy per child handed back at its end, which lost the writes of a sibling that ended first.
  Object.defineProperty(child, "state", {
    get: () => ctx.state,
    set: (value: unknown) => {
      ctx.state = value;
    },
    enumerable: true,
  });
  return child;
}

/** The child's answer: its last assistant text, or the completion's result. */
function answerOf(child: RunContext, outcome: RunOutcome): string {
  if (outcome.kind === "completed" && outcome.result !== undefined) return typeof outcome.result === "string" ? outcome.result : JSON.stringify(outcome.result);
  const last = child.messages.findLast((m) => m.role === "assistant" && typeof m.content === "string" && m.content.trim() !== "");
  if (last && last.role === "assistant") return last.content ?? "";
  const tool = child.messages.findLast((m) => m.role === "tool");
  return tool && tool.role === "tool" ? toolContentText(tool.content) : "";
}

async function settle(ctx: RunContext, child: RunContext, outcome: RunOutcome, taskId: string, tool: ToolDefinition, record: RecordResult): Promise<ToolMessage> {
  const { runId } = ctx;
  const childRunId = child.subagentRunId!;
  switch (outcome.kind) {
    case "completed":
      ctx.writer.emit({ type: "subagent.ended", data: { runId, childRunId, outcome: "success" } });
      return record({ ok: true, content: answerOf(child, outcome) });
    case "waiting": {
      const interruptIds = outcome.interruptIds ?? [];
      if (interruptIds.length === 0) {
        ctx.writer.emit({ type: "subagent.ended", data: { runId, childRunId, outcome: "success" } });
        return record({ ok: true, content: answerOf(child, outcome) });
      }
      ctx.writer.emit({ type: "subagent.ended", data: { runId, childRunId, outcome: "suspended", interruptIds } });
      return endWaiting(ctx, taskId, new InterruptRaised(outcome.reason === "approval" ? "approval" : "input", interruptIds));
    }
    case "failed":
      ctx.writer.emit({ type: "subagent.ended", data: { runId, childRunId, outcome: "failed", error: { code: outcome.code, message: outcome.message } } });
      return record({ ok: false, code: "SUBAGENT_FAILED", message: `${tool.name} failed (${outcome.code}): ${outcome.message}` });
    case "aborted":
      if (outcome.reason === "cancelled") {
        ctx.writer.emit({ type: "subagent.ended", data: { runId, childRunId, outcome: "cancelled", error: { code: "CANCELLED", message: "The run was cancelled." } } });
      }
      throw new RunAborted(outcome.reason);
  }
}
