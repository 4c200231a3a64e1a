/**
 * AG-UI messages (the log's conversation) to OpenAI Chat Completions messages.
 *
 * The log is what clients sent and what the agent did, so it is not always a conversation the
 * API accepts: a frontend tool call the user never answered, a result that arrived after the
 * next user message, a result for a call the log does not have. OpenAI answers all three with
 * a 400 ("An assistant message with 'tool_calls' must be followed by tool messages responding
 * to each 'tool_call_id'"), which would wedge the thread for good. So each call's result is
 * placed right after the assistant message that made it, a missing one is stated as missing,
 * and an orphan result is dropped.
 *
 * Tool-call ids are the log's (unique per thread); where the engine minted one because the
 * upstream repeated its own, the call and its result go back under the upstream's id
 * (providerToolCallIdOf), so the model reads the ids it generated. Within one assistant message
 * an id stays unique: a call whose upstream id an earlier call of the message already took keeps
 * the log's id, since the upstream could not pair two results with one id anyway.
 */
import type { ContentPart, Message, PartSource, ToolMessage } from "@ag-ui/core";
import { providerToolCallIdOf } from "../../protocol/events.ts";
import type {
  ChatCompletionContentPart,
  ChatCompletionContentPartText,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from "openai/resources/chat/completions";

/** The content of the stand-in result for a call that has none in the log. */
export const MISSING_TOOL_RESULT = "No result: this tool call was never completed.";

export function toOpenAIMessages(messages: Message[], systemPrompt: string): ChatCompletionMessageParam[] {
  const results = new Map<string, ToolMessage>();
  for (const m of messages) {
    if (m.role === "tool" && !results.has(m.toolCallId)) results.set(m.toolCallId, m);
  }

  const out: ChatCompletionMessageParam[] = [];
  if (systemPrompt.trim() !== "") out.push({ role: "system", content: systemPrompt });
  /** The opaque reasoning of the reasoning message just before, for the assistant message it led to. */
  let details: unknown[] | undefined;
  for (const m of messages) {
    switch (m.role) {
      // `developer` is OpenAI's newer name for the same thing; many compatible providers only
      // know `system`, and OpenAI itself treats the two alike.
      case "system":
      case "developer":
        out.push({ role: "system", content: m.content });
        break;
      case "user":
        out.push({ role: "user", content: typeof m.content === "string" ? m.content : m.content.map(userPart) });
        break;
      case "assistant": {
        const taken = new Set<string>();
        const calls = (m.toolCalls ?? []).map((c) => {
          const upstream = providerToolCallIdOf(c);
          const id = taken.has(upstream) ? c.id : upstream;
          taken.add(id);
          const call: ChatCompletionMessageToolCall = {
            id,
            type: "function",
            // A call without arguments may have streamed none; providers reject "" on replay.
            function: { name: c.function.name, arguments: c.function.arguments || "{}" },
          };
          return { logId: c.id, call };
        });
        if (!m.content && calls.length === 0) break;
        // `reasoning_details` is OpenRouter's field (the providers behind it that need their
        // reasoning back, e.g. signed or encrypted thinking, read it there); others ignore it.
        const carried = details ? { reasoning_details: details } : {};
        details = undefined;
        out.push({
          role: "assistant",
          content: m.content || null,
          ...(calls.length > 0 ? { tool_calls: calls.map((c) => c.call) } : {}),
          ...carried,
        } as ChatCompletionMessageParam);
        const images: ChatCompletionContentPart[] = [];
        for (const { logId, call } of calls) {
          const result = results.get(logId);
          out.push({
            role: "tool",
            tool_call_id: call.id,
            content: result ? toolResultText(result) : MISSING_TOOL_RESULT,
          });
          for (const part of result && typeof result.content !== "string" ? result.content : []) {
            const url = part.type === "image" ? dataUrl(part.source) : undefined;
            if (url) images.push({ type: "text", text: `Image returned by ${call.function.name} (${call.id}):` }, { type: "image_url", image_url: { url } });
          }
        }
        // Chat Completions takes images in user messages only: a tool's images follow its results
        // as one, so the model sees them on its next turn. Rejected: describing them in words.
        if (images.length > 0) out.push({ role: "user", content: images });
        break;
      }
      // tool: emitted after its call above. activity and reasoning text are the UI's, not the
      // model's; a reasoning message's encryptedValue goes back with the next assistant message.
      case "reasoning":
        details = m.encryptedValue ? parseDetails(m.encryptedValue) : undefined;
        break;
      case "tool":
      case "activity":
        break;
    }
  }
  return out;
}

function toolResultText(m: ToolMessage): string {
  const content = typeof m.content === "string" ? m.content : m.content.map(partText).join("\n");
  if (!m.error) return content;
  return content ? `Error: ${m.error}\n${content}` : `Error: ${m.error}`;
}

function partText(part: ContentPart): string {
  if (part.type === "image" && dataUrl(part.source)) return "[image: shown to you in the next message]";
  return part.type === "text" ? part.text : omitted(part);
}

function omitted(part: Exclude<ContentPart, { type: "text" }>): string {
  const mime = part.source.mimeType ? ` (${part.source.mimeType})` : "";
  return `[${part.type} attachment${mime} omitted: it cannot be passed to the model]`;
}

function dataUrl(source: PartSource): string | undefined {
  if (source.type === "data") return `data:${source.mimeType};base64,${source.value}`;
  if (source.type === "url") return source.value;
  return undefined;
}

function userPart(part: ContentPart): ChatCompletionContentPart {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text } satisfies ChatCompletionContentPartText;
    case "image": {
      const url = dataUrl(part.source);
      if (url) return { type: "image_url", image_url: { url } };
      break;
    }
    case "audio": {
      const { source } = part;
      const format = source.mimeType?.includes("wav") ? "wav" : source.mimeType?.includes("mp") ? "mp3" : undefined;
      if (source.type === "data" && format) return { type: "input_audio", input_audio: { data: source.value, format } };
      break;
    }
    case "document": {
      const { source } = part;
      if (source.type === "data") {
        const filename = typeof part.metadata?.filename === "string" ? part.metadata.filename : "document";
        return { type: "file", file: { file_data: dataUrl(source), filename } };
      }
      if (source.type === "file" && (source.provider ?? "openai") === "openai") {
        return { type: "file", file: { file_id: source.value } };
      }
      break;
    }
    case "video":
      break;
  }
  // Said rather than dropped, so the model can tell the user what it could not see.
  return { type: "text", text: omitted(part) };
}

/** A stored encryptedValue: the provider's items (llm-task.ts); anything else is not ours to send. */
function parseDetails(value: string): unknown[] | undefined {
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
