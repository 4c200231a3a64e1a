/**
 * The LLM layer: one streamed Chat Completions request through the real `openai` SDK, turned
 * into a small union of deltas the engine maps onto workflow events (text.delta,
 * reasoning.delta, toolcall.*, usage.recorded). Every failure leaves as an LlmError with a
 * string code, so the engine never needs to know the SDK's error classes.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";
import { z } from "zod";
import type { ChatModel, ChatRequest } from "./chat-model.ts";
import { UpstreamReadTimeoutError } from "./openai-client.ts";

export { createOpenAIClient, type OpenAIClientOptions } from "./openai-client.ts";
export { toOpenAIMessages } from "./openai-messages.ts";

const index = z.number().int().nonnegative();
const tokens = z.number().int().nonnegative();

export const LlmDeltaSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), delta: z.string() }),
  z.object({ type: z.literal("reasoning"), delta: z.string() }),
  /**
   * Provider reasoning the model needs back on its next turn, opaque (OpenRouter's
   * `reasoning_details`: encrypted or signed items): kept on the reasoning message as its
   * `encryptedValue` and sent back with the assistant message it preceded.
   */
  z.object({ type: z.literal("reasoning_details"), details: z.array(z.record(z.string(), z.unknown())) }),
  /** `id` is "" when the provider sends none: the engine mints one. */
  z.object({ type: z.literal("tool_call_start"), index, id: z.string(), name: z.string().min(1) }),
  z.object({ type: z.literal("tool_call_args"), index, delta: z.string() }),
  z.object({
    type: z.literal("usage"),
    inputTokens: tokens,
    outputTokens: tokens,
    totalTokens: tokens,
    reasoningTokens: tokens.optional(),
    cachedInputTokens: tokens.optional(),
  }),
  /** Always the last delta, and only after the upstream stream ended cleanly. */
  z.object({ type: z.literal("finish"), reason: z.string() }),
]);
export type LlmDelta = z.infer<typeof LlmDeltaSchema>;

export type LlmErrorCode =
  | `UPSTREAM_HTTP_${number}`
  | "UPSTREAM_CONNECT_TIMEOUT"
  | "UPSTREAM_TIMEOUT"
  | "UPSTREAM_UNREACHABLE"
  | "UPSTREAM_STREAM_BROKEN"
  | "UPSTREAM_ERROR"
  | "ABORTED";

export class LlmError extends Error {
  override readonly name = "LlmError";
  constructor(
    readonly code: LlmErrorCode,
    message: string,
    options?: { cause?: unknown; status?: number },
  ) {
    super(message, options);
    this.status = options?.status;
  }
  /** The upstream HTTP status, for UPSTREAM_HTTP_* codes. */
  readonly status: number | undefined;
}

const HTTP_HINTS: Record<number, string> = {
  401: "check OPENAI_API_KEY",
  403: "check that OPENAI_API_KEY may use this model",
  404: "check OPENAI_MODEL and OPENAI_BASE_URL",
  429: "the provider is rate-limiting or out of quota; wait, or raise the limit",
};

/** Maps anything the SDK or the stream throws onto an LlmError; the original stays as `cause`. */
export function toLlmError(err: unknown, signal?: AbortSignal): LlmError {
  if (err instanceof LlmError) return err;
  // Checked first: once the caller aborted, whatever the transport says next is a consequence.
  if (signal?.aborted || err instanceof APIUserAbortError) {
    return new LlmError("ABORTED", "The model request was aborted.", { cause: err });
  }
  const timeout = findReadTimeout(err);
  if (timeout) {
    return new LlmError(
      "UPSTREAM_TIMEOUT",
      `The model went silent for ${timeout.timeoutMs} ms in the middle of its answer (LLM_READ_TIMEOUT_MS).`,
      { cause: err },
    );
  }
  if (err instanceof APIConnectionTimeoutError) {
    return new LlmError(
      "UPSTREAM_CONNECT_TIMEOUT",
      "The model provider did not start answering in time (LLM_CONNECT_TIMEOUT_MS).",
      { cause: err },
    );
  }
  if (err instanceof APIConnectionError) {
    return new LlmError("UPSTREAM_UNREACHABLE", `Could not reach the model provider: ${causeText(err)}. Check OPENAI_BASE_URL.`, {
      cause: err,
    });
  }
  if (err instanceof APIError) {
    if (err.status === undefined) {
      // An error event inside a 200 stream: the provider gave up after it had started.
      return new LlmError("UPSTREAM_ERROR", `The model provider reported an error: ${err.message}`, { cause: err });
    }
    const hint = HTTP_HINTS[err.status] ?? (err.status >= 500 ? "the provider failed; try again" : "");
    return new LlmError(
      `UPSTREAM_HTTP_${err.status}`,
      // The SDK's message starts with the status again ("500 upstream exploded").
      `The model provider answered HTTP ${err.status} (${err.message.replace(/^\d{3}\s*/, "")})${hint ? `: ${hint}` : ""}.`,
      { cause: err, status: err.status },
    );
  }
  // After the headers, undici reports a cut connection as `TypeError: terminated`, and the SDK
  // a malformed event as a SyntaxError: both mean the stream cannot be trusted any more.
  return new LlmError("UPSTREAM_STREAM_BROKEN", `The model's stream broke: ${causeText(err)}.`, { cause: err });
}

function findReadTimeout(err: unknown): UpstreamReadTimeoutError | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof UpstreamReadTimeoutError) return e;
  }
  return undefined;
}

function causeText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  return err.cause instanceof Error ? `${err.message} (${err.cause.message})` : err.message;
}

/** The fields OpenAI-compatible providers put reasoning in: DeepSeek/vLLM, OpenRouter. */
interface ReasoningDelta {
  reasoning_content?: string | null;
  reasoning_details?: Record<string, unknown>[] | null;
  reasoning?: string | null;
}

interface OpenCall {
  index: number;
  id: string;
  name: string;
  started: boolean;
  pendingArgs: string;
}

/**
 * Assembles streamed tool calls. The first fragment of a call normally carries id and name, the
 * rest only argument text; this also copes with a name that comes after some arguments, a
 * missing `index`, and an index reused for a new id. Output indexes count calls in order.
 */
class ToolCalls {
  readonly #byIndex = new Map<number, OpenCall>();
  readonly #all: OpenCall[] = [];

  *accept(fragments: ChatCompletionChunk.Choice.Delta.ToolCall[]): Generator<LlmDelta> {
    for (const [pos, tc] of fragments.entries()) {
      const key = tc.index ?? pos;
      let call = this.#byIndex.get(key);
      if (!call || (tc.id && call.id && tc.id !== call.id)) {
        call = { index: this.#all.length, id: "", name: "", started: false, pendingArgs: "" };
        this.#byIndex.set(key, call);
        this.#all.push(call);
      }
      if (tc.id && !call.id) call.id = tc.id;
      if (tc.function?.name && !call.started) call.name += tc.function.name;
      const args = tc.function?.arguments ?? "";
      if (!call.started && call.name) {
        call.started = true;
        yield { type: "tool_call_start", index: call.index, id: call.id, name: call.name };
        if (call.pendingArgs) yield { type: "tool_call_args", index: call.index, delta: call.pendingArgs };
        call.pendingArgs = "";
      }
      if (!args) continue;
      if (call.started) yield { type: "tool_call_args", index: call.index, delta: args };
      else call.pendingArgs += args;
    }
  }

  unnamed(): OpenCall | undefined {
    return this.#all.find((c) => !c.started);
  }
}

function usageDelta(u: CompletionUsage): LlmDelta {
  const d: LlmDelta = {
    type: "usage",
    inputTokens: u.prompt_tokens ?? 0,
    outputTokens: u.completion_tokens ?? 0,
    totalTokens: u.total_tokens ?? (u.prompt_tokens ?? 0) + (u.completion_tokens ?? 0),
  };
  const reasoning = u.completion_tokens_details?.reasoning_tokens;
  const cached = u.prompt_tokens_details?.cached_tokens;
  if (typeof reasoning === "number") d.reasoningTokens = reasoning;
  if (typeof cached === "number") d.cachedInputTokens = cached;
  return d;
}

export interface OpenAIChatModelOptions {
  client: OpenAI;
  /** Used when a request names no model of its own. */
  model: string;
}

export class OpenAIChatModel implements ChatModel {
  readonly #client: OpenAI;
  readonly #model: string;

  constructor(opts: OpenAIChatModelOptions) {
    this.#client = opts.client;
    this.#model = opts.model;
  }

  async *streamChat(req: ChatRequest): AsyncGenerator<LlmDelta, void, undefined> {
    const { signal } = req;
    let stream: AsyncIterable<ChatCompletionChunk>;
    try {
      stream = await this.#client.chat.completions.create(
        {
          model: req.model ?? this.#model,
          messages: req.messages,
          // OpenAI rejects an empty array: no tools means no `tools` key.
          ...(req.tools.length > 0 ? { tools: req.tools } : {}),
          stream: true,
          stream_options: { include_usage: true },
        },
        // The SDK ties the signal to the fetch and its body: aborting it closes the connection.
        { signal },
      );
    } catch (err) {
      throw toLlmError(err, signal);
    }

    const calls = new ToolCalls();
    let finishReason: string | undefined;
    // Some providers repeat usage on several chunks; only the last one counts.
    let usage: CompletionUsage | undefined;
    try {
      // Breaking out of this loop (the consumer stopped) aborts the SDK's request.
      for await (const chunk of stream) {
        if (chunk.usage) usage = chunk.usage;
        const choice = chunk.choices[0];
        if (!choice) continue;
        const delta = choice.delta as ChatCompletionChunk.Choice.Delta & ReasoningDelta;
        const reasoning = delta.reasoning_content || delta.reasoning;
        if (reasoning) yield { type: "reasoning", delta: reasoning };
        if (Array.isArray(delta.reasoning_details) && delta.reasoning_details.length > 0) {
          yield { type: "reasoning_details", details: delta.reasoning_details };
        }
        if (delta.content) yield { type: "text", delta: delta.content };
        if (delta.tool_calls) yield* calls.accept(delta.tool_calls);
        if (choice.finish_reason) finishReason = choice.finish_reason;
      }
    } catch (err) {
      throw toLlmError(err, signal);
    }
    // The SDK ends an aborted stream quietly, without an error: the signal tells.
    if (signal.aborted) throw toLlmError(signal.reason, signal);
    if (finishReason === undefined) {
      throw new LlmError(
        "UPSTREAM_STREAM_BROKEN",
        "The model's stream ended without a finish reason: the connection was probably cut.",
      );
    }
    const unnamed = calls.unnamed();
    if (unnamed) {
      throw new LlmError("UPSTREAM_STREAM_BROKEN", `The model streamed tool call #${unnamed.index} without a name.`);
    }
    if (usage) yield usageDelta(usage);
    yield { type: "finish", reason: finishReason };
  }
}
