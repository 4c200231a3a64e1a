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
import { SPOKEN_PROTOCOL_VERSION } from "./versions.ts";
import { wireRunId } from "./run-ids.ts";

/** A run's input as accepted, collected until its RUN_STARTED echoes it. */
export interface RunInput {
  parentRunId?: string;
  /** What the posting client declared (RunAgentInput.protocolVersion), as run.accepted kept it. */
  protocolVersion?: string;
  tools: Tool[];
  context: Context[];
  forwardedProps?: unknown;
  /** The request that posted the run (run.accepted), for its RUN_ERROR. */
  requestId?: string;
  /** Upserted by id: an input of thousands of messages costs O(1) per message. */
  messages: MessageList;
}

/**
 * RUN_STARTED. A 1.0 run says which version it speaks (`protocolVersion`) and echoes the
 * poster's declaration in its input; a legacy run carries neither, as before versions were read.
 * (0.0.59's schema would keep an unknown `protocolVersion`, but a legacy client's frames stay
 * exactly what they were.)
 */
export function runStartedEvent(threadId: string, s: RunScope, input: RunInput | undefined, state: unknown): AGUIEvent {
  const { level } = s;
  // The frame names the client's id; the log may hold a numbered one (protocol/run-ids.ts).
  const runId = wireRunId(s.runId);
  const { parentRunId, forwardedProps } = input ?? {};
  const echo: RunAgentInput = {
    threadId,
    runId,
    ...(parentRunId !== undefined && { parentRunId }),
    ...(level === "1.0" && input?.protocolVersion !== undefined && { protocolVersion: input.protocolVersion }),
    messages: (input?.messages.items ?? []).map((m) => wireMessage(m, level)),
    tools: input?.tools ?? [],
    context: input?.context ?? [],
    ...(state !== undefined && { state }),
    ...(forwardedProps != null && { forwardedProps }),
  };
  return {
    type: EventType.RUN_STARTED,
    threadId,
    runId,
    ...(parentRunId !== undefined && { parentRunId }),
    ...(level === "1.0" && { protocolVersion: SPOKEN_PROTOCOL_VERSION }),
    input: echo,
  };
}

/**
 * `result` is omitted when absent or null: 1.0 only tolerates a null result with a warning.
 * `pendingToolCallIds` (frontend tool calls the run left waiting) become a success outcome in a
 * 1.0 run only: 0.0.59's success outcome is strict and rejects the field, and with no outcome
 * both versions read success (1.0 then derives the pending calls itself).
 */
export function runFinishedEvent(
  threadId: string,
  s: RunScope,
  result?: unknown,
  interrupts?: InterruptRequest[],
  pendingToolCallIds?: readonly string[],
): AGUIEvent {
  const pending = s.level === "1.0" && pendingToolCallIds?.length ? { outcome: { type: "success" as const, pendingToolCallIds: [...pendingToolCallIds] } } : {};
  return {
    type: EventType.RUN_FINISHED,
    threadId,
    runId: wireRunId(s.runId),
    ...(result != null && { result }),
    ...(interrupts?.length ? { outcome: { type: "interrupt" as const, interrupts: interrupts.map((r) => wireInterrupt(r, s.level)) } } : pending),
    ...usageOf(s),
  };
}

/**
 * A cancelled run's terminal frame: 1.0's cancelled outcome, or RUN_ERROR{code:"CANCELLED"} for
 * a legacy run (0.0.59's outcome union has no cancelled member).
 */
export function runCancelledEvent(threadId: string, s: RunScope, message: string): AGUIEvent {
  if (s.level === "1.0") return { type: EventType.RUN_FINISHED, threadId, runId: wireRunId(s.runId), outcome: { type: "cancelled" as const }, ...usageOf(s) };
  return runErrorEvent(s, message, "CANCELLED");
}

/**
 * RUN_ERROR. The request that posted the run goes in `metadata.requestId`: both 1.0's and
 * 0.0.59's schemas accept an object there on every event (and protobuf carries it in BaseEvent),
 * so what a user reports names what an operator greps for. Rejected: appending it to `message`
 * (read by people, and shown to them) and `rawEvent` (the upstream's event, in AG-UI's terms).
 */
export function runErrorEvent(s: RunScope, message: string, code: string): AGUIEvent {
  return { type: EventType.RUN_ERROR, message, code, ...usageOf(s), ...(s.requestId !== undefined && { metadata: { requestId: s.requestId } }) };
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
