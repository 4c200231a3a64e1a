/**
 * The requests the kit makes, as @ag-ui/client 0.0.59's HttpAgent makes them (the same keys as
 * 1.0.0 without `protocolVersion`): a server then answers with what both client versions must
 * accept. The prompts ask for structure any model can give (a short answer, a call of a tool
 * named in the request), never for particular words.
 */
import { randomUUID } from "node:crypto";
import jsonpatch from "fast-json-patch";
import type { AgUiEvent } from "./sse-reader.ts";
import type { Exchange } from "./http.ts";

export interface KitMessage {
  id: string;
  role: "user" | "assistant" | "tool";
  content?: string;
  toolCalls?: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
  toolCallId?: string;
}

export interface KitInput {
  threadId: string;
  runId: string;
  state: unknown;
  messages: KitMessage[];
  tools: Array<{ name: string; description: string; parameters: unknown }>;
  context: unknown[];
  forwardedProps: Record<string, unknown>;
}

export interface KitRun {
  scenario: "chat" | "multi-turn" | "frontend-tool" | "tool-result";
  input: KitInput;
  exchange: Exchange;
}

/** The prompts, exported so a test can script a mock model for them. */
export const KIT_PROMPTS = {
  chat: "[agui-conformance] Please greet me in one short sentence.",
  followUp: "[agui-conformance] Thank you. Now say goodbye in one short sentence.",
  tool: "[agui-conformance] Call the conformance_clock tool now to read the current time, then tell me the time.",
} as const;

/** A frontend tool: listed in the request, executed by the client, so the server must not answer it. */
export const KIT_TOOL = {
  name: "conformance_clock",
  description: "Returns the current time. It runs in the user's browser; call it whenever the user asks for the time.",
  parameters: { type: "object", properties: {}, required: [] },
};

export const KIT_TOOL_RESULT = "12:34";

/** The state every run sends, so that a server with shared state has something to echo and patch. */
export const KIT_STATE = { conformance: { probe: 1, items: ["a"] } };

export function newInput(threadId: string, messages: KitMessage[], tools: KitInput["tools"] = [], state: unknown = KIT_STATE): KitInput {
  return { threadId, runId: `run-${randomUUID()}`, state: structuredClone(state), messages, tools, context: [], forwardedProps: {} };
}

export const userMessage = (content: string): KitMessage => ({ id: `user-${randomUUID()}`, role: "user", content });

export function events(run: KitRun): AgUiEvent[] {
  return run.exchange.frames.flatMap((f) => (f.event ? [f.event] : []));
}

/**
 * The messages a client would have added from a run, in order: assistant text by messageId
 * (explicit or chunked), tool calls attached to their parent (or to a message named after the
 * call), and the tool messages of TOOL_CALL_RESULT. What the next turn sends back as history.
 */
export function replyMessages(run: KitRun): KitMessage[] {
  const out = new Map<string, KitMessage>();
  const toolParent = new Map<string, string>();
  let chunkId: string | undefined;
  let chunkCall: string | undefined;
  const message = (id: string) => {
    const m = out.get(id) ?? { id, role: "assistant" };
    out.set(id, m);
    return m;
  };
  const call = (id: string, name: string, parent: string | undefined) => {
    const m = message(parent ?? id);
    toolParent.set(id, m.id);
    m.toolCalls = [...(m.toolCalls ?? []), { id, type: "function", function: { name, arguments: "" } }];
  };
  const args = (id: string, delta: string) => {
    const c = out.get(toolParent.get(id) ?? "")?.toolCalls?.find((t) => t.id === id);
    if (c) c.function.arguments += delta;
  };
  for (const e of events(run)) {
    const s = (k: string) => (typeof e[k] === "string" ? (e[k] as string) : undefined);
    if (e.type === "TEXT_MESSAGE_START" && (s("role") ?? "assistant") === "assistant") message(s("messageId")!);
    else if (e.type === "TEXT_MESSAGE_CONTENT" && out.has(s("messageId") ?? "")) {
      const m = out.get(s("messageId")!)!;
      m.content = (m.content ?? "") + (s("delta") ?? "");
    } else if (e.type === "TEXT_MESSAGE_CHUNK") {
      chunkId = s("messageId") ?? chunkId;
      if (chunkId) {
        const m = message(chunkId);
        m.content = (m.content ?? "") + (s("delta") ?? "");
      }
    } else if (e.type === "TOOL_CALL_START") call(s("toolCallId")!, s("toolCallName") ?? "", s("parentMessageId"));
    else if (e.type === "TOOL_CALL_ARGS") args(s("toolCallId")!, s("delta") ?? "");
    else if (e.type === "TOOL_CALL_CHUNK") {
      if (s("toolCallId") && s("toolCallId") !== chunkCall) {
        chunkCall = s("toolCallId");
        call(chunkCall!, s("toolCallName") ?? "", s("parentMessageId"));
      }
      if (chunkCall) args(chunkCall, s("delta") ?? "");
    } else if (e.type === "TOOL_CALL_RESULT") {
      const content = typeof e.content === "string" ? e.content : JSON.stringify(e.content);
      out.set(s("messageId")!, { id: s("messageId")!, role: "tool", toolCallId: s("toolCallId")!, content });
    }
  }
  return [...out.values()];
}

/** True when the run streamed any assistant text. */
export function answered(run: KitRun): boolean {
  return replyMessages(run).some((m) => m.role === "assistant" && (m.content ?? "").trim() !== "");
}

/** The state a client holds after a run: the request's, then each snapshot and delta (a failing delta is skipped, as the clients skip it). */
export function finalState(run: KitRun): unknown {
  let state: unknown = structuredClone(run.input.state);
  for (const e of events(run)) {
    if (e.type === "STATE_SNAPSHOT") state = structuredClone(e.snapshot);
    else if (e.type === "STATE_DELTA") {
      try {
        state = jsonpatch.applyPatch(structuredClone(state), e.delta as jsonpatch.Operation[], true, false).newDocument;
      } catch {
        // rules/state.ts reports it
      }
    }
  }
  return state;
}
