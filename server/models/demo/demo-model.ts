/**
 * The offline demo model: the in-process aimock upstream (server/demo/upstream.ts) behind the
 * openai adapter, so the demo exercises the same code path (streaming, tool calls, usage) a
 * real provider does. The upstream starts on the first request, not with the server: a server
 * whose agents all use a real provider never opens the port, nor loads aimock (imported here on
 * that first request, so an application that never asks the demo model does not pay its load).
 */
import type { DemoUpstream } from "../../demo/upstream.ts";
import type { Model, ModelPart, ModelRequest } from "../model.ts";
import { createOpenAIClient } from "../openai/client.ts";
import { OPENAI_MEDIA_INPUTS } from "../openai/messages.ts";
import { OpenAIModel } from "../openai/model.ts";

export interface DemoModelOptions {
  /** Delay before each streamed chunk, so the demo visibly streams; 0 for tests. */
  latencyMs?: number;
  /** Called once, when the upstream has started. */
  onStart?: (url: string) => void;
}

export class DemoModel implements Model {
  readonly id = "demo";
  /** The openai adapter's: the demo model is that adapter in front of a local upstream. */
  readonly mediaInputs = OPENAI_MEDIA_INPUTS;
  readonly #opts: DemoModelOptions;
  #started: Promise<{ upstream: DemoUpstream; model: OpenAIModel }> | undefined;
  #closed = false;

  constructor(opts: DemoModelOptions = {}) {
    this.#opts = opts;
  }

  async *stream(req: ModelRequest): AsyncGenerator<ModelPart, void, undefined> {
    const { model } = await this.#start();
    yield* model.stream(req);
  }

  #start() {
    if (this.#closed) throw new Error("The demo model was closed with its server.");
    if (!this.#started) {
      this.#started = (async () => {
        const { startDemoUpstream } = await import("../../demo/upstream.ts");
        const upstream = await startDemoUpstream({ host: "127.0.0.1", port: 0, ...(this.#opts.latencyMs !== undefined && { latencyMs: this.#opts.latencyMs }) });
        this.#opts.onStart?.(upstream.url);
        const client = createOpenAIClient({ baseURL: upstream.url, apiKey: "demo", maxRetries: 0 });
        return { upstream, model: new OpenAIModel({ client, model: "demo", provider: "demo" }) };
      })();
      // A failed start is not cached: the next request tries again.
      this.#started.catch(() => (this.#started = undefined));
    }
    return this.#started;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const started = this.#started;
    this.#started = undefined;
    if (started) await (await started.catch(() => undefined))?.upstream.stop();
  }
}
