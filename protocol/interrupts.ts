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
import type { ProtocolLevel } from "./versions.ts";
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

/**
 * Interrupt reasons on the wire: AG-UI 1.0's core values, or a namespaced one (`<namespace>:<name>`,
 * e.g. `threadline:choose_slot`) so that a client can tell an application's reason from a future
 * core one. ctx.interrupt() refuses any other (server/engine/tool-interrupts.ts).
 */
export const CORE_INTERRUPT_REASONS = ["tool_call", "confirmation", "input_required"] as const;
/** The reason of every approval interrupt (needsApproval): a tool call waits for the user. */
export const APPROVAL_REASON = "tool_call";
const NAMESPACED_REASON = /^[A-Za-z0-9_.-]+:[^\s:][^\s]*$/;

export function isConformingReason(reason: string): boolean {
  return (CORE_INTERRUPT_REASONS as readonly string[]).includes(reason) || NAMESPACED_REASON.test(reason);
}

/**
 * The reason a client gets for a request as the log has it. Logs written before the rule hold
 * "approval" (now tool_call) and an application's bare reasons (now under `threadline:`): read,
 * never refused, and sent in the conforming form.
 */
export function wireReason(r: Pick<InterruptRequest, "reason" | "kind">): string {
  if (r.kind === "approval" && r.reason === "approval") return APPROVAL_REASON;
  if (isConformingReason(r.reason)) return r.reason;
  // A name has no whitespace and does not start with ":" (NAMESPACED_REASON).
  const name = r.reason.replace(/\s+/g, "_").replace(/^:+/, "");
  return `threadline:${name === "" ? "reason" : name}`;
}

/** What a client sends to answer an approval (resume payload, or the HITL tool's result). */
export const ApprovalAnswerSchema = z.object({
  approved: z.boolean(),
  /** Why, when denied: the model is told. */
  reason: z.string().max(2000).optional(),
  /**
   * Approve with edits: the arguments the tool runs with instead of the model's, checked against
   * the tool's input schema at admission (400 with the reasons otherwise). Only with approved: true.
   */
  editedArgs: z.record(z.string(), z.unknown()).optional(),
});
export type ApprovalAnswer = z.infer<typeof ApprovalAnswerSchema>;

/** Whether `expiresAt` (ISO 8601) has passed at `now` (ms since the epoch). */
export function isExpired(r: Pick<InterruptRequest, "expiresAt">, now: number): boolean {
  return r.expiresAt !== undefined && Date.parse(r.expiresAt) <= now;
}

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
  expiresAt: z.string().optional(),
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

/**
 * Form 1: the AG-UI Interrupt. Optional fields are omitted, never null (both clients). A
 * subagent's question names the child in a 1.0 run (1.0's Interrupt.subagentRunId).
 */
export function wireInterrupt(r: InterruptRequest, level: ProtocolLevel = "legacy"): Interrupt {
  return {
    ...(level === "1.0" && r.subagentRunId !== undefined && { subagentRunId: r.subagentRunId }),
    id: r.interruptId,
    reason: wireReason(r),
    ...(r.message !== undefined && { message: r.message }),
    toolCallId: r.toolCallId,
    ...(r.responseSchema !== undefined && { responseSchema: r.responseSchema }),
    ...(r.expiresAt !== undefined && { expiresAt: r.expiresAt }),
    metadata: { kind: r.kind, toolName: r.toolName, ...(r.payload !== undefined && { payload: r.payload }) },
  };
}

/** Form 2: the arguments of the HITL tool call. */
export function interruptToolArgs(r: InterruptRequest): InterruptToolArgs {
  return {
    interruptId: r.interruptId,
    kind: r.kind,
    reason: wireReason(r),
    ...(r.message !== undefined && { message: r.message }),
    toolCallId: r.toolCallId,
    toolName: r.toolName,
    ...(r.payload !== undefined && { payload: r.payload }),
    ...(r.responseSchema !== undefined && { responseSchema: r.responseSchema }),
    ...(r.expiresAt !== undefined && { expiresAt: r.expiresAt }),
  };
}

/** Whether a run's client asked for form 2 (it offered the HITL tool). */
export function wantsInterruptTool(tools: readonly { name: string }[] | undefined): boolean {
  return tools?.some((t) => t.name === INTERRUPT_TOOL_NAME) ?? false;
}

export type ApprovalVerdict =
  | { approved: true; editedArgs?: Record<string, unknown> }
  | { approved: false; reason: string };

/** An approval's verdict: approved only by an explicit `{approved: true}` that resolved it. */
export function approvalOf(res: InterruptResolution): ApprovalVerdict {
  if (res.status === "cancelled") {
    return { approved: false, reason: res.reason ?? (res.via === "resume" ? "cancelled" : res.via) };
  }
  const answer = ApprovalAnswerSchema.safeParse(res.payload);
  if (answer.success && answer.data.approved) {
    return answer.data.editedArgs === undefined ? { approved: true } : { approved: true, editedArgs: answer.data.editedArgs };
  }
  return { approved: false, reason: (answer.success && answer.data.reason) || "denied" };
}

/**
 * The decision as the conversation keeps it, on the tool message of the call it was about
 * (server/engine/tool-task.ts): the model reads it, and a reload shows it.
 */
export type ApprovalDecision = "approved" | "edited" | "denied";

export function decisionOf(verdict: ApprovalVerdict): ApprovalDecision {
  return !verdict.approved ? "denied" : verdict.editedArgs === undefined ? "approved" : "edited";
}

/**
 * The interrupts as a reader at `now` (ms) should show them: a pending one past its expiresAt can
 * only be cancelled, and the first run admitted after it records that (server/engine/resume.ts);
 * until then a reload and the thread view show it cancelled as expired, so that no client holds,
 * or renders as open, a question it can no longer answer. The log is not changed by reading it.
 */
export function interruptsAt(records: readonly InterruptRecord[], now: number): InterruptRecord[] {
  return records.map((rec) =>
    rec.resolution || !isExpired(rec.request, now)
      ? rec
      : {
          ...rec,
          resolution: { runId: rec.request.runId, interruptId: rec.request.interruptId, status: "cancelled", via: "expired", reason: "expired" },
        },
  );
}

/** The id of the tool message that carries a form-2 interrupt's answer in a snapshot. */
export function answerMessageIdFor(interruptId: string): string {
  return `${interruptId}-answer`;
}

/**
 * The interrupts in a snapshot (a reload, a MESSAGES_SNAPSHOT), each in the form its run's client
 * got it. Form 2: the HITL tool call on the message of the call it is about, pending without a
 * result (CopilotKit's hook shows it waiting), answered with a tool message holding the answer
 * (the hook shows it complete, and an approvals panel lists the decision after a reload; before,
 * a snapshot dropped every answered question). Form 1: a pending interrupt goes in the outcome of
 * the snapshot's RUN_FINISHED; an answered one is kept by the tool message of its call
 * (server/engine/tool-task.ts says the decision there). Without this a reload showed a thread
 * WAITING with nothing to answer.
 */
export function withInterrupts<M extends { id: string; role: string; toolCalls?: unknown[] }>(
  messages: M[],
  records: readonly InterruptRecord[],
): { messages: M[]; outcome: Interrupt[] } {
  const outcome: Interrupt[] = [];
  let out = messages;
  for (const rec of records) {
    if (rec.form !== "tool") {
      if (!rec.resolution) outcome.push(wireInterrupt(rec.request));
      continue;
    }
    const r = rec.request;
    const call = { id: r.interruptId, type: "function", function: { name: INTERRUPT_TOOL_NAME, arguments: JSON.stringify(interruptToolArgs(r)) } };
    const at = out.findIndex((m) => m.id === r.parentMessageId);
    const answer = rec.resolution
      ? [{ id: answerMessageIdFor(r.interruptId), role: "tool", toolCallId: r.interruptId, content: JSON.stringify(answerOf(rec.resolution)) } as unknown as M]
      : [];
    out =
      at >= 0
        ? [...out.slice(0, at), { ...out[at]!, toolCalls: [...(out[at]!.toolCalls ?? []), call] }, ...answer, ...out.slice(at + 1)]
        : [...out, { id: r.parentMessageId, role: "assistant", toolCalls: [call] } as unknown as M, ...answer];
  }
  return { messages: out, outcome };
}

/** What an answered form-2 question shows: the client's answer, or why it was cancelled. */
function answerOf(res: InterruptResolution): unknown {
  return res.status === "resolved" ? (res.payload ?? null) : { cancelled: true, reason: res.reason ?? res.via };
}
