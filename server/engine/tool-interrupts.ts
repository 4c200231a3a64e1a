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
  APPROVAL_REASON,
  APPROVAL_RESPONSE_JSON_SCHEMA,
  approvalOf,
  CORE_INTERRUPT_REASONS,
  decisionOf,
  interruptIdFor,
  isConformingReason,
  type ApprovalDecision,
  type InterruptRequest,
} from "../../protocol/interrupts.ts";
import { InterruptCancelledError, MAX_INTERRUPT_EXPIRY_MS, type InterruptAsk, type ToolDefinition } from "../agents/define.ts";
import { InterruptRaised } from "./errors.ts";
import type { RunContext } from "./run-context.ts";
import { compileJsonSchema } from "./json-schema-check.ts";

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

export type ApprovalCheck =
  | { denied: false; args: unknown; decision?: ApprovalDecision }
  | { denied: true; message: string };

/** When needsApproval asks (its rule, from the validated arguments) and for how long. */
async function approvalRule(tool: ToolDefinition, args: unknown): Promise<{ asks: boolean; expiresInMs?: number }> {
  const rule = tool.needsApproval;
  if (!rule) return { asks: false };
  if (typeof rule === "boolean") return { asks: rule };
  if (typeof rule === "function") return { asks: await rule(args) };
  const when = rule.when ?? true;
  const asks = typeof when === "function" ? await when(args) : when;
  return { asks, ...(rule.expiresInMs !== undefined && { expiresInMs: rule.expiresInMs }) };
}

/**
 * ISO 8601 expiry of an interrupt asked now, or undefined. Out of bounds is the tool's bug: it
 * fails (the model reads the error), never asks a question that cannot be answered.
 */
function expiryOf(expiresInMs: number | undefined, toolName: string): string | undefined {
  if (expiresInMs === undefined) return undefined;
  if (!Number.isInteger(expiresInMs) || expiresInMs < 1 || expiresInMs > MAX_INTERRUPT_EXPIRY_MS) {
    throw new Error(`${toolName}: expiresInMs must be an integer from 1 to ${MAX_INTERRUPT_EXPIRY_MS} (30 days); got ${expiresInMs}.`);
  }
  return new Date(Date.now() + expiresInMs).toISOString();
}

/**
 * A responseSchema is what the answer is checked against at admission (interrupt-answers.ts): one
 * that cannot be checked is the tool's bug, and it fails here, before the question is asked.
 * Rejected: asking anyway and letting every answer through unchecked.
 */
function checkResponseSchema(schema: Record<string, unknown> | undefined, toolName: string): void {
  if (schema === undefined) return;
  try {
    compileJsonSchema(schema);
  } catch (err) {
    throw new Error(
      `${toolName}: ctx.interrupt()'s responseSchema is not a JSON Schema this server can check answers against ` +
        `(${err instanceof Error ? err.message : String(err)}); fix it, or leave it out.`,
      { cause: err },
    );
  }
}

/**
 * needsApproval: approved -> the arguments to run with (the user's edits, when they made some,
 * already checked against the tool's schema at admission and parsed by it again here); denied,
 * cancelled or expired -> what the model is told; not answered yet -> asked, and the run waits.
 */
export async function checkApproval(
  ctx: RunContext,
  call: ToolCall,
  tool: ToolDefinition,
  args: unknown,
  taskId: string,
): Promise<ApprovalCheck> {
  const rule = await approvalRule(tool, args);
  if (!rule.asks) return { denied: false, args };
  const interruptId = interruptIdFor(call.id);
  const rec = ctx.interrupts.get(interruptId);
  if (rec?.resolution) {
    const verdict = approvalOf(rec.resolution);
    if (!verdict.approved) {
      return {
        denied: true,
        message:
          `The user did not approve ${tool.name} (${verdict.reason}); it was not executed. ` +
          `Do not retry it unless the user asks; tell them what was not done.`,
      };
    }
    if (verdict.editedArgs === undefined) return { denied: false, args, decision: "approved" };
    return { denied: false, args: tool.inputSchema.parse(verdict.editedArgs), decision: decisionOf(verdict) };
  }
  const expiresAt = expiryOf(rule.expiresInMs, tool.name);
  await request(ctx, {
    interruptId,
    kind: "approval",
    toolCallId: call.id,
    toolName: tool.name,
    parentMessageId: parentMessageOf(ctx, call),
    reason: APPROVAL_REASON,
    message: `Allow ${tool.name} to run with these arguments?`,
    payload: args,
    responseSchema: APPROVAL_RESPONSE_JSON_SCHEMA,
    ...(expiresAt !== undefined && { expiresAt }),
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
  if (!isConformingReason(ask.reason)) {
    throw new Error(
      `ctx.interrupt(): reason "${ask.reason}" is neither an AG-UI core reason (${CORE_INTERRUPT_REASONS.join(", ")}) ` +
        `nor namespaced ("<namespace>:<name>", e.g. "myapp:${ask.reason}").`,
    );
  }
  checkResponseSchema(ask.responseSchema, call.function.name);
  const expiresAt = expiryOf(ask.expiresInMs, call.function.name);
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
    ...(expiresAt !== undefined && { expiresAt }),
  });
  trace.raised = new InterruptRaised("input", [interruptId]);
  throw trace.raised;
}
