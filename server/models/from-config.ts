/**
 * The composition root's one call for models: the configuration (and what the application
 * passed) in, the ModelFactory the engine uses and the close() of what it started out.
 *
 * The default model: the `model` passed in, else MODEL, else OPENAI_MODEL on OpenAI when an
 * OpenAI key or base URL is set, else the offline demo model. An agent's own `model` (a spec or
 * a Model) wins over the default; a bare name there means OpenAI, or the demo when OpenAI is not
 * configured (the demo answers any name, as it always has).
 */
import type { Logger } from "pino";
import type { AgentDefinition } from "../agents/define.ts";
import type { Config } from "../config.ts";
import { isModel, type Model, type ModelFactory } from "./model.ts";
import { ModelResolver } from "./resolve.ts";
import { parseModelSpec } from "./spec.ts";

export interface ModelsFromConfigOptions {
  /** The application's default: a Model, a ModelFactory (which then decides for every agent), or a spec. */
  model?: Model | ModelFactory | string | undefined;
  logger: Logger;
  /** The demo model's delay per chunk (0 in tests). */
  demoLatencyMs?: number;
}

export interface Models {
  factory: ModelFactory;
  /** The spec or id of the default model, for the startup log. */
  defaultId: string;
  close(): Promise<void>;
}

export function modelsFromConfig(config: Config, opts: ModelsFromConfigOptions): Models {
  const resolver = new ModelResolver(config, {
    ...(opts.demoLatencyMs !== undefined && { demoLatencyMs: opts.demoLatencyMs }),
    onDemoStart: (url) => opts.logger.debug({ url }, "demo model upstream started on loopback"),
  });
  const close = () => resolver.close();
  if (typeof opts.model === "function") return { factory: opts.model, defaultId: "(application factory)", close };

  const defaultSpec: Model | string = opts.model ?? config.MODEL ?? (resolver.openaiConfigured ? `openai:${config.OPENAI_MODEL}` : "demo");
  const forAgent = (spec: string | Model): Model => {
    if (!isModel(spec) && !resolver.openaiConfigured && parseModelSpec(spec).provider === "openai" && !spec.startsWith("openai:")) return resolver.resolve("demo");
    return resolver.resolve(spec);
  };
  const factory = (agent: AgentDefinition): Model => forAgent(agent.model ?? defaultSpec);
  const defaultId = isModel(defaultSpec) ? defaultSpec.id : defaultSpec;
  if (defaultId === "demo") opts.logger.info("no MODEL, OPENAI_API_KEY or OPENAI_BASE_URL: the built-in demo model answers (offline, deterministic)");
  return { factory, defaultId, close };
}
