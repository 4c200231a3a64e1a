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
 * 3. every pending interrupt neither of those answers is cancelled with reason "superseded":
 *    the user moved on (a new message), and the run proceeds with what it carries. The call
 *    waiting for approval does not run; the model is told it was superseded. Rejected: keeping
 *    the interrupt pending under a new message, which leaves a tool call without a result in
 *    the conversation the model reads next.
 */
import type { Message, ResumeEntry, RunAgentInput } from "@ag-ui/core";
import type { EventOf } from "../../protocol/events.ts";
import { ApprovalAnswerSchema, type InterruptRecord } from "../../protocol/interrupts.ts";
import { mayAnswerInterrupts } from "../../protocol/lifecycle.ts";
import type { ThreadRow } from "../store/types.ts";
import {
  InterruptAlreadyResolvedError,
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

function checkApprovalPayload(rec: InterruptRecord, payload: unknown, path: string): void {
  if (rec.request.kind !== "approval") return;
  const answer = ApprovalAnswerSchema.safeParse(payload);
  if (answer.success) return;
  throw new InvalidResumeError(
    `Interrupt "${rec.request.interruptId}" asks for an approval: answer with {"approved": true} or ` +
      `{"approved": false, "reason": "..."} (or status "cancelled").`,
    answer.error.issues.map((i) => ({ path: [path, ...i.path.map(String)].join("."), message: i.message })),
  );
}

export function planResume(
  threadId: string,
  runId: string,
  interrupts: ReadonlyMap<string, InterruptRecord>,
  newMessages: Message[],
  resume: ResumeEntry[] = [],
): ResumePlan {
  const pending = [...interrupts.values()].filter((r) => !r.resolution).map((r) => r.request.interruptId);
  const answered = new Map<string, Resolved>();
  const seen = new Set<string>();
  resume.forEach((entry, i) => {
    const { interruptId } = entry;
    if (seen.has(interruptId)) {
      throw new InvalidResumeError(`Interrupt "${interruptId}" is answered twice in "resume"; answer it once.`, [
        { path: `resume.${i}.interruptId`, message: "duplicate interruptId" },
      ]);
    }
    seen.add(interruptId);
    const rec = interrupts.get(interruptId);
    if (!rec) throw new InterruptNotFoundError(threadId, interruptId, pending);
    if (rec.resolution) throw new InterruptAlreadyResolvedError(threadId, interruptId, rec.resolution.runId, pending);
    if (entry.status === "resolved") checkApprovalPayload(rec, entry.payload, `resume.${i}.payload`);
    answered.set(interruptId, {
      type: "interrupt.resolved",
      data: {
        runId,
        interruptId,
        status: entry.status,
        ...(entry.payload !== undefined && { payload: entry.payload }),
        via: "resume",
        ...(entry.status === "cancelled" && { reason: "cancelled" }),
      },
    });
  });

  const messages: Message[] = [];
  for (const m of newMessages) {
    const rec = m.role === "tool" ? interrupts.get(m.toolCallId) : undefined;
    if (!rec || m.role !== "tool") {
      messages.push(m);
      continue;
    }
    if (rec.resolution || answered.has(rec.request.interruptId)) continue; // an old answer, sent again
    const payload = parseAnswer(m.content);
    checkApprovalPayload(rec, payload, `messages[id=${m.id}].content`);
    answered.set(rec.request.interruptId, {
      type: "interrupt.resolved",
      data: { runId, interruptId: rec.request.interruptId, status: "resolved", payload, via: "tool_result" },
    });
  }

  const events = [...answered.values()];
  for (const id of pending) {
    if (answered.has(id)) continue;
    events.push({
      type: "interrupt.resolved",
      data: { runId, interruptId: id, status: "cancelled", via: "superseded", reason: "superseded" },
    });
  }
  return { messages, events };
}
