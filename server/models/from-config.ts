/**
 * The composition root's one call for models: the configuration (and what the application
 * passed) in, the ModelFactory the engine uses and the close() of what it started out.
 *
 * The default model: the `model` passed in, else MODEL, else OPENAI_MODEL (default
 * DEFAULT_OPENAI_MODEL) on OpenAI when it is set or an OpenAI key or base URL is, else the offline
 * demo model. An agent's own `model` (a spec or a Model) wins over the default; a bare name there
 * means OpenAI, or the demo when OpenAI is not configured (the demo answers any name, so that an
 * agent written for OpenAI runs offline in development). A default that names an OpenAI model
 * without OpenAI configured is refused instead: an operator who set MODEL=gpt-4o-mini meant
 * OpenAI, and a demo answering in its place would look like a broken model.
 */
import type { Logger } from "pino";
import type { AgentDefinition } from "../agents/define.ts";
import type { Config } from "../config.ts";
import { StartupError } from "../startup-errors.ts";
import { ModelError } from "./errors.ts";
import { isModel, type Model, type ModelFactory } from "./model.ts";
import { ModelResolver } from "./resolve.ts";
import { formatModelSpec, likelyProvider, parseModelSpec } from "./spec.ts";

/** The OpenAI model when OpenAI is configured and neither MODEL nor OPENAI_MODEL is set. */
export const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";

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
  /**
   * Each agent's model id ("provider:name"), resolved now, or undefined when the application's
   * factory decides per run. A model that cannot work as configured (its provider's key is
   * missing) is a StartupError naming the variable, rather than a failure at its first run.
   */
  check(agents: readonly AgentDefinition[]): Record<string, string> | undefined;
  close(): Promise<void>;
}

export function modelsFromConfig(config: Config, opts: ModelsFromConfigOptions): Models {
  const resolver = new ModelResolver(config, opts.demoLatencyMs !== undefined ? { demoLatencyMs: opts.demoLatencyMs } : {});
  const close = () => resolver.close();
  if (typeof opts.model === "function") return { factory: opts.model, defaultId: "(application factory)", check: () => undefined, close };

  const source = opts.model !== undefined ? "the `model` option" : config.MODEL !== undefined ? "MODEL" : config.OPENAI_MODEL !== undefined ? "OPENAI_MODEL" : undefined;
  const openaiDefault = config.OPENAI_MODEL !== undefined || resolver.openaiConfigured;
  const defaultSpec: Model | string = opts.model ?? config.MODEL ?? (openaiDefault ? `openai:${config.OPENAI_MODEL ?? DEFAULT_OPENAI_MODEL}` : "demo");
  if (typeof defaultSpec === "string" && isBareOpenAIName(defaultSpec) && !resolver.openaiConfigured) {
    const where = source === "MODEL" ? "MODEL" : "The `model` option";
    const meant = likelyProvider(defaultSpec);
    throw new StartupError(
      "MODEL_UNAVAILABLE",
      "OPENAI_API_KEY",
      meant
        ? `${where} "${defaultSpec}" has no provider, so it names an OpenAI model: write "${meant}:${defaultSpec.trim()}" for ${meant}'s, or set OPENAI_API_KEY (or OPENAI_BASE_URL) if it is OpenAI's.`
        : `${where} "${defaultSpec}" names an OpenAI model, and neither OPENAI_API_KEY nor OPENAI_BASE_URL is set: set OPENAI_API_KEY (or OPENAI_BASE_URL for a compatible server), or choose "demo" for the offline demo model.`,
    );
  }
  const forAgent = (spec: string | Model): Model => {
    if (!isModel(spec) && !resolver.openaiConfigured && isBareOpenAIName(spec)) return resolver.resolve("demo");
    return resolver.resolve(spec);
  };
  const factory = (agent: AgentDefinition): Model => forAgent(agent.model ?? defaultSpec);
  const defaultId = isModel(defaultSpec) ? defaultSpec.id : defaultSpec;
  if (defaultId === "demo") opts.logger.info("no MODEL, OPENAI_API_KEY or OPENAI_BASE_URL: the built-in demo model answers (offline, deterministic)");

  function check(agents: readonly AgentDefinition[]): Record<string, string> {
    const ids: Record<string, string> = {};
    for (const agent of agents) {
      try {
        ids[agent.id] = factory(agent).id;
      } catch (err) {
        throw agentModelError(err, agent, agent.model === undefined ? { spec: String(defaultSpec), source: source ?? "MODEL" } : undefined);
      }
    }
    return ids;
  }
  return { factory, defaultId, check, close };
}

/** "gpt-4o-mini": a name without a provider, which means OpenAI ("openai:gpt-4o-mini" names it outright). */
function isBareOpenAIName(spec: string): boolean {
  return parseModelSpec(spec).provider === "openai" && !spec.trim().startsWith("openai:");
}

/** The sentence for an agent whose model cannot be built: the default's (naming where it was set) or its own. */
function agentModelError(err: unknown, agent: AgentDefinition, byDefault: { spec: string; source: string } | undefined): unknown {
  if (err instanceof ModelError && err.setting) {
    const v = err.setting;
    const sentence = byDefault
      ? `The model "${formatSpec(byDefault.spec)}" (${byDefault.source}) needs ${v}: set ${v}, or choose another model in ${byDefault.source}.`
      : `Agent "${agent.id}" has the model "${formatSpec(String(agent.model))}", which needs ${v}: set ${v}, or give the agent another model.`;
    return new StartupError("MODEL_UNAVAILABLE", v, sentence, { cause: err });
  }
  if (err instanceof Error) return new StartupError("MODEL_UNAVAILABLE", byDefault?.source ?? "model", `The model of agent "${agent.id}" cannot be used: ${err.message}`, { cause: err });
  return err;
}

function formatSpec(spec: string): string {
  try {
    return formatModelSpec(parseModelSpec(spec));
  } catch {
    return spec;
  }
}
