/**
 * Interrupts: a backend step that waits for a person (a tool that needs approval, a tool that
 * asks for input). The durable records are interrupt.requested / interrupt.resolved
 * (events.ts); this module holds what every layer derives from them, with no I/O:
 *
 * - the ids (one per tool call and ask, so a tool executed again finds its answer);
 * - the answer of an approval, as a zod schema (the single source of its wire shape);
 * - the two wire forms a client gets when a run ends waiting for interrupts:
 *   1. AG-UI 1.0's `RUN_FINISHED.outcome = {type:"interrupt", interrupts:[Interrupt]}`, answered
 *      by the next run's `resume: [{interruptId, status, payload}]`. @ag-ui/client 1.0.0 and
 *      0.0.59 both accept it (0.0.59's RunFinishedOutcomeSchema has the interrupt member);
 *   2. for CopilotKit's human-in-the-loop hooks (useHumanInTheLoop, useCopilotAction
 *      renderAndWaitForResponse), which render tool calls: a tool call named
 *      INTERRUPT_TOOL_NAME whose id is the interrupt id and whose arguments are the
 *      InterruptToolArgs; the tool result the client sends back is the answer. A client asks
 *      for this form by offering that tool in the run's `tools` (registering the hook does it).
 *   Rejected: sending both forms to everyone. A client that got the outcome refuses its next run
 *   unless `resume` names every interrupt ("Thread has N pending interrupt(s) not addressed by
 *   resume"), so the HITL hook's answer, a tool result without `resume`, would never be sent.
 */
import type { Interrupt } from "@ag-ui/core";
import { z } from "zod";
import type { EventOf } from "./events.ts";
import { wireJsonSchema } from "./json-schema.ts";

/** The name of the tool call that carries an interrupt to a human-in-the-loop hook. */
export const INTERRUPT_TOOL_NAME = "threadline_interrupt";

export type InterruptRequest = EventOf<"interrupt.requested">["data"];
export type InterruptResolution = EventOf<"interrupt.resolved">["data"];

/** One interrupt as the log has it: the request and, once answered, its resolution. */
export interface InterruptRecord {
  request: InterruptRequest;
  resolution?: InterruptResolution;
  /** How its run's client got it: the HITL tool call (form 2) or the outcome (form 1). */
  form?: InterruptForm;
}

export type InterruptForm = "tool" | "outcome";

/** Approval: `interrupt-<toolCallId>`; the n-th ctx.interrupt() of a tool call: `…-<n>` (n from 1). */
export function interruptIdFor(toolCallId: string, ask?: number): string {
  return ask === undefined ? `interrupt-${toolCallId}` : `interrupt-${toolCallId}-${ask}`;
}

/** What a client sends to answer an approval (resume payload, or the HITL tool's result). */
export const ApprovalAnswerSchema = z.object({
  approved: z.boolean(),
  /** Why, when denied: the model is told. */
  reason: z.string().max(2000).optional(),
});
export type ApprovalAnswer = z.infer<typeof ApprovalAnswerSchema>;

/** Sent as the approval interrupt's `responseSchema`, so a generic client can render the form. */
export const APPROVAL_RESPONSE_JSON_SCHEMA: Record<string, unknown> = wireJsonSchema(ApprovalAnswerSchema);

/** The arguments of the INTERRUPT_TOOL_NAME tool call (form 2): everything form 1 carries. */
export const InterruptToolArgsSchema = z.object({
  interruptId: z.string(),
  kind: z.enum(["approval", "input"]),
  reason: z.string(),
  message: z.string().optional(),
  toolCallId: z.string(),
  toolName: z.string(),
  payload: z.unknown().optional(),
  responseSchema: z.record(z.string(), z.unknown()).optional(),
});
export type InterruptToolArgs = z.infer<typeof InterruptToolArgsSchema>;

/** The INTERRUPT_TOOL_NAME tool as a client offers it in RunAgentInput.tools. */
export const INTERRUPT_TOOL = {
  name: INTERRUPT_TOOL_NAME,
  description:
    "Shows the user a request from a backend step (an approval or a question) and returns the answer. " +
    "Rendered by the client; never called by the model.",
  parameters: wireJsonSchema(InterruptToolArgsSchema),
};

/** Form 1: the AG-UI Interrupt. Optional fields are omitted, never null (both clients). */
export function wireInterrupt(r: InterruptRequest): Interrupt {
  return {
    id: r.interruptId,
    reason: r.reason,
    ...(r.message !== undefined && { message: r.message }),
    toolCallId: r.toolCallId,
    ...(r.responseSchema !== undefined && { responseSchema: r.responseSchema }),
    metadata: { kind: r.kind, toolName: r.toolName, ...(r.payload !== undefined && { payload: r.payload }) },
  };
}

/** Form 2: the arguments of the HITL tool call. */
export function interruptToolArgs(r: InterruptRequest): InterruptToolArgs {
  return {
    interruptId: r.interruptId,
    kind: r.kind,
    reason: r.reason,
    ...(r.message !== undefined && { message: r.message }),
    toolCallId: r.toolCallId,
    toolName: r.toolName,
    ...(r.payload !== undefined && { payload: r.payload }),
    ...(r.responseSchema !== undefined && { responseSchema: r.responseSchema }),
  };
}

/** Whether a run's client asked for form 2 (it offered the HITL tool). */
export function wantsInterruptTool(tools: readonly { name: string }[] | undefined): boolean {
  return tools?.some((t) => t.name === INTERRUPT_TOOL_NAME) ?? false;
}

/** An approval's verdict: approved only by an explicit `{approved: true}` that resolved it. */
export function approvalOf(res: InterruptResolution): { approved: true } | { approved: false; reason: string } {
  if (res.status === "cancelled") {
    return { approved: false, reason: res.reason ?? (res.via === "superseded" ? "superseded" : "cancelled") };
  }
  const answer = ApprovalAnswerSchema.safeParse(res.payload);
  if (answer.success && answer.data.approved) return { approved: true };
  return { approved: false, reason: (answer.success && answer.data.reason) || "denied" };
}

/**
 * A pending interrupt in a reload's snapshot, in the form its run's client got it: form 2 as the
 * HITL tool call on the message of the call it is about (no result: CopilotKit's hook shows it
 * waiting), form 1 as the interrupt outcome of the snapshot's RUN_FINISHED. Without this a reload
 * showed a thread WAITING with nothing to answer.
 */
export function withPendingInterrupts<M extends { id: string; role: string; toolCalls?: unknown[] }>(
  messages: M[],
  pending: readonly InterruptRecord[],
): { messages: M[]; outcome: Interrupt[] } {
  const outcome: Interrupt[] = [];
  let out = messages;
  for (const rec of pending) {
    if (rec.form !== "tool") {
      outcome.push(wireInterrupt(rec.request));
      continue;
    }
    const r = rec.request;
    const call = { id: r.interruptId, type: "function", function: { name: INTERRUPT_TOOL_NAME, arguments: JSON.stringify(interruptToolArgs(r)) } };
    const at = out.findIndex((m) => m.id === r.parentMessageId);
    out =
      at >= 0
        ? out.map((m, i) => (i === at ? { ...m, toolCalls: [...(m.toolCalls ?? []), call] } : m))
        : [...out, { id: r.parentMessageId, role: "assistant", toolCalls: [call] } as unknown as M];
  }
  return { messages: out, outcome };
}
