/**
 * The shared state as the model reads it: the agent's rendering (AgentDefinition.stateInContext)
 * of the state as it is at this LLM request, cut to the agent's byte bound. It is computed per
 * request from RunContext.state, which every state change of the run updates, so a tool's patch
 * is on the very next request of the same run.
 */
import type { AgentDefinition } from "../agents/define.ts";
import { RunFailure } from "./errors.ts";

/** The marker that ends a cut rendering: it says the state goes on, and how far. */
export function truncationMarker(totalBytes: number, maxBytes: number): string {
  return `\n[state truncated: ${totalBytes} bytes, over the ${maxBytes}-byte limit of stateInContext.maxBytes]`;
}

/**
 * `text` if it fits in `maxBytes` UTF-8 bytes; else as much of its start as fits with the marker,
 * cut before a character, never inside one. The result never exceeds `maxBytes` (which must leave
 * room for the marker: defineAgent's STATE_CONTEXT_MIN_BYTES does). Rejected: cutting at a
 * character count, which lets text in non-Latin scripts run to three times the bound.
 */
export function boundUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  const marker = truncationMarker(bytes.length, maxBytes);
  let cut = Math.max(0, maxBytes - Buffer.byteLength(marker, "utf8"));
  // Back off continuation bytes (10xxxxxx): the cut lands on the first byte of a character.
  while (cut > 0 && (bytes[cut]! & 0xc0) === 0x80) cut--;
  return bytes.subarray(0, cut).toString("utf8") + marker;
}

/**
 * The state text for this request, or "" when the agent leaves the state out. A render function
 * that throws or returns something else than a string is the agent's bug: the run fails with a
 * code that names it, rather than the model silently losing sight of the state.
 */
export function stateForModel(agent: AgentDefinition, state: unknown): string {
  const option = agent.stateInContext;
  if (option === false) return "";
  let text: unknown;
  try {
    text = option.render(state === undefined ? {} : state);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new RunFailure("STATE_RENDER_FAILED", `Agent "${agent.id}": stateInContext.render threw: ${message}`, { cause: err });
  }
  if (typeof text !== "string") {
    throw new RunFailure("STATE_RENDER_FAILED", `Agent "${agent.id}": stateInContext.render returned ${typeof text}, not a string.`);
  }
  return text === "" ? "" : boundUtf8(text, option.maxBytes);
}
