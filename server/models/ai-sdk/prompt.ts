/**
 * Neutral ModelMessages to the AI SDK's provider-level prompt (LanguageModelV3Prompt), which
 * every @ai-sdk/* provider turns into its own API's messages (Anthropic content blocks, Gemini
 * parts...). Consecutive tool results become one tool message: providers such as Anthropic
 * want all results of one turn's parallel calls together.
 */
import type {
  LanguageModelV3FilePart,
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3TextPart,
  LanguageModelV3ToolResultOutput,
  LanguageModelV3ToolResultPart,
} from "@ai-sdk/provider";
import { omitted } from "../from-agui.ts";
import { IMAGE_INPUT, type MediaInputs } from "../media-inputs.ts";
import type { AssistantContentPart, MediaSource, ModelMessage, ModelTool, ToolContentPart, UserContentPart } from "../model.ts";
import { reasoningBlocks } from "./reasoning.ts";

export function toAiSdkPrompt(messages: ModelMessage[], provider: string): LanguageModelV3Prompt {
  const out: LanguageModelV3Message[] = [];
  for (const m of messages) {
    switch (m.role) {
      case "system":
        out.push({ role: "system", content: m.content });
        break;
      case "user":
        out.push({ role: "user", content: m.content.map(userPart) });
        break;
      case "assistant":
        out.push({ role: "assistant", content: m.content.flatMap((p) => assistantPart(p, provider)) });
        break;
      case "tool": {
        const result: LanguageModelV3ToolResultPart = { type: "tool-result", toolCallId: m.toolCallId, toolName: m.toolName, output: toolOutput(m.content, m.isError === true) };
        const last = out.at(-1);
        if (last?.role === "tool") last.content.push(result);
        else out.push({ role: "tool", content: [result] });
        break;
      }
    }
  }
  return out;
}

export function toAiSdkTools(tools: ModelTool[]): LanguageModelV3FunctionTool[] {
  return tools.map((t) => ({
    type: "function",
    name: t.name,
    ...(t.description !== undefined && { description: t.description }),
    inputSchema: t.inputSchema as LanguageModelV3FunctionTool["inputSchema"],
  }));
}

/**
 * What userPart below passes on (media-inputs.ts): every kind the neutral messages carry, as data
 * or URL (the provider decides the MIME types, except images: the types every provider reads);
 * no provider file ids, no video (from-agui.ts has no part for it).
 */
export const AI_SDK_MEDIA_INPUTS: MediaInputs = {
  image: IMAGE_INPUT,
  audio: { sources: ["data", "url"] },
  video: false,
  document: { sources: ["data", "url"] },
};

function filePart(source: MediaSource, fallbackType: string, filename?: string): LanguageModelV3FilePart | undefined {
  const mediaType = source.mediaType ?? fallbackType;
  if (source.type === "data") return { type: "file", data: source.data, mediaType, ...(filename && { filename }) };
  if (source.type === "url") return { type: "file", data: new URL(source.url), mediaType, ...(filename && { filename }) };
  return undefined;
}

function userPart(part: UserContentPart): LanguageModelV3TextPart | LanguageModelV3FilePart {
  if (part.type === "text") return { type: "text", text: part.text };
  // "image/*": the SDK's wildcard for an image whose exact type the provider works out.
  const file = filePart(part.source, part.type === "image" ? "image/*" : "application/octet-stream", part.type === "file" ? part.filename : undefined);
  if (file) return file;
  return { type: "text", text: omitted({ type: part.type === "image" ? "image" : "document", source: { mimeType: part.source.mediaType } }) };
}

type V3AssistantPart = Extract<LanguageModelV3Message, { role: "assistant" }>["content"][number];

function assistantPart(part: AssistantContentPart, provider: string): V3AssistantPart[] {
  switch (part.type) {
    case "text":
      return part.text === "" ? [] : [{ type: "text", text: part.text }];
    case "tool-call":
      return [{ type: "tool-call", toolCallId: part.id, toolName: part.name, input: parseArgs(part.args) }];
    case "reasoning": {
      // This provider's own blocks go back whole (signatures included); another provider's
      // reasoning goes back as plain text, which providers keep or drop as they see fit.
      const blocks = reasoningBlocks(part.providerData, provider);
      if (blocks.length > 0) return blocks.map((b) => ({ type: "reasoning" as const, text: b.text, providerOptions: b.providerOptions as never }));
      return part.text === "" ? [] : [{ type: "reasoning", text: part.text }];
    }
  }
}

/** The model streamed the arguments as JSON text; a call whose text does not parse goes back as {}. */
function parseArgs(args: string): unknown {
  try {
    const parsed: unknown = JSON.parse(args);
    return typeof parsed === "object" && parsed !== null ? parsed : {};
  } catch {
    return {};
  }
}

function toolOutput(parts: ToolContentPart[], isError: boolean): LanguageModelV3ToolResultOutput {
  const text = parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
  if (parts.every((p) => p.type === "text")) return isError ? { type: "error-text", value: text } : { type: "text", value: text };
  return {
    type: "content",
    value: parts.map((p) => {
      if (p.type === "text") return { type: "text" as const, text: p.text };
      const { source } = p;
      if (source.type === "data") return { type: "file-data" as const, data: source.data, mediaType: source.mediaType };
      if (source.type === "url") return { type: "file-url" as const, url: source.url };
      return { type: "text" as const, text: omitted({ type: "image", source: { mimeType: source.mediaType } }) };
    }),
  };
}
