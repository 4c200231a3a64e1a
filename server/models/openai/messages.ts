/**
 * Neutral ModelMessages to OpenAI Chat Completions messages (any OpenAI-compatible provider).
 *
 * Chat Completions takes images in user messages only: the images of a run of tool results
 * follow them as one user message, so the model sees them on its next turn, and each result's
 * text says where they went. Rejected: describing them in words.
 *
 * Only the SDK's types are imported: the demo model builds its view of a request with this module
 * (models/demo/), and an install without the `openai` SDK runs it.
 */
import type {
  ChatCompletionContentPart,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from "openai/resources/chat/completions";
import { omitted } from "../from-agui.ts";
import { IMAGE_INPUT, type MediaInputs } from "../media-inputs.ts";
import type { MediaSource, ModelMessage, ModelTool, UserContentPart } from "../model.ts";
import { AI_SDK_REASONING } from "../ai-sdk/reasoning.ts";

/** Chat Completions' input_audio takes wav and mp3 only. */
export function openAIAudioFormat(mediaType: string): "wav" | "mp3" | undefined {
  return mediaType.includes("wav") ? "wav" : mediaType.includes("mp") ? "mp3" : undefined;
}

/**
 * What userPart below passes on (media-inputs.ts): images (PNG, JPEG, GIF, WebP) as data or URL, audio as wav or mp3
 * data, documents as data or an OpenAI file id; no video (from-agui.ts has no part for it).
 */
export const OPENAI_MEDIA_INPUTS: MediaInputs = {
  image: IMAGE_INPUT,
  audio: { sources: ["data"], mimeTypes: { test: (m) => openAIAudioFormat(m) !== undefined, described: "wav or mp3 (audio/wav, audio/mpeg)" } },
  video: false,
  document: { sources: ["data", "file"] },
};

/** The words before each tool image in the user message that carries a turn's tool images. */
const TOOL_IMAGE_LABEL = "Image returned by";

/**
 * True for the user message toOpenAIMessages adds after a turn's tool messages to carry their
 * images (Chat Completions takes no image in a tool message): the user did not say it. A reader
 * of the request, such as the demo script, skips it so as not to take it for the user's turn.
 */
export function carriesToolImages(m: { role: string; content: unknown }, before: { role: string } | undefined): boolean {
  if (m.role !== "user" || before?.role !== "tool" || !Array.isArray(m.content) || m.content.length === 0) return false;
  return (m.content as { type: string; text?: string }[]).every((p) => p.type === "image_url" || (p.type === "text" && p.text?.startsWith(`${TOOL_IMAGE_LABEL} `)));
}

export function toOpenAIMessages(messages: ModelMessage[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  let images: ChatCompletionContentPart[] = [];
  const flushImages = () => {
    if (images.length > 0) out.push({ role: "user", content: images });
    images = [];
  };
  for (const m of messages) {
    if (m.role !== "tool") flushImages();
    switch (m.role) {
      case "system":
        out.push({ role: "system", content: m.content });
        break;
      case "user":
        // A lone text part goes as a plain string, which every compatible server accepts.
        out.push({ role: "user", content: m.content.length === 1 && m.content[0]!.type === "text" ? m.content[0]!.text : m.content.map(userPart) });
        break;
      case "assistant": {
        let text = "";
        const calls: ChatCompletionMessageToolCall[] = [];
        const details: unknown[] = [];
        for (const part of m.content) {
          if (part.type === "text") text += part.text;
          else if (part.type === "tool-call") calls.push({ id: part.id, type: "function", function: { name: part.name, arguments: part.args } });
          // `reasoning_details` is OpenRouter's field (the providers behind it that need their
          // reasoning back, e.g. signed or encrypted thinking, read it there); others ignore it.
          // Items another adapter stored are its own business.
          else details.push(...(part.providerData ?? []).filter((d) => !(typeof d === "object" && d !== null && AI_SDK_REASONING in d)));
        }
        out.push({
          role: "assistant",
          content: text || null,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
          ...(details.length > 0 ? { reasoning_details: details } : {}),
        } as ChatCompletionMessageParam);
        break;
      }
      case "tool": {
        const texts: string[] = [];
        for (const part of m.content) {
          if (part.type === "text") texts.push(part.text);
          else {
            const url = imageUrl(part.source);
            if (!url) {
              texts.push(omitted({ type: "image", source: { mimeType: part.source.mediaType } }));
              continue;
            }
            texts.push("[image: shown to you in the next message]");
            images.push({ type: "text", text: `${TOOL_IMAGE_LABEL} ${m.toolName} (${m.toolCallId}):` }, { type: "image_url", image_url: { url } });
          }
        }
        out.push({ role: "tool", tool_call_id: m.toolCallId, content: texts.join("\n") });
        break;
      }
    }
  }
  flushImages();
  return out;
}

function imageUrl(source: MediaSource): string | undefined {
  if (source.type === "data") return `data:${source.mediaType};base64,${source.data}`;
  if (source.type === "url") return source.url;
  return undefined;
}

function userPart(part: UserContentPart): ChatCompletionContentPart {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "image": {
      const url = imageUrl(part.source);
      if (url) return { type: "image_url", image_url: { url } };
      break;
    }
    case "file": {
      const { source } = part;
      const mediaType = source.mediaType ?? "";
      if (mediaType.startsWith("audio/")) {
        const format = openAIAudioFormat(mediaType);
        if (source.type === "data" && format) return { type: "input_audio", input_audio: { data: source.data, format } };
        break;
      }
      if (source.type === "data") return { type: "file", file: { file_data: imageUrl(source), filename: part.filename ?? "document" } };
      if (source.type === "provider-file" && source.provider === "openai") return { type: "file", file: { file_id: source.id } };
      break;
    }
  }
  const kind = part.type === "image" ? "image" : part.source.mediaType?.startsWith("audio/") ? "audio" : "document";
  return { type: "text", text: omitted({ type: kind, source: { mimeType: part.source.mediaType } }) };
}

export function toOpenAITools(tools: ModelTool[]): ChatCompletionFunctionTool[] {
  return tools.map((t) => ({
    type: "function",
    function: { name: t.name, ...(t.description !== undefined && { description: t.description }), parameters: t.inputSchema },
  }));
}
