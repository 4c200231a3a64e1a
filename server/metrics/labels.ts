/**
 * Label values that stay bounded. Every label here comes from a closed set in practice (agent
 * ids from the registry, model ids from the configuration, error codes the engine and the model
 * layer name, route patterns), but some of those sets are open in principle: a code a future
 * agent door passes through, a mount path with a parameter in it. A series per distinct value
 * would then grow without end, so each label keeps the first `max` values it sees and names
 * every later one "other". Rejected: an allow-list per label, a second copy of every code list
 * that would drift from the code that writes the codes.
 */

/** Codes look like THIS_ONE; anything else is not a code this server writes. */
const CODE = /^[A-Z][A-Z0-9_]{0,63}$/;

export const OTHER = "other";

export function boundedLabel(max: number, wellFormed: (value: string) => boolean = () => true): (value: string) => string {
  const seen = new Set<string>();
  return (value) => {
    if (seen.has(value)) return value;
    if (seen.size >= max || !wellFormed(value)) return OTHER;
    seen.add(value);
    return value;
  };
}

/** Error codes: at most 64 distinct, each spelled as a code. */
export function codeLabel(): (code: string) => string {
  return boundedLabel(64, (c) => CODE.test(c));
}

/** A Model's id ("provider:name", models/model.ts) as the provider and model labels; an id without a provider ("demo") is both. */
export function providerAndModel(modelId: string): { provider: string; model: string } {
  const colon = modelId.indexOf(":");
  return colon < 0 ? { provider: modelId, model: modelId } : { provider: modelId.slice(0, colon), model: modelId.slice(colon + 1) };
}
