/**
 * Model specs: the strings that name a model in MODEL or AgentDefinition.model.
 *
 *   "provider:name"   openai:gpt-4o-mini, anthropic:claude-sonnet-4-5, google:gemini-2.5-flash,
 *                     openrouter:meta-llama/llama-3.3-70b-instruct, ollama:llama3.2:3b
 *   "demo"            the offline demo model
 *   "name"            a bare name: the default provider (openai), e.g. gpt-4o-mini
 *
 * The name is everything after the first colon, so names may hold colons themselves (Ollama
 * tags, OpenAI fine-tunes: openai:ft:gpt-4o-mini:org::id). A bare name whose prefix looks like
 * an unknown provider is refused rather than sent to OpenAI as a model name: "antropic:claude"
 * is far more likely a typo than a model called that.
 */
export const PROVIDERS = ["openai", "anthropic", "google", "openrouter", "ollama", "demo"] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export interface ModelSpec {
  provider: ProviderName;
  /** "" for demo. */
  name: string;
}

export class ModelSpecError extends Error {
  override readonly name = "ModelSpecError";
}

export function parseModelSpec(spec: string): ModelSpec {
  const text = spec.trim();
  if (text === "") throw new ModelSpecError('A model spec is empty: write "provider:name" (e.g. "openai:gpt-4o-mini") or "demo".');
  if (text === "demo") return { provider: "demo", name: "" };
  const colon = text.indexOf(":");
  if (colon === -1) return { provider: "openai", name: text };
  const provider = text.slice(0, colon);
  const name = text.slice(colon + 1);
  if (!isProvider(provider)) {
    throw new ModelSpecError(
      `Unknown model provider "${provider}" in "${text}": use one of ${PROVIDERS.join(", ")} (e.g. "anthropic:claude-sonnet-4-5"), or "openai:${text}" if that is an OpenAI model name.`,
    );
  }
  if (provider === "demo") return { provider, name };
  if (name.trim() === "") throw new ModelSpecError(`The model spec "${text}" names no model after "${provider}:": write e.g. "${provider}:<model name>".`);
  return { provider, name };
}

/**
 * The provider a bare model name most likely meant, when its family is another provider's
 * ("claude-sonnet-4-5": anthropic); undefined for names OpenAI could have. For the sentence that
 * refuses a bare name without OpenAI configured: MODEL=claude-sonnet-4-5 was read as OpenAI's.
 */
export function likelyProvider(name: string): ProviderName | undefined {
  const n = name.trim().toLowerCase();
  if (n.startsWith("claude")) return "anthropic";
  if (n.startsWith("gemini") || n.startsWith("gemma")) return "google";
  return undefined;
}

export function formatModelSpec(spec: ModelSpec): string {
  return spec.provider === "demo" && spec.name === "" ? "demo" : `${spec.provider}:${spec.name}`;
}

function isProvider(value: string): value is ProviderName {
  return (PROVIDERS as readonly string[]).includes(value);
}
