/**
 * What a run's input does to the thread's pending interrupts, decided at admission and written
 * in the run's admission batch (lifecycle.ts, "interrupts"), or refused before anything is
 * written. Three sources, in this order:
 * 1. `resume` entries (AG-UI 1.0 RunAgentInput.resume): each must name a pending interrupt;
 * 2. a tool message whose toolCallId is a pending interrupt's id: the answer of the HITL tool
 *    call (protocol/interrupts.ts, form 2). It answers the interrupt and is not appended as a
 *    message: the model never saw that call. A tool message for an interrupt answered earlier is
 *    the client's copy of its old answer (CopilotKit sends the whole conversation every run):
 *    dropped, not refused;
 * 2b. a tool message whose toolCallId is the *backend call* an interrupt is about: CopilotKit's
 *    useInterrupt adds one per tool_call interrupt it resumes (@copilotkit/core's InterruptState
 *    `toolResults`: the answer's JSON as the call's result), besides the `resume` entry. It is the
 *    client's copy of the answer, not the call's result: the backend tool runs (or not) and writes
 *    its own. Dropped when the call's interrupts are answered (by this run or earlier); refused
 *    while one is left unanswered (a result for a call that waits would skip the wait). Rejected:
 *    appending it, which made it the call's result, so an approved email was never sent, a
 *    denied one read as done to the model, and its arrival superseded the other open questions;
 * 3. a pending interrupt neither of those answers is cancelled with reason "superseded" when the
 *    run carries a new message: the user moved on, and the run proceeds with what it carries. The
 *    call waiting for approval does not run; the model is told it was superseded. Rejected:
 *    keeping the interrupt pending under a new message, which leaves a tool call without a
 *    result in the conversation the model reads next. A run that carries only answers leaves the
 *    others pending: parallel approvals can be answered one by one.
 * A resolved answer must fit the question (interrupt-answers.ts: an approval's shape and edits, a
 * question's responseSchema), or the run is refused (400 INVALID_RESUME, nothing written).
 * An interrupt past its expiresAt takes no answer (409 INTERRUPT_EXPIRED, nothing written) and is
 * cancelled with reason "expired" by the first run admitted after it, whatever that run carries.
 * Expiry is decided here, at admission, by the admitting instance's clock. Rejected: a timer in
 * the engine that cancels it on time, which would need a durable schedule that survives restarts
 * and moves between instances, for a cancel nobody can observe until they send the next run.
 */
import type { Message, ResumeEntry, RunAgentInput } from "@ag-ui/core";
import type { EventOf } from "../../protocol/events.ts";
import { answerMessageIdFor, isExpired, type InterruptRecord } from "../../protocol/interrupts.ts";
import { mayAnswerInterrupts } from "../../protocol/lifecycle.ts";
import type { ThreadRow } from "../store/types.ts";
import { checkAnswer, type ToolSchemas } from "./interrupt-answers.ts";
import {
  InterruptAlreadyResolvedError,
  InterruptExpiredError,
  InterruptNotFoundError,
  InvalidResumeError,
  ThreadNotWaitingError,
} from "./interrupt-errors.ts";

type Resolved = EventOf<"interrupt.resolved">;

export interface ResumePlan {
  /** The run's new messages without the tool messages that were answers. */
  messages: Message[];
  /** interrupt.resolved events, for the admission batch after run.accepted. */
  events: Resolved[];
}

/** Before anything else: a `resume` on a thread that is not WAITING answers nothing (409). */
export function assertResumable(threadId: string, thread: ThreadRow | null, input: RunAgentInput): void {
  const resume = input.resume ?? [];
  if (resume.length === 0) return;
  const ids = resume.map((r) => r.interruptId);
  if (!thread) throw new InterruptNotFoundError(threadId, ids[0]!, []);
  if (!mayAnswerInterrupts(thread.status)) throw new ThreadNotWaitingError(threadId, thread.status, ids);
}

function parseAnswer(content: Message["content"]): unknown {
  const text = typeof content === "string" ? content : "";
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export interface ResumeContext {
  threadId: string;
  /** The log id of the run that carries the answers. */
  runId: string;
  interrupts: ReadonlyMap<string, InterruptRecord>;
  tools: ToolSchemas;
  /** The admission's clock (ms): an interrupt whose expiresAt is at or before it has expired. */
  now: number;
}

export function planResume(c: ResumeContext, newMessages: Message[], resume: ResumeEntry[] = []): ResumePlan {
  const { threadId, runId, interrupts, tools, now } = c;
  const pending = [...interrupts.values()].filter((r) => !r.resolution).map((r) => r.request.interruptId);
  const answered = new Map<string, Resolved>();
  const seen = new Set<string>();
  /** An expired interrupt takes no answer; a cancel of it is recorded as its expiry. */
  const refuseIfExpired = (rec: InterruptRecord) => {
    if (isExpired(rec.request, now)) throw new InterruptExpiredError(threadId, rec.request.interruptId, rec.request.expiresAt!);
  };
  resume.forEach((entry, i) => {
    const { interruptId } = entry;
    if (seen.has(interruptId)) {
      const issue = { path: `resume.${i}.interruptId`, message: "duplicate interruptId" };
      throw new InvalidResumeError(`Interrupt "${interruptId}" is answered twice in "resume"; answer it once.`, [issue], interruptId);
    }
    seen.add(interruptId);
    const rec = interrupts.get(interruptId);
    if (!rec) throw new InterruptNotFoundError(threadId, interruptId, pending);
    if (rec.resolution) throw new InterruptAlreadyResolvedError(threadId, interruptId, rec.resolution.runId, pending);
    if (entry.status === "resolved") {
      refuseIfExpired(rec);
      checkAnswer(rec, entry.payload, `resume.${i}.payload`, tools);
    }
    const expired = entry.status === "cancelled" && isExpired(rec.request, now);
    answered.set(interruptId, {
      type: "interrupt.resolved",
      data: {
        runId,
        interruptId,
        status: entry.status,
        ...(entry.payload !== undefined && { payload: entry.payload }),
        via: expired ? "expired" : "resume",
        ...(entry.status === "cancelled" && { reason: expired ? "expired" : "cancelled" }),
      },
    });
  });

  const byCall = new Map<string, InterruptRecord[]>();
  for (const rec of interrupts.values()) byCall.set(rec.request.toolCallId, [...(byCall.get(rec.request.toolCallId) ?? []), rec]);
  const messages: Message[] = [];
  for (const m of newMessages) {
    const rec = m.role === "tool" ? interrupts.get(m.toolCallId) : undefined;
    const asked = m.role === "tool" && !rec ? byCall.get(m.toolCallId) : undefined;
    if (asked && m.role === "tool") {
      const open = asked.find((r) => !r.resolution && !answered.has(r.request.interruptId));
      if (open) {
        throw new InvalidResumeError(
          `Tool call "${m.toolCallId}" waits for interrupt "${open.request.interruptId}": answer it in "resume" (or with the ` +
            `interrupt's own tool call); a tool message cannot be the result of a backend call that waits.`,
          [{ path: `messages[id=${m.id}].toolCallId`, message: `names a backend call that waits for "${open.request.interruptId}"` }],
          open.request.interruptId,
        );
      }
      continue; // the client's copy of an answer (useInterrupt's toolResults): the tool writes its own result
    }
    if (!rec || m.role !== "tool") {
      messages.push(m);
      continue;
    }
    if (rec.resolution || answered.has(rec.request.interruptId)) continue; // an old answer, sent again
    // The expiry a reload showed (interruptsAt), sent back with the conversation: not an answer.
    if (m.id === answerMessageIdFor(rec.request.interruptId) && isExpired(rec.request, now)) continue;
    refuseIfExpired(rec);
    const payload = parseAnswer(m.content);
    checkAnswer(rec, payload, `messages[id=${m.id}].content`, tools);
    answered.set(rec.request.interruptId, {
      type: "interrupt.resolved",
      data: { runId, interruptId: rec.request.interruptId, status: "resolved", payload, via: "tool_result" },
    });
  }

  // What is left pending: expired ones are cancelled now, whatever the run carries; the others
  // are superseded by a new message, and stay pending for a run that answers only some of them
  // (parallel approvals answered one by one).
  const events = [...answered.values()];
  const movedOn = messages.length > 0;
  for (const id of pending) {
    if (answered.has(id)) continue;
    const expired = isExpired(interrupts.get(id)!.request, now);
    if (!expired && !movedOn) continue;
    const why = expired ? "expired" : "superseded";
    events.push({ type: "interrupt.resolved", data: { runId, interruptId: id, status: "cancelled", via: why, reason: why } });
  }
  return { messages, events };
}
