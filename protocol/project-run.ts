/**
 * The frames that open and end a run: RUN_STARTED with the run's input echoed, RUN_FINISHED
 * (with an interrupt outcome, or the interrupt as a tool call), RUN_ERROR, and the usage both
 * terminal frames carry. Pure functions of what the Projector folded; no state of their own.
 */
import { EventType, type AGUIEvent, type Context, type RunAgentInput, type Tool } from "@ag-ui/core";
import { sumUsage, wireMessage } from "./frames.ts";
import { INTERRUPT_TOOL_NAME, interruptToolArgs, wireInterrupt, type InterruptRequest } from "./interrupts.ts";
import type { MessageList } from "./message-list.ts";
import type { RunScope } from "./project-scope.ts";
import { wireRunId } from "./run-ids.ts";

/** A run's input as accepted, collected until its RUN_STARTED echoes it. */
export interface RunInput {
  parentRunId?: string;
  tools: Tool[];
  context: Context[];
  forwardedProps?: unknown;
  /** Upserted by id: an input of thousands of messages costs O(1) per message. */
  messages: MessageList;
}

/** `logRunId` as the log has it; the frame names the client's id (protocol/run-ids.ts). */
export function runStartedEvent(threadId: string, logRunId: string, input: RunInput | undefined, state: unknown): AGUIEvent {
  const runId = wireRunId(logRunId);
  const { parentRunId, forwardedProps } = input ?? {};
  const echo: RunAgentInput = {
    threadId,
    runId,
    ...(parentRunId !== undefined && { parentRunId }),
    messages: (input?.messages.items ?? []).map(wireMessage),
    tools: input?.tools ?? [],
    context: input?.context ?? [],
    ...(state !== undefined && { state }),
    ...(forwardedProps != null && { forwardedProps }),
  };
  return { type: EventType.RUN_STARTED, threadId, runId, ...(parentRunId !== undefined && { parentRunId }), input: echo };
}

/** `result` is omitted when absent or null: 1.0 only tolerates a null result with a warning. */
export function runFinishedEvent(threadId: string, s: RunScope, result?: unknown, interrupts?: InterruptRequest[]): AGUIEvent {
  return {
    type: EventType.RUN_FINISHED,
    threadId,
    runId: wireRunId(s.runId),
    ...(result != null && { result }),
    ...(interrupts?.length && { outcome: { type: "interrupt" as const, interrupts: interrupts.map(wireInterrupt) } }),
    ...usageOf(s),
  };
}

export function runErrorEvent(s: RunScope, message: string, code: string): AGUIEvent {
  return { type: EventType.RUN_ERROR, message, code, ...usageOf(s) };
}

/** Form 2 of an interrupt: a tool call, id = interrupt id, on the message of the call it is about. */
export function interruptToolCall(s: RunScope, r: InterruptRequest): AGUIEvent[] {
  const out: AGUIEvent[] = [];
  s.openToolCall(r.interruptId, INTERRUPT_TOOL_NAME, r.parentMessageId, out);
  s.toolCallArgs(r.interruptId, JSON.stringify(interruptToolArgs(r)), out);
  s.closeToolCall(r.interruptId, out);
  return out;
}

function usageOf(s: RunScope) {
  return s.usage.length > 0 ? { usage: sumUsage(s.usage) } : {};
}
