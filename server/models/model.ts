/**
 * The engine's seam to any LLM, in neutral terms: a request (messages, tools, abort signal) in,
 * a stream of parts (text, reasoning, tool calls, usage, finish) out. Adapters translate to one
 * SDK each (openai/, ai-sdk/, demo/); nothing outside them names a provider's types. The zod
 * schemas are the source of truth and document the wire-ish shapes; the engine builds values of
 * these types directly and does not parse them on the hot path.
 */
import { z } from "zod";
import type { AgentDefinition } from "../agents/define.ts";
import type { MediaInputs } from "./media-inputs.ts";

/** Bytes of a medium, as base64 or behind a URL (http(s) or data:). */
export const MediaSourceSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("data"), data: z.string().min(1), mediaType: z.string().min(1) }),
  z.object({ type: z.literal("url"), url: z.string().min(1), mediaType: z.string().optional() }),
  /** A file the provider already holds (OpenAI's file ids); adapters of other providers omit it. */
  z.object({ type: z.literal("provider-file"), id: z.string().min(1), provider: z.string().min(1), mediaType: z.string().optional() }),
]);
export type MediaSource = z.infer<typeof MediaSourceSchema>;

export const TextPartSchema = z.object({ type: z.literal("text"), text: z.string() });
export const ImagePartSchema = z.object({ type: z.literal("image"), source: MediaSourceSchema });
/** Audio, PDFs and other documents: the adapter decides what its provider can take. */
export const FilePartSchema = z.object({ type: z.literal("file"), source: MediaSourceSchema, filename: z.string().optional() });

/**
 * Reasoning as the assistant produced it. `providerData` is opaque and ordered: whatever the
 * adapter that streamed it needs back on the next turn (OpenRouter's `reasoning_details` items,
 * an Anthropic thinking block's signature). Stored with the conversation as the reasoning
 * message's `encryptedValue`, so it survives restarts and other instances.
 */
export const ReasoningPartSchema = z.object({
  type: z.literal("reasoning"),
  text: z.string(),
  providerData: z.array(z.unknown()).optional(),
});
/** `args` is the JSON text the model streamed ("{}" when it streamed none). */
export const ToolCallPartSchema = z.object({ type: z.literal("tool-call"), id: z.string().min(1), name: z.string().min(1), args: z.string() });

export const ModelMessageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string() }),
  z.object({ role: z.literal("user"), content: z.array(z.discriminatedUnion("type", [TextPartSchema, ImagePartSchema, FilePartSchema])) }),
  z.object({ role: z.literal("assistant"), content: z.array(z.discriminatedUnion("type", [TextPartSchema, ReasoningPartSchema, ToolCallPartSchema])) }),
  /** The result of one call; images a tool returned (tool-content.ts) travel as image parts. */
  z.object({
    role: z.literal("tool"),
    toolCallId: z.string().min(1),
    toolName: z.string().min(1),
    content: z.array(z.discriminatedUnion("type", [TextPartSchema, ImagePartSchema])),
    isError: z.boolean().optional(),
  }),
]);
export type ModelMessage = z.infer<typeof ModelMessageSchema>;
export type UserContentPart = Extract<ModelMessage, { role: "user" }>["content"][number];
export type AssistantContentPart = Extract<ModelMessage, { role: "assistant" }>["content"][number];
export type ToolContentPart = Extract<ModelMessage, { role: "tool" }>["content"][number];

export const ModelToolSchema = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  /** JSON Schema of the arguments object. */
  inputSchema: z.record(z.string(), z.unknown()),
});
export type ModelTool = z.infer<typeof ModelToolSchema>;

export interface ModelRequest {
  messages: ModelMessage[];
  tools: ModelTool[];
  /** Aborting it closes the upstream request; the stream then throws ModelError ABORTED. */
  signal: AbortSignal;
  /** Overrides the adapter's model name for this request, where the adapter has one. */
  model?: string;
  /**
   * HTTP headers for the upstream request, where the adapter makes one: the model call's trace
   * context (W3C `traceparent`, `tracestate`), so the provider's side of the trace joins the run's.
   */
  headers?: Record<string, string>;
}

const index = z.number().int().nonnegative();
const tokens = z.number().int().nonnegative();

export const FinishReasonSchema = z.enum(["stop", "length", "tool-calls", "content-filter", "other"]);
export type FinishReason = z.infer<typeof FinishReasonSchema>;

export const ModelPartSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text-delta"), delta: z.string() }),
  /** `delta` may be "" when a part only carries provider data (a signature at the end of a block). */
  z.object({ type: z.literal("reasoning-delta"), delta: z.string(), providerData: z.array(z.unknown()).optional() }),
  /**
   * `index` numbers the calls of one response in order (parallel calls interleave by it); `id`
   * is "" when the provider sends none: the engine mints one.
   */
  z.object({ type: z.literal("tool-call-start"), index, id: z.string(), name: z.string().min(1) }),
  z.object({ type: z.literal("tool-call-args-delta"), index, delta: z.string() }),
  z.object({ type: z.literal("tool-call-end"), index }),
  z.object({
    type: z.literal("usage"),
    inputTokens: tokens,
    outputTokens: tokens,
    totalTokens: tokens,
    reasoningTokens: tokens.optional(),
    cachedInputTokens: tokens.optional(),
  }),
  /** Always the last part, and only after the upstream stream ended cleanly. `raw`: the provider's word. */
  z.object({ type: z.literal("finish"), reason: FinishReasonSchema, raw: z.string().optional() }),
]);
export type ModelPart = z.infer<typeof ModelPartSchema>;

export interface Model {
  /** "provider:name", for logs and errors. */
  readonly id: string;
  /**
   * The media this model takes in user messages (media-inputs.ts). Absent (a Model of the
   * application's own that says nothing): every part is passed on as today, and the agent's
   * capabilities leave the input types undeclared.
   */
  readonly mediaInputs?: MediaInputs;
  /** Throws ModelError (errors.ts), also from inside the iteration. */
  stream(req: ModelRequest): AsyncIterable<ModelPart>;
}

/** One model per agent, so an agent's `model` setting picks its model. */
export type ModelFactory = (agent: AgentDefinition) => Model;

export function isModel(value: unknown): value is Model {
  return typeof value === "object" && value !== null && typeof (value as Model).stream === "function" && typeof (value as Model).id === "string";
}
