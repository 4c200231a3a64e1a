/**
 * The `openai` SDK adapter: one streamed Chat Completions request to any OpenAI-compatible base
 * URL (OpenAI, OpenRouter, vLLM, aimock...), turned into neutral ModelParts. Every failure
 * leaves as a ModelError. Timeouts and retries are the client's (client.ts). The SDK is an
 * optional peer (sdk.ts): imported on the first request, for its error classes.
 */
import { causeText, httpError, ModelError } from "../errors.ts";
import type { FinishReason, Model, ModelPart, ModelRequest } from "../model.ts";
import type { ChatChunk, ChatChunkToolCall, ChatChunkUsage, OpenAIChatClient } from "./chat-client.ts";
import { UpstreamReadTimeoutError } from "./client.ts";
import { OPENAI_MEDIA_INPUTS, toOpenAIMessages, toOpenAITools } from "./messages.ts";
import { loadOpenAISdk, type OpenAISdk } from "./sdk.ts";

const HTTP_HINTS: Record<number, string> = {
  401: "check OPENAI_API_KEY",
  403: "check that OPENAI_API_KEY may use this model",
  404: "check the model name (MODEL, OPENAI_MODEL) and OPENAI_BASE_URL",
  429: "the provider is rate-limiting or out of quota; wait, or raise the limit",
};

/** Maps anything the SDK or the stream throws onto a ModelError; the original stays as `cause`. */
function toModelError(err: unknown, sdk: OpenAISdk, signal: AbortSignal | undefined, unreachable: string): ModelError {
  const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } = sdk;
  if (err instanceof ModelError) return err;
  // Checked first: once the caller aborted, whatever the transport says next is a consequence.
  if (signal?.aborted || err instanceof APIUserAbortError) {
    return new ModelError("ABORTED", "The model request was aborted.", { cause: err });
  }
  const timeout = findReadTimeout(err);
  if (timeout) {
    return new ModelError(
      "UPSTREAM_TIMEOUT",
      `The model went silent for ${timeout.timeoutMs} ms in the middle of its answer (LLM_READ_TIMEOUT_MS).`,
      { cause: err },
    );
  }
  if (err instanceof APIConnectionTimeoutError) {
    return new ModelError("UPSTREAM_CONNECT_TIMEOUT", "The model provider did not start answering in time (LLM_CONNECT_TIMEOUT_MS).", { cause: err });
  }
  if (err instanceof APIConnectionError) {
    return new ModelError("UPSTREAM_UNREACHABLE", `Could not reach the model provider: ${causeText(err)}. ${unreachable}`, { cause: err });
  }
  if (err instanceof APIError) {
    if (err.status === undefined) {
      // An error event inside a 200 stream: the provider gave up after it had started.
      return new ModelError("UPSTREAM_ERROR", `The model provider reported an error: ${err.message}`, { cause: err });
    }
    // The SDK's message starts with the status again ("500 upstream exploded").
    return httpError(err.status, err.message.replace(/^\d{3}\s*/, ""), HTTP_HINTS, err);
  }
  // After the headers, undici reports a cut connection as `TypeError: terminated`, and the SDK
  // a malformed event as a SyntaxError: both mean the stream cannot be trusted any more.
  return new ModelError("UPSTREAM_STREAM_BROKEN", `The model's stream broke: ${causeText(err)}.`, { cause: err });
}

function findReadTimeout(err: unknown): UpstreamReadTimeoutError | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof UpstreamReadTimeoutError) return e;
  }
  return undefined;
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

  *accept(fragments: ChatChunkToolCall[]): Generator<ModelPart> {
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
        yield { type: "tool-call-start", index: call.index, id: call.id, name: call.name };
        if (call.pendingArgs) yield { type: "tool-call-args-delta", index: call.index, delta: call.pendingArgs };
        call.pendingArgs = "";
      }
      if (!args) continue;
      if (call.started) yield { type: "tool-call-args-delta", index: call.index, delta: args };
      else call.pendingArgs += args;
    }
  }

  /** Chat Completions has no end marker per call: all end with the response. */
  *end(): Generator<ModelPart> {
    for (const c of this.#all) yield { type: "tool-call-end", index: c.index };
  }

  unnamed(): OpenCall | undefined {
    return this.#all.find((c) => !c.started);
  }
}

function usagePart(u: ChatChunkUsage): ModelPart {
  const d: ModelPart = {
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

const FINISH: Record<string, FinishReason> = { stop: "stop", length: "length", tool_calls: "tool-calls", function_call: "tool-calls", content_filter: "content-filter" };


export interface OpenAIModelOptions {
  /** createOpenAIClient's, or the SDK's own `new OpenAI(...)`. */
  client: OpenAIChatClient;
  /** Used when a request names no model of its own. */
  model: string;
  /** The provider part of `id` ("openai", "openrouter", "demo"). */
  provider?: string;
  /**
   * What to check when the provider cannot be reached, as a sentence: the setting that named its
   * address, or that none did (the default: the client's base URL). Rejected: one hint for every
   * provider, which told a user who never set OPENAI_BASE_URL, or who runs Ollama, to check it.
   */
  unreachableHint?: string;
}

export class OpenAIModel implements Model {
  readonly id: string;
  readonly mediaInputs = OPENAI_MEDIA_INPUTS;
  readonly #client: OpenAIChatClient;
  readonly #model: string;
  readonly #unreachable: string;

  constructor(opts: OpenAIModelOptions) {
    this.#client = opts.client;
    this.#model = opts.model;
    this.#unreachable = opts.unreachableHint ?? "Check the client's base URL and the network.";
    this.id = `${opts.provider ?? "openai"}:${opts.model}`;
  }

  async *stream(req: ModelRequest): AsyncGenerator<ModelPart, void, undefined> {
    const { signal } = req;
    const sdk = await loadOpenAISdk();
    let stream: AsyncIterable<ChatChunk>;
    try {
      stream = await this.#client.chat.completions.create(
        {
          model: req.model ?? this.#model,
          messages: toOpenAIMessages(req.messages),
          // OpenAI rejects an empty array: no tools means no `tools` key.
          ...(req.tools.length > 0 ? { tools: toOpenAITools(req.tools) } : {}),
          stream: true,
          stream_options: { include_usage: true },
        },
        // The SDK ties the signal to the fetch and its body: aborting it closes the connection.
        { signal, ...(req.headers && { headers: req.headers }) },
      );
    } catch (err) {
      throw toModelError(err, sdk, signal, this.#unreachable);
    }

    const calls = new ToolCalls();
    let finishReason: string | undefined;
    // Some providers repeat usage on several chunks; only the last one counts.
    let usage: ChatChunkUsage | undefined;
    try {
      // Breaking out of this loop (the consumer stopped) aborts the SDK's request.
      for await (const chunk of stream) {
        if (chunk.usage) usage = chunk.usage;
        const choice = chunk.choices[0];
        if (!choice) continue;
        const { delta } = choice;
        const reasoning = delta.reasoning_content || delta.reasoning || "";
        // OpenRouter's items, one provider-data entry each: what goes back is the same list.
        const details = Array.isArray(delta.reasoning_details) && delta.reasoning_details.length > 0 ? delta.reasoning_details : undefined;
        if (reasoning || details) yield { type: "reasoning-delta", delta: reasoning, ...(details && { providerData: details }) };
        if (delta.content) yield { type: "text-delta", delta: delta.content };
        if (delta.tool_calls) yield* calls.accept(delta.tool_calls);
        if (choice.finish_reason) finishReason = choice.finish_reason;
      }
    } catch (err) {
      throw toModelError(err, sdk, signal, this.#unreachable);
    }
    // The SDK ends an aborted stream quietly, without an error: the signal tells.
    if (signal.aborted) throw toModelError(signal.reason, sdk, signal, this.#unreachable);
    if (finishReason === undefined) {
      throw new ModelError("UPSTREAM_STREAM_BROKEN", "The model's stream ended without a finish reason: the connection was probably cut.");
    }
    const unnamed = calls.unnamed();
    if (unnamed) {
      throw new ModelError("UPSTREAM_STREAM_BROKEN", `The model streamed tool call #${unnamed.index} without a name.`);
    }
    yield* calls.end();
    if (usage) yield usagePart(usage);
    yield { type: "finish", reason: FINISH[finishReason] ?? "other", raw: finishReason };
  }
}
