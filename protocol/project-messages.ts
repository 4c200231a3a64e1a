/**
 * message.appended{source:"agent"} as frames. The agent's messages usually reach clients as a
 * stream first (text.*, toolcall.*, reasoning.*); the durable message that follows must then add
 * nothing. After retention has compacted the stream away, the durable message is all there is, and
 * it goes out whole (START, one CONTENT or ARGS, END), so a replay of a compacted log builds the
 * same conversation. `Shown` is what decides between the two: every id already sent in the thread.
 * Rejected: comparing the streamed text with the message's content, which would need the stream's
 * text kept in memory for the life of the thread, to catch a case the engine does not produce.
 */
import { EventType, type AGUIEvent, type Message, type TextMessageRole } from "@ag-ui/core";
import { toolContentFor, toolContentText } from "./frames.ts";
import type { RunScope } from "./project-scope.ts";

export interface Shown {
  text: Set<string>;
  reasoning: Set<string>;
  toolCalls: Set<string>;
  results: Set<string>;
}

export function newShown(): Shown {
  return { text: new Set(), reasoning: new Set(), toolCalls: new Set(), results: new Set() };
}

export function projectAgentMessage(m: Message, s: RunScope, shown: Shown, out: AGUIEvent[]): void {
  switch (m.role) {
    case "tool":
      // Its own messageId (required by both clients); content parts only in a 1.0 run (0.0.59
      // takes a string only: its text parts then stand for it).
      if (shown.results.has(m.id)) return;
      shown.results.add(m.id);
      out.push({ type: EventType.TOOL_CALL_RESULT, messageId: m.id, toolCallId: m.toolCallId, content: toolContentFor(m.content, s.level), role: "tool" });
      return;
    case "assistant":
      text(s, shown, m.id, m.content ?? "", "assistant", out);
      for (const call of m.toolCalls ?? []) {
        if (shown.toolCalls.has(call.id)) continue;
        shown.toolCalls.add(call.id);
        // Parent = the message id: the client attaches the call to that assistant message.
        s.openToolCall(call.id, call.function.name, m.id, out);
        if (call.function.arguments !== "") s.toolCallArgs(call.id, call.function.arguments, out);
        s.closeToolCall(call.id, out);
      }
      return;
    case "reasoning":
      if (shown.reasoning.has(m.id)) return;
      shown.reasoning.add(m.id);
      s.openReasoning(m.id, out);
      if (m.content !== "") s.reasoningDelta(m.id, m.content, out);
      s.closeReasoning(m.id, out);
      return;
    case "activity":
      out.push({ type: EventType.ACTIVITY_SNAPSHOT, messageId: m.id, activityType: m.activityType, content: m.content });
      return;
    case "user":
      text(s, shown, m.id, toolContentText(m.content), "user", out);
      return;
    case "system":
    case "developer":
      text(s, shown, m.id, m.content, m.role, out);
      return;
  }
}

/** A whole text message in one go, unless its text was already sent (or there is none). */
function text(s: RunScope, shown: Shown, id: string, content: string, role: TextMessageRole, out: AGUIEvent[]): void {
  if (content === "" || shown.text.has(id)) return;
  shown.text.add(id);
  s.openText(id, out, role);
  s.textDelta(id, content, out);
  s.closeText(id, out);
}
