/**
 * What a client holds after applying frames, as a client applies them: messages (text, reasoning,
 * tool calls with their arguments, tool results), MESSAGES_SNAPSHOT replacing them, and the state.
 * For comparing two streams by what they leave a client with; the real clients' own reducers are
 * exercised by the tests that run @ag-ui/client.
 */
import { applyStatePatch } from "../../protocol/state.ts";

type Ev = { type: string; [key: string]: unknown };
type Msg = Record<string, unknown>;
interface Call {
  id: unknown;
  function: { name: unknown; arguments: string };
}

export interface ClientView {
  messages: Record<string, unknown>[];
  state: unknown;
}

export function clientView(events: readonly Ev[]): ClientView {
  let messages: Record<string, unknown>[] = [];
  let state: unknown;
  const byId = (id: unknown) => messages.find((m) => m.id === id);
  const call = (id: unknown) => {
    for (const m of messages) for (const c of (m.toolCalls as Call[] | undefined) ?? []) if (c.id === id) return c;
    return undefined;
  };
  for (const e of events) {
    switch (e.type) {
      case "TEXT_MESSAGE_START":
        if (!byId(e.messageId)) messages.push({ id: e.messageId, role: e.role ?? "assistant", content: "" });
        break;
      case "TEXT_MESSAGE_CONTENT":
      case "REASONING_MESSAGE_CONTENT": {
        const m = byId(e.messageId);
        if (m) m.content = `${m.content ?? ""}${e.delta as string}`;
        break;
      }
      case "REASONING_MESSAGE_START":
        if (!byId(e.messageId)) messages.push({ id: e.messageId, role: "reasoning", content: "" });
        break;
      case "TOOL_CALL_START": {
        let parent: Msg | undefined = e.parentMessageId ? byId(e.parentMessageId) : undefined;
        if (!parent) {
          parent = { id: e.parentMessageId ?? e.toolCallId, role: "assistant", toolCalls: [] };
          messages.push(parent);
        }
        const calls = (parent.toolCalls as unknown[] | undefined) ?? [];
        parent.toolCalls = [...calls, { id: e.toolCallId, type: "function", function: { name: e.toolCallName, arguments: "" } }];
        break;
      }
      case "TOOL_CALL_ARGS": {
        const c = call(e.toolCallId);
        if (c) c.function.arguments += e.delta as string;
        break;
      }
      case "TOOL_CALL_RESULT":
        messages.push({ id: e.messageId, role: "tool", toolCallId: e.toolCallId, content: e.content });
        break;
      case "MESSAGES_SNAPSHOT":
        messages = structuredClone(e.messages as Record<string, unknown>[]);
        break;
      case "STATE_SNAPSHOT":
        state = structuredClone(e.snapshot);
        break;
      case "STATE_DELTA":
        state = applyStatePatch(state, e.delta as never)?.value ?? state;
        break;
    }
  }
  return { messages, state };
}
