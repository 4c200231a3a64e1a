/**
 * The offline demo model: the demo script (server/demo/fixtures.ts) answered in process. The
 * request is shown to the script as the Chat Completions body the openai adapter would send
 * (openai/messages.ts, which needs no SDK at run time), the first fixture whose predicate passes
 * answers, and the answer streams as the openai adapter yields it from an OpenAI-compatible
 * upstream: reasoning, text, then each tool call, sliced every CHUNK_SIZE UTF-16 units on whole
 * code points, with `latencyMs` before each chunk; then the calls' ends, usage and the finish.
 *
 * Rejected: the demo as an in-process aimock server reached through the openai SDK (what it was:
 * the same code path as a real provider, but aimock and the SDK cost 32 MB of every install for
 * an offline demo). The openai adapter stays tested against aimock serving these same fixtures
 * (test/support/demo-upstream.ts), and test/llm/demo-parity.test.ts holds the two paths equal.
 */
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { demoScript } from "../../demo/script.ts";
import { type DemoAnswer, type DemoChatRequest, type DemoFixture, isDemoFailure } from "../../demo/fixture.ts";
import { StorableTextStream } from "../../store/storable-text.ts";
import { httpError, ModelError } from "../errors.ts";
import type { Model, ModelPart, ModelRequest } from "../model.ts";
import { OPENAI_MEDIA_INPUTS, toOpenAIMessages, toOpenAITools } from "../openai/messages.ts";

export interface DemoModelOptions {
  /** Delay before each streamed chunk, so the demo visibly streams; 0 for tests. */
  latencyMs?: number;
}

/** UTF-16 units per streamed chunk: small enough that text arrives word by word. */
export const DEMO_CHUNK_SIZE = 8;
export const DEMO_DEFAULT_LATENCY_MS = 15;

export class DemoModel implements Model {
  readonly id = "demo";
  /** The openai adapter's: the demo reads the request as that adapter would send it. */
  readonly mediaInputs = OPENAI_MEDIA_INPUTS;
  readonly #latencyMs: number;
  readonly #fixtures: DemoFixture[] = demoScript();
  #closed = false;

  constructor(opts: DemoModelOptions = {}) {
    this.#latencyMs = opts.latencyMs ?? DEMO_DEFAULT_LATENCY_MS;
  }

  async *stream(req: ModelRequest): AsyncGenerator<ModelPart, void, undefined> {
    if (this.#closed) throw new Error("The demo model was closed with its server.");
    const body: DemoChatRequest = {
      model: req.model ?? "demo",
      messages: toOpenAIMessages(req.messages) as DemoChatRequest["messages"],
      ...(req.tools.length > 0 ? { tools: toOpenAITools(req.tools) } : {}),
    };
    const fixture = this.#fixtures.find((f) => f.match.predicate?.(body) ?? true);
    if (!fixture) throw new ModelError("UPSTREAM_HTTP_404", "The demo script has no answer for this request.", { status: 404 });
    const response = typeof fixture.response === "function" ? fixture.response(body) : fixture.response;
    // As the openai adapter reports an HTTP error (toModelError); 503 is the failure phrase's.
    if (isDemoFailure(response)) throw httpError(response.status, response.error.message, {}, undefined);
    for (const step of chunks(response)) {
      await this.#pace(req.signal);
      yield* step;
    }
    const calls = response.toolCalls ?? [];
    for (const [index] of calls.entries()) yield { type: "tool-call-end", index };
    yield usage(body, response);
    yield calls.length > 0 ? { type: "finish", reason: "tool-calls", raw: "tool_calls" } : { type: "finish", reason: "stop", raw: "stop" };
  }

  async #pace(signal: AbortSignal): Promise<void> {
    try {
      if (this.#latencyMs > 0) await sleep(this.#latencyMs, undefined, { signal });
      else signal.throwIfAborted();
    } catch (err) {
      throw new ModelError("ABORTED", "The model request was aborted.", { cause: signal.reason ?? err });
    }
  }

  /** Kept for the server's close: a closed demo model refuses new requests. */
  async close(): Promise<void> {
    this.#closed = true;
  }
}

/**
 * The chunks an OpenAI-compatible upstream streams for the answer, each as the parts the openai
 * adapter yields for it (none for the role chunk and the finish chunk, which still take their
 * latency): reasoning slices, the role, text slices, per tool call its start and its argument
 * slices, the finish.
 */
function* chunks(answer: DemoAnswer): Generator<ModelPart[]> {
  for (const delta of slices(answer.reasoning ?? "")) yield delta ? [{ type: "reasoning-delta", delta }] : [];
  yield [];
  for (const delta of slices(answer.content ?? "")) yield delta ? [{ type: "text-delta", delta }] : [];
  for (const [index, call] of (answer.toolCalls ?? []).entries()) {
    // An id-less call gets one as aimock mints it; the engine would mint one for "" anyway.
    yield [{ type: "tool-call-start", index, id: call.id || `call_${randomBytes(12).toString("base64url")}`, name: call.name }];
    for (const delta of slices(call.arguments)) yield delta ? [{ type: "tool-call-args-delta", index, delta }] : [];
  }
  yield [];
}

/**
 * `text` cut every DEMO_CHUNK_SIZE UTF-16 units, each piece made storable: a high surrogate at
 * the end of a piece moves to the next one, so an emoji of the user's words (which the scripts
 * echo) is never split. A piece may come out empty (a lone high surrogate), as a frame would.
 */
function* slices(text: string): Generator<string> {
  const whole = new StorableTextStream();
  for (let i = 0; i < text.length; i += DEMO_CHUNK_SIZE) yield whole.push(text.slice(i, i + DEMO_CHUNK_SIZE));
}

/** aimock's estimate, which the demo reported through the openai adapter: a token per 4 characters, at least 1. */
function usage(body: DemoChatRequest, answer: DemoAnswer): ModelPart {
  const estimate = (s: string) => Math.max(1, Math.ceil((s || "x").length / 4));
  const prompt = body.messages.map((m) => (typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => p.text ?? "").join(""))).join("");
  const completion = (answer.content ?? "") + (answer.toolCalls ?? []).map((c) => c.name + c.arguments).join("");
  const inputTokens = estimate(prompt);
  const outputTokens = estimate(completion);
  return { type: "usage", inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
}
