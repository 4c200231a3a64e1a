/**
 * The two ways a backend tool waits for a person, decided from the log only (ctx.interrupts, the
 * run's fold), so that a resumed, recovered or re-executed run takes the same decision:
 * - needsApproval: before the tool executes, its call's approval interrupt must be answered;
 *   approved -> it executes, denied -> it does not, and the model reads why;
 * - ctx.interrupt(): the n-th ask of a tool call returns the recorded answer if there is one;
 *   otherwise it is recorded (interrupt.requested) and the run ends WAITING.
 * An interrupt is asked once: a request already in the log (a recovered run asking again) is
 * not written twice.
 */
import type { ToolCall } from "@ag-ui/core";
import {
  APPROVAL_RESPONSE_JSON_SCHEMA,
  approvalOf,
  interruptIdFor,
  type InterruptRequest,
} from "../../protocol/interrupts.ts";
import { InterruptCancelledError, type InterruptAsk, type ToolDefinition } from "../agents/define.ts";
import { InterruptRaised } from "./errors.ts";
import type { RunContext } from "./run-context.ts";

/** Per execution of a tool: how many times it asked, and the interrupt it is now waiting for. */
export interface InterruptTrace {
  asks: number;
  raised?: InterruptRaised;
}

function parentMessageOf(ctx: RunContext, call: ToolCall): string {
  for (const m of ctx.messages) {
    if (m.role === "assistant" && m.toolCalls?.some((c) => c.id === call.id)) return m.id;
  }
  return call.id;
}

async function request(ctx: RunContext, data: Omit<InterruptRequest, "runId">): Promise<void> {
  if (ctx.interrupts.has(data.interruptId)) return;
  await ctx.writer.commit({ type: "interrupt.requested", data: { runId: ctx.runId, ...data } });
}

export type ApprovalCheck = { denied: false } | { denied: true; message: string };

export async function checkApproval(
  ctx: RunContext,
  call: ToolCall,
  tool: ToolDefinition,
  args: unknown,
  taskId: string,
): Promise<ApprovalCheck> {
  const rule = tool.needsApproval;
  if (!rule) return { denied: false };
  if (typeof rule === "function" && !(await rule(args))) return { denied: false };
  const interruptId = interruptIdFor(call.id);
  const rec = ctx.interrupts.get(interruptId);
  if (rec?.resolution) {
    const verdict = approvalOf(rec.resolution);
    if (verdict.approved) return { denied: false };
    return {
      denied: true,
      message:
        `The user did not approve ${tool.name} (${verdict.reason}); it was not executed. ` +
        `Do not retry it unless the user asks; tell them what was not done.`,
    };
  }
  await request(ctx, {
    interruptId,
    kind: "approval",
    toolCallId: call.id,
    toolName: tool.name,
    parentMessageId: parentMessageOf(ctx, call),
    reason: "approval",
    message: `Allow ${tool.name} to run with these arguments?`,
    payload: args,
    responseSchema: APPROVAL_RESPONSE_JSON_SCHEMA,
  });
  return endWaiting(ctx, taskId, new InterruptRaised("approval", [interruptId]));
}

/** The tool's task ends here, waiting for the interrupts `raised` names; the run then suspends. */
export async function endWaiting(ctx: RunContext, taskId: string, raised: InterruptRaised): Promise<never> {
  await ctx.writer.commit({ type: "task.completed", data: { runId: ctx.runId, taskId, output: { waitingFor: raised.interruptIds } } });
  throw raised;
}

/** ctx.interrupt(): the recorded answer, or the request recorded and the run left waiting. */
export async function askInterrupt(ctx: RunContext, call: ToolCall, trace: InterruptTrace, ask: InterruptAsk): Promise<unknown> {
  if (trace.raised) throw trace.raised; // one open question per execution
  trace.asks += 1;
  const interruptId = interruptIdFor(call.id, trace.asks);
  const rec = ctx.interrupts.get(interruptId);
  if (rec?.resolution) {
    if (rec.resolution.status === "cancelled") {
      throw new InterruptCancelledError(interruptId, rec.resolution.reason ?? rec.resolution.via);
    }
    return rec.resolution.payload;
  }
  await request(ctx, {
    interruptId,
    kind: "input",
    toolCallId: call.id,
    toolName: call.function.name,
    parentMessageId: parentMessageOf(ctx, call),
    reason: ask.reason,
    ...(ask.message !== undefined && { message: ask.message }),
    ...(ask.payload !== undefined && { payload: ask.payload }),
    ...(ask.responseSchema !== undefined && { responseSchema: ask.responseSchema }),
  });
  trace.raised = new InterruptRaised("input", [interruptId]);
  throw trace.raised;
}
