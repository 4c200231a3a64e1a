/**
 * From a spec to a Model. `ModelResolver` holds what models of one server share (one openai
 * client per provider, the demo model) and closes it; `resolveModel` is the one-off form.
 *
 * Provider models are built lazily: resolving is synchronous (an agent's model is picked per run
 * by a ModelFactory), and the provider's package (the openai SDK, @ai-sdk/*) is imported on the
 * first request. A spec that cannot work (unknown provider, missing API key, the openai SDK not
 * installed) fails when resolved, with a sentence saying what to set or install.
 */
import { aiSdkModel } from "./ai-sdk/model.ts";
import { AI_SDK_MEDIA_INPUTS } from "./ai-sdk/prompt.ts";
import { loadAiSdkModel, type AiSdkProviderName } from "./ai-sdk/providers.ts";
import { DemoModel } from "./demo/demo-model.ts";
import { ModelError } from "./errors.ts";
import { isModel, type Model, type ModelPart, type ModelRequest } from "./model.ts";
import type { OpenAIChatClient } from "./openai/chat-client.ts";
import { createOpenAIClient } from "./openai/client.ts";
import { OpenAIModel } from "./openai/model.ts";
import { assertOpenAISdkInstalled } from "./openai/sdk.ts";
import { formatModelSpec, ModelSpecError, parseModelSpec, type ModelSpec } from "./spec.ts";

/** The environment a resolver reads: server/config.ts's keys of the same names. */
export interface ModelEnv {
  OPENAI_API_KEY?: string | undefined;
  OPENAI_BASE_URL?: string | undefined;
  ANTHROPIC_API_KEY?: string | undefined;
  ANTHROPIC_BASE_URL?: string | undefined;
  OPENROUTER_API_KEY?: string | undefined;
  GOOGLE_GENERATIVE_AI_API_KEY?: string | undefined;
  OLLAMA_BASE_URL?: string | undefined;
  LLM_CONNECT_TIMEOUT_MS?: number;
  LLM_READ_TIMEOUT_MS?: number;
  LLM_MAX_RETRIES?: number;
}

export const OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1";
export const OLLAMA_DEFAULT_BASE_URL = "http://127.0.0.1:11434/v1";

export interface ModelResolverOptions {
  /** Passed to the demo model: 0 for tests. */
  demoLatencyMs?: number;
}

export class ModelResolver {
  readonly #env: ModelEnv;
  readonly #opts: ModelResolverOptions;
  readonly #clients = new Map<string, OpenAIChatClient>();
  readonly #models = new Map<string, Model>();
  #demo: DemoModel | undefined;

  constructor(env: ModelEnv, opts: ModelResolverOptions = {}) {
    this.#env = env;
    this.#opts = opts;
  }

  /** A Model as it is; a spec string resolved (and cached: one Model per spec). */
  resolve(spec: string | Model): Model {
    if (isModel(spec)) return spec;
    if (typeof spec !== "string") throw new ModelSpecError(`A model must be a "provider:name" string or a Model object, not ${JSON.stringify(spec)}.`);
    const parsed = parseModelSpec(spec);
    const key = formatModelSpec(parsed);
    let model = this.#models.get(key);
    if (!model) {
      model = this.#build(parsed);
      this.#models.set(key, model);
    }
    return model;
  }

  /**
   * True when an OpenAI key or base URL is set: bare names and OPENAI_MODEL go there. A base URL
   * alone counts: a local OpenAI-compatible server (vLLM, LM Studio, llama.cpp) may take no key,
   * and the client then sends "none".
   */
  get openaiConfigured(): boolean {
    return this.#env.OPENAI_API_KEY !== undefined || this.#env.OPENAI_BASE_URL !== undefined;
  }

  #build(spec: ModelSpec): Model {
    const env = this.#env;
    switch (spec.provider) {
      case "demo":
        this.#demo ??= new DemoModel(this.#opts.demoLatencyMs !== undefined ? { latencyMs: this.#opts.demoLatencyMs } : {});
        return this.#demo;
      case "openai":
        if (!this.openaiConfigured) throw missingKey(spec, "OPENAI_API_KEY", " (or OPENAI_BASE_URL for a compatible server)");
        return new OpenAIModel({
          client: this.#client("openai", env.OPENAI_BASE_URL, env.OPENAI_API_KEY ?? "none"),
          model: spec.name,
          unreachableHint: env.OPENAI_BASE_URL
            ? `Check OPENAI_BASE_URL (${env.OPENAI_BASE_URL}) and that its server runs.`
            : "Check this machine's network: it reaches OpenAI at https://api.openai.com/v1 (OPENAI_BASE_URL names another server).",
        });
      case "openrouter":
        if (env.OPENROUTER_API_KEY === undefined) throw missingKey(spec, "OPENROUTER_API_KEY");
        return new OpenAIModel({ client: this.#client("openrouter", OPENROUTER_BASE_URL, env.OPENROUTER_API_KEY), model: spec.name, provider: "openrouter", unreachableHint: `Check this machine's network: it reaches OpenRouter at ${OPENROUTER_BASE_URL}.` });
      case "ollama":
        // Ollama serves an OpenAI-compatible API: no extra package, no key.
        return new OpenAIModel({
          client: this.#client("ollama", env.OLLAMA_BASE_URL ?? OLLAMA_DEFAULT_BASE_URL, "ollama"),
          model: spec.name,
          provider: "ollama",
          unreachableHint: `Check that Ollama runs at ${env.OLLAMA_BASE_URL ?? OLLAMA_DEFAULT_BASE_URL}${env.OLLAMA_BASE_URL ? " (OLLAMA_BASE_URL)" : " (its default; OLLAMA_BASE_URL names another)"}.`,
        });
      case "anthropic":
        if (env.ANTHROPIC_API_KEY === undefined) throw missingKey(spec, "ANTHROPIC_API_KEY");
        return this.#aiSdk(spec, "anthropic", { apiKey: env.ANTHROPIC_API_KEY, ...(env.ANTHROPIC_BASE_URL && { baseURL: env.ANTHROPIC_BASE_URL }) }, { 401: "check ANTHROPIC_API_KEY", 404: "check the model name and ANTHROPIC_BASE_URL" });
      case "google":
        if (env.GOOGLE_GENERATIVE_AI_API_KEY === undefined) throw missingKey(spec, "GOOGLE_GENERATIVE_AI_API_KEY");
        return this.#aiSdk(spec, "google", { apiKey: env.GOOGLE_GENERATIVE_AI_API_KEY }, { 400: "check GOOGLE_GENERATIVE_AI_API_KEY and the request", 404: "check the model name" });
    }
  }

  #client(provider: string, baseURL: string | undefined, apiKey: string): OpenAIChatClient {
    assertOpenAISdkInstalled();
    let client = this.#clients.get(provider);
    if (!client) {
      client = createOpenAIClient({
        ...(baseURL !== undefined && { baseURL }),
        apiKey,
        ...this.#limits(),
      });
      this.#clients.set(provider, client);
    }
    return client;
  }

  #limits() {
    const env = this.#env;
    return {
      ...(env.LLM_CONNECT_TIMEOUT_MS !== undefined && { connectTimeoutMs: env.LLM_CONNECT_TIMEOUT_MS }),
      ...(env.LLM_READ_TIMEOUT_MS !== undefined && { readTimeoutMs: env.LLM_READ_TIMEOUT_MS }),
      ...(env.LLM_MAX_RETRIES !== undefined && { maxRetries: env.LLM_MAX_RETRIES }),
    };
  }

  /** The provider package loads on the first request; the Model exists at once. */
  #aiSdk(spec: ModelSpec, provider: AiSdkProviderName, settings: { apiKey: string; baseURL?: string }, hints: Record<number, string>): Model {
    const limits = this.#limits();
    let loaded: Promise<Model> | undefined;
    const load = () => {
      if (!loaded) {
        loaded = loadAiSdkModel(provider, settings, spec.name).then((lm) => aiSdkModel(lm, { ...limits, provider, hints }));
        // A failed load is not cached: the next request tries again.
        loaded.catch(() => (loaded = undefined));
      }
      return loaded;
    };
    return {
      id: formatModelSpec(spec),
      // Known before the package loads: it is the adapter's table, not the provider's.
      mediaInputs: AI_SDK_MEDIA_INPUTS,
      async *stream(req: ModelRequest): AsyncGenerator<ModelPart, void, undefined> {
        yield* (await load()).stream(req);
      },
    };
  }

  async close(): Promise<void> {
    await this.#demo?.close();
  }
}

/** One model from a spec. */
export function resolveModel(spec: string | Model, env: ModelEnv): Model {
  return new ModelResolver(env).resolve(spec);
}

function missingKey(spec: ModelSpec, variable: string, or = ""): ModelError {
  return new ModelError("MODEL_UNAVAILABLE", `The model "${formatModelSpec(spec)}" needs ${variable}${or}: set it, or choose another model (MODEL, or the agent's model).`, {
    retryable: false,
    setting: variable,
  });
}
