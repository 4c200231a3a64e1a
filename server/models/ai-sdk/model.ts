/**
 * The AI SDK adapter: any LanguageModelV3 (every @ai-sdk/* provider: Anthropic, Google, Bedrock,
 * Ollama's community provider...) as a Model.
 *
 * It calls the provider's `doStream` directly rather than `streamText` from `ai`: the engine
 * already owns the agent loop, tool execution and durable retries, and `streamText` would add
 * its own (tool steps, retries with their own backoff, a message format converted twice) between
 * the engine and the provider. `doStream` is the provider-level contract the SDK itself builds
 * on, gives the raw parts with their provider metadata (reasoning signatures), and takes the
 * abort signal straight to the provider's fetch.
 *
 * What `doStream` does not do, done here: a connect timeout (until the provider's response
 * headers), a read timeout (silence between two stream parts, measured only while a part is
 * awaited, so a slow consumer is never mistaken for a silent upstream), retries of failures
 * before the first part (never after: a retry would repeat deltas), and mapping every failure to
 * a ModelError.
 */
import type { LanguageModelV3, LanguageModelV3StreamPart, LanguageModelV3Usage, SharedV3ProviderMetadata } from "@ai-sdk/provider";
import { APICallError } from "@ai-sdk/provider";
import { causeText, httpError, ModelError } from "../errors.ts";
import type { FinishReason, Model, ModelPart, ModelRequest } from "../model.ts";
import { AI_SDK_MEDIA_INPUTS, toAiSdkPrompt, toAiSdkTools } from "./prompt.ts";
import { reasoningEntry } from "./reasoning.ts";
import { abortableWait } from "../../agents/abortable-wait.ts";

export interface AiSdkModelOptions {
  /** Upper bound on the wait for the provider's response headers, per attempt; 0 disables. Default 30 s. */
  connectTimeoutMs?: number;
  /** Upper bound on the silence between two stream parts; 0 disables. Default 60 s. */
  readTimeoutMs?: number;
  /** Retries of a retryable failure (429, 5xx, unreachable) before the first part. Default 2. */
  maxRetries?: number;
  /** The provider name in `id` (default: the model's `provider` up to its first dot). */
  provider?: string;
  /** Hints per HTTP status, e.g. which API key variable to check. */
  hints?: Record<number, string>;
}

class ConnectTimeout extends Error {
  override readonly name = "ConnectTimeout";
}

class ReadTimeout extends Error {
  override readonly name = "ReadTimeout";
  constructor(readonly timeoutMs: number) {
    super(`no data from the model for ${timeoutMs} ms`);
  }
}

export function aiSdkModel(languageModel: LanguageModelV3, opts: AiSdkModelOptions = {}): Model {
  return new AiSdkModel(languageModel, opts);
}

class AiSdkModel implements Model {
  readonly id: string;
  readonly mediaInputs = AI_SDK_MEDIA_INPUTS;
  readonly #lm: LanguageModelV3;
  readonly #connectMs: number;
  readonly #readMs: number;
  readonly #maxRetries: number;
  readonly #hints: Record<number, string>;

  constructor(lm: LanguageModelV3, opts: AiSdkModelOptions) {
    this.#lm = lm;
    this.#connectMs = opts.connectTimeoutMs ?? 30_000;
    this.#readMs = opts.readTimeoutMs ?? 60_000;
    this.#maxRetries = opts.maxRetries ?? 2;
    this.#hints = opts.hints ?? {};
    this.id = `${opts.provider ?? lm.provider.split(".")[0]}:${lm.modelId}`;
  }

  async *stream(req: ModelRequest): AsyncGenerator<ModelPart, void, undefined> {
    // One controller for the whole request: the caller's abort and our timeouts both end the
    // provider's fetch through it; its reason says which happened.
    const ctl = new AbortController();
    const onAbort = () => ctl.abort(req.signal.reason);
    if (req.signal.aborted) onAbort();
    else req.signal.addEventListener("abort", onAbort, { once: true });
    let finished = false;
    try {
      const reader = (await this.#start(req, ctl)).stream.getReader();
      const mapper = new PartMapper(this.#lm.provider);
      try {
        for (;;) {
          const { done, value } = await this.#read(reader, ctl);
          if (done) break;
          yield* mapper.accept(value);
          if (mapper.finished) break;
        }
      } finally {
        // A read the read timeout gave up on may still be pending: releasing rejects it, harmlessly.
        try {
          reader.releaseLock();
        } catch {
          // older runtimes throw instead while a read is pending; the abort already ended it
        }
      }
      if (!mapper.finished) {
        if (req.signal.aborted) throw req.signal.reason;
        throw new ModelError("UPSTREAM_STREAM_BROKEN", "The model's stream ended without a finish part: the connection was probably cut.");
      }
      finished = true;
    } catch (err) {
      throw this.#toModelError(err, req.signal, ctl.signal);
    } finally {
      req.signal.removeEventListener("abort", onAbort);
      // The consumer stopped early, or the stream failed: close the upstream connection.
      if (!finished) ctl.abort(new Error("the model stream was abandoned"));
    }
  }

  async #start(req: ModelRequest, ctl: AbortController) {
    for (let attempt = 0; ; attempt++) {
      const timer = this.#connectMs > 0 ? setTimeout(() => ctl.abort(new ConnectTimeout(`no response headers within ${this.#connectMs} ms`)), this.#connectMs) : undefined;
      try {
        return await this.#lm.doStream({
          prompt: toAiSdkPrompt(req.messages, this.#lm.provider),
          ...(req.tools.length > 0 && { tools: toAiSdkTools(req.tools) }),
          abortSignal: ctl.signal,
          ...(req.headers && { headers: req.headers }),
        });
      } catch (err) {
        const retry = !ctl.signal.aborted && attempt < this.#maxRetries && APICallError.isInstance(err) && err.isRetryable;
        if (!retry) throw err;
      } finally {
        clearTimeout(timer);
      }
      await backoff(attempt, ctl.signal);
    }
  }

  #read<T>(reader: ReadableStreamDefaultReader<T>, ctl: AbortController): ReturnType<ReadableStreamDefaultReader<T>["read"]> {
    if (this.#readMs <= 0) return reader.read();
    let timer: NodeJS.Timeout | undefined;
    const silence = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const err = new ReadTimeout(this.#readMs);
        ctl.abort(err);
        reject(err);
      }, this.#readMs);
    });
    return Promise.race([reader.read(), silence]).finally(() => clearTimeout(timer));
  }

  #toModelError(err: unknown, signal: AbortSignal, internal: AbortSignal): ModelError {
    if (err instanceof ModelError) return err;
    if (signal.aborted) return new ModelError("ABORTED", "The model request was aborted.", { cause: err });
    const reason: unknown = internal.aborted ? internal.reason : undefined;
    if (reason instanceof ReadTimeout) {
      return new ModelError("UPSTREAM_TIMEOUT", `The model went silent for ${reason.timeoutMs} ms in the middle of its answer (LLM_READ_TIMEOUT_MS).`, { cause: err });
    }
    if (reason instanceof ConnectTimeout) {
      return new ModelError("UPSTREAM_CONNECT_TIMEOUT", "The model provider did not start answering in time (LLM_CONNECT_TIMEOUT_MS).", { cause: err });
    }
    if (APICallError.isInstance(err)) {
      if (err.statusCode !== undefined) return httpError(err.statusCode, err.message, this.#hints, err);
      // The SDK wraps a failed fetch ("fetch failed", refused, DNS) with no status.
      return new ModelError("UPSTREAM_UNREACHABLE", `Could not reach the model provider: ${causeText(err)}.`, { cause: err });
    }
    if (err instanceof StreamErrorPart) {
      return new ModelError("UPSTREAM_ERROR", `The model provider reported an error: ${err.message}`, { cause: err.cause });
    }
    return new ModelError("UPSTREAM_STREAM_BROKEN", `The model's stream broke: ${causeText(err)}.`, { cause: err });
  }
}

/** An `error` part inside a stream that had started: the provider gave up mid-answer. */
class StreamErrorPart extends Error {
  override readonly name = "StreamErrorPart";
}

function backoff(attempt: number, signal: AbortSignal): Promise<void> {
  return abortableWait(Math.min(8_000, 500 * 2 ** attempt) * (0.75 + Math.random() / 2), signal);
}

interface ReasoningBlock {
  text: string;
  meta: SharedV3ProviderMetadata;
}

type StreamPartOf<T extends LanguageModelV3StreamPart["type"]> = Extract<LanguageModelV3StreamPart, { type: T }>;

const FINISH: Record<string, FinishReason> = { stop: "stop", length: "length", "tool-calls": "tool-calls", "content-filter": "content-filter" };

/** The provider's stream parts to ModelParts; tool calls numbered in the order they start. */
class PartMapper {
  finished = false;
  readonly #provider: string;
  readonly #calls = new Map<string, { index: number; ended: boolean; args: boolean }>();
  readonly #reasoning = new Map<string, ReasoningBlock>();

  constructor(provider: string) {
    this.#provider = provider;
  }

  *accept(p: LanguageModelV3StreamPart): Generator<ModelPart> {
    switch (p.type) {
      case "text-delta":
        if (p.delta !== "") yield { type: "text-delta", delta: p.delta };
        break;
      case "reasoning-start":
      case "reasoning-delta":
      case "reasoning-end":
        yield* this.#reasoningPart(p);
        break;
      case "tool-input-start":
      case "tool-input-delta":
      case "tool-input-end":
        yield* this.#toolInputPart(p);
        break;
      case "tool-call":
        yield* this.#wholeCall(p);
        break;
      case "finish":
        yield usagePart(p.usage);
        yield { type: "finish", reason: FINISH[p.finishReason.unified] ?? "other", ...(p.finishReason.raw !== undefined && { raw: p.finishReason.raw }) };
        this.finished = true;
        break;
      case "error":
        throw new StreamErrorPart(errorText(p.error), { cause: p.error });
      default:
        break;
    }
  }

  /**
   * A reasoning block's text goes out as it comes; its provider metadata (a signature, an
   * encrypted item) is gathered over the block and goes out once, at its end, as providerData.
   */
  *#reasoningPart(p: StreamPartOf<"reasoning-start" | "reasoning-delta" | "reasoning-end">): Generator<ModelPart> {
    if (p.type === "reasoning-start") {
      this.#reasoning.set(p.id, { text: "", meta: merge({}, p.providerMetadata) });
      return;
    }
    const block = this.#reasoning.get(p.id) ?? { text: "", meta: {} };
    if (p.type === "reasoning-delta") {
      this.#reasoning.set(p.id, block);
      block.text += p.delta;
      block.meta = merge(block.meta, p.providerMetadata);
      if (p.delta !== "") yield { type: "reasoning-delta", delta: p.delta };
      return;
    }
    this.#reasoning.delete(p.id);
    const providerOptions = merge(block.meta, p.providerMetadata);
    yield { type: "reasoning-delta", delta: "", providerData: [reasoningEntry({ provider: this.#provider, text: block.text, providerOptions })] };
  }

  /** A tool call whose arguments stream; calls the provider executes itself are not ours to show. */
  *#toolInputPart(p: StreamPartOf<"tool-input-start" | "tool-input-delta" | "tool-input-end">): Generator<ModelPart> {
    if (p.type === "tool-input-start") {
      if (!p.providerExecuted) yield this.#startCall(p.id, p.toolName);
      return;
    }
    const call = this.#calls.get(p.id);
    if (p.type === "tool-input-delta") {
      if (!call || p.delta === "") return;
      call.args = true;
      yield { type: "tool-call-args-delta", index: call.index, delta: p.delta };
      return;
    }
    if (call && !call.ended) {
      call.ended = true;
      yield { type: "tool-call-end", index: call.index };
    }
  }

  /**
   * The complete call. Providers that do not stream arguments send only this: it then starts,
   * carries and ends the call; after a streamed call it ends it, if its input-end did not.
   */
  *#wholeCall(p: StreamPartOf<"tool-call">): Generator<ModelPart> {
    if (p.providerExecuted) return;
    let call = this.#calls.get(p.toolCallId);
    if (!call) {
      yield this.#startCall(p.toolCallId, p.toolName);
      call = this.#calls.get(p.toolCallId)!;
    }
    if (!call.args && p.input !== "") {
      call.args = true;
      yield { type: "tool-call-args-delta", index: call.index, delta: p.input };
    }
    if (!call.ended) {
      call.ended = true;
      yield { type: "tool-call-end", index: call.index };
    }
  }

  #startCall(id: string, name: string): ModelPart {
    const index = this.#calls.size;
    this.#calls.set(id, { index, ended: false, args: false });
    return { type: "tool-call-start", index, id, name };
  }
}

function merge(into: SharedV3ProviderMetadata, add: SharedV3ProviderMetadata | undefined): SharedV3ProviderMetadata {
  const out: SharedV3ProviderMetadata = { ...into };
  for (const [provider, values] of Object.entries(add ?? {})) out[provider] = { ...out[provider], ...values };
  return out;
}

function usagePart(u: LanguageModelV3Usage): ModelPart {
  const input = u.inputTokens.total ?? 0;
  const output = u.outputTokens.total ?? 0;
  return {
    type: "usage",
    inputTokens: input,
    outputTokens: output,
    totalTokens: input + output,
    ...(u.outputTokens.reasoning !== undefined && { reasoningTokens: u.outputTokens.reasoning }),
    ...(u.inputTokens.cacheRead !== undefined && { cachedInputTokens: u.inputTokens.cacheRead }),
  };
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "object" && error !== null) {
    const e = error as { message?: unknown; error?: { message?: unknown } };
    if (typeof e.message === "string") return e.message;
    if (typeof e.error?.message === "string") return e.error.message;
  }
  return JSON.stringify(error);
}
