/**
 * The streamed parts of a run as frames: text, reasoning and tool-call deltas, steps, terminal
 * output, artifacts and activities. Each maps to frames only while its run is open (`s`); none of
 * them changes the thread's state or conversation, so they need nothing of the Projector but the
 * open run and the ids already shown (which the durable message.appended that follows consults).
 */
import { EventType, type AGUIEvent } from "@ag-ui/core";
import { STREAM_EVENT_TYPES, type EventOf, type WorkflowEvent } from "./events.ts";
import type { Shown } from "./project-messages.ts";
import type { RunScope } from "./project-scope.ts";

/**
 * What this file projects: the stream-level events (STREAM_EVENT_TYPES, compacted after their run)
 * and the durable parts that also show only inside their run (steps and artifacts). Built from
 * that list rather than restating it, so an event added there is projected here or fails to
 * type-check below.
 */
const RUN_PART_TYPES = [...STREAM_EVENT_TYPES, "task.created", "task.completed", "task.failed", "artifact.written", "activity.snapshot"] as const;

export type RunPartEvent = EventOf<(typeof RUN_PART_TYPES)[number]>;

const runPartTypes: ReadonlySet<string> = new Set(RUN_PART_TYPES);

export function isRunPart(e: WorkflowEvent): e is RunPartEvent {
  return runPartTypes.has(e.type);
}

/**
 * `resync`: the MESSAGES_SNAPSHOT of the durable conversation, which replaces a client's view
 * when streamed messages are withdrawn (the Projector holds the conversation).
 */
export function projectRunPart(e: RunPartEvent, s: RunScope | undefined, shown: Shown, out: AGUIEvent[], resync: (s: RunScope) => AGUIEvent): void {
  if (!s) return;
  switch (e.type) {
    case "text.started":
      if (s.openText(e.data.messageId, out)) shown.text.add(e.data.messageId);
      break;
    case "text.delta":
      s.textDelta(e.data.messageId, e.data.delta, out);
      break;
    case "text.ended":
      s.closeText(e.data.messageId, out);
      break;
    case "reasoning.started":
      if (s.openReasoning(e.data.messageId, out)) shown.reasoning.add(e.data.messageId);
      break;
    case "reasoning.delta":
      s.reasoningDelta(e.data.messageId, e.data.delta, out);
      break;
    case "reasoning.ended":
      s.closeReasoning(e.data.messageId, out);
      break;
    case "toolcall.started": {
      const { toolCallId, name, parentMessageId } = e.data;
      if (s.openToolCall(toolCallId, name, parentMessageId, out)) shown.toolCalls.add(toolCallId);
      break;
    }
    case "toolcall.args":
      s.toolCallArgs(e.data.toolCallId, e.data.delta, out);
      break;
    case "toolcall.ended":
      s.closeToolCall(e.data.toolCallId, out);
      break;
    case "stream.withdrawn":
      // Closed if still open, then dropped by every client: the durable conversation lacks them.
      for (const id of e.data.messageIds) {
        s.closeText(id, out);
        s.closeReasoning(id, out);
      }
      out.push(resync(s));
      break;
    case "task.created":
      s.openStep(e.data.taskId, e.data.name, out);
      break;
    case "task.completed":
    case "task.failed":
      s.closeStep(e.data.taskId, out);
      break;
    default:
      out.push(customFrame(e));
  }
}

/** The events that map to one frame whatever is open: CUSTOM, RAW and ACTIVITY_*. */
function customFrame(e: EventOf<"terminal.output" | "artifact.written" | "activity.snapshot" | "activity.delta" | "custom.emitted" | "raw.emitted">): AGUIEvent {
  switch (e.type) {
    case "terminal.output": {
      const { toolCallId, stream, data } = e.data;
      return { type: EventType.CUSTOM, name: "terminal", value: { toolCallId, stream, data } };
    }
    case "artifact.written": {
      const { runId: _run, ...artifact } = e.data;
      return { type: EventType.CUSTOM, name: "artifact", value: artifact };
    }
    case "activity.snapshot": {
      const { messageId, activityType, content } = e.data;
      return { type: EventType.ACTIVITY_SNAPSHOT, messageId, activityType, content };
    }
    case "activity.delta": {
      const { messageId, activityType, patch } = e.data;
      return { type: EventType.ACTIVITY_DELTA, messageId, activityType, patch };
    }
    case "custom.emitted":
      return { type: EventType.CUSTOM, name: e.data.name, value: e.data.value };
    case "raw.emitted":
      return { type: EventType.RAW, event: e.data.event, ...(e.data.source !== undefined && { source: e.data.source }) };
  }
}
