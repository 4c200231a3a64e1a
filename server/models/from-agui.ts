/**
 * AG-UI messages (the log's conversation) to neutral ModelMessages: the one place the engine's
 * history becomes a model's input, whatever the provider.
 *
 * The log is what clients sent and what the agent did, so it is not always a conversation an
 * API accepts: a frontend tool call the user never answered, a result that arrived after the
 * next user message, a result for a call the log does not have. Providers answer all three
 * with a 400 (OpenAI: "An assistant message with 'tool_calls' must be followed by tool messages
 * responding to each 'tool_call_id'"), which would wedge the thread for good. So each call's
 * result is placed right after the assistant message that made it, a missing one is stated as
 * missing, and an orphan result is dropped.
 *
 * Tool-call ids are the log's (unique per thread); where the engine minted one because the
 * upstream repeated its own, the call and its result go back under the upstream's id
 * (providerToolCallIdOf), so the model reads the ids it generated. Within one assistant message
 * an id stays unique: a call whose upstream id an earlier call of the message already took keeps
 * the log's id, since the upstream could not pair two results with one id anyway.
 */
import type { ContentPart, Message, PartSource, ToolMessage } from "@ag-ui/core";
import { providerToolCallIdOf } from "../../protocol/events.ts";
import type { AssistantContentPart, MediaSource, ModelMessage, ToolContentPart, UserContentPart } from "./model.ts";

/** The content of the stand-in result for a call that has none in the log. */
export const MISSING_TOOL_RESULT = "No result: this tool call was never completed.";

export function toModelMessages(messages: Message[], systemPrompt: string): ModelMessage[] {
  const results = new Map<string, ToolMessage>();
  for (const m of messages) {
    if (m.role === "tool" && !results.has(m.toolCallId)) results.set(m.toolCallId, m);
  }

  const out: ModelMessage[] = [];
  if (systemPrompt.trim() !== "") out.push({ role: "system", content: systemPrompt });
  /** The reasoning message just before, for the assistant message it led to. */
  let reasoning: AssistantContentPart | undefined;
  for (const m of messages) {
    switch (m.role) {
      // `developer` is OpenAI's newer name for the same thing; most providers only know `system`.
      case "system":
      case "developer":
        out.push({ role: "system", content: m.content });
        break;
      case "user":
        out.push({ role: "user", content: typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content.map(userPart) });
        break;
      case "assistant": {
        const taken = new Set<string>();
        const calls = (m.toolCalls ?? []).map((c) => {
          const upstream = providerToolCallIdOf(c);
          const id = taken.has(upstream) ? c.id : upstream;
          taken.add(id);
          // A call without arguments may have streamed none; providers reject "" on replay.
          return { logId: c.id, part: { type: "tool-call" as const, id, name: c.function.name, args: c.function.arguments || "{}" } };
        });
        if (!m.content && calls.length === 0) break;
        const content: AssistantContentPart[] = [];
        if (reasoning) content.push(reasoning);
        reasoning = undefined;
        if (m.content) content.push({ type: "text", text: m.content });
        content.push(...calls.map((c) => c.part));
        out.push({ role: "assistant", content });
        for (const { logId, part } of calls) {
          const result = results.get(logId);
          out.push(result ? toolMessage(part.id, part.name, result) : { role: "tool", toolCallId: part.id, toolName: part.name, content: [{ type: "text", text: MISSING_TOOL_RESULT }] });
        }
        break;
      }
      // tool: emitted after its call above. activity is the UI's, not the model's. A reasoning
      // message goes with the next assistant message, its encryptedValue as provider data.
      case "reasoning": {
        const providerData = m.encryptedValue ? parseProviderData(m.encryptedValue) : undefined;
        reasoning = { type: "reasoning", text: m.content, ...(providerData && { providerData }) };
        break;
      }
      case "tool":
      case "activity":
        break;
    }
  }
  return out;
}

function toolMessage(toolCallId: string, toolName: string, m: ToolMessage): ModelMessage {
  const parts: ToolContentPart[] =
    typeof m.content === "string"
      ? [{ type: "text", text: m.content }]
      : m.content.map((part): ToolContentPart => {
          const source = part.type === "image" ? mediaSource(part.source) : undefined;
          if (part.type === "image" && source) return { type: "image", source };
          return { type: "text", text: part.type === "text" ? part.text : omitted(part) };
        });
  if (!m.error) return { role: "tool", toolCallId, toolName, content: parts };
  // Said in words too: not every provider has an error flag on results.
  return { role: "tool", toolCallId, toolName, isError: true, content: [{ type: "text", text: `Error: ${m.error}` }, ...parts.filter((p) => p.type !== "text" || p.text !== "")] };
}

/** Said rather than dropped, so the model can tell the user what it could not see. */
export function omitted(part: { type: string; source?: { mimeType?: string } }): string {
  const mime = part.source?.mimeType ? ` (${part.source.mimeType})` : "";
  return `[${part.type} attachment${mime} omitted: it cannot be passed to the model]`;
}

function mediaSource(source: PartSource): MediaSource | undefined {
  switch (source.type) {
    case "data":
      return { type: "data", data: source.value, mediaType: source.mimeType };
    case "url":
      return { type: "url", url: source.value, ...(source.mimeType && { mediaType: source.mimeType }) };
    case "file":
      return { type: "provider-file", id: source.value, provider: source.provider ?? "openai", ...(source.mimeType && { mediaType: source.mimeType }) };
  }
}

function userPart(part: ContentPart): UserContentPart {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "image": {
      const source = mediaSource(part.source);
      if (source && source.type !== "provider-file") return { type: "image", source };
      break;
    }
    case "audio":
    case "document": {
      const source = mediaSource(part.source);
      const filename = typeof part.metadata?.filename === "string" ? part.metadata.filename : undefined;
      if (source) return { type: "file", source, ...(filename && { filename }) };
      break;
    }
    case "video":
      break;
  }
  return { type: "text", text: omitted(part) };
}

/** A stored encryptedValue: the adapter's items (llm-task.ts); anything else is not ours to send. */
function parseProviderData(value: string): unknown[] | undefined {
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
