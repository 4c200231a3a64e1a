/**
 * The two agent options about the thread's shared state and the model (defineAgent):
 *
 * - `stateInContext`: how the state reaches the model. By default every LLM request carries the
 *   state as it is at that request, as JSON after the instructions, bounded to
 *   STATE_CONTEXT_MAX_BYTES. An agent may render it its own way, or leave it out (`false`).
 * - `predictState`: tool arguments that update a state key while the model is still streaming
 *   them, so that a client shows a document being written rather than all of it at the end
 *   (CopilotKit's and LangGraph's `predict_state`).
 *
 * The shapes are zod schemas, parsed by defineAgent, so a bad option fails where the agent is
 * defined, with the path of what is wrong, and not in the middle of a run.
 */
import { z } from "zod";

/** The default bound of the state text in an LLM request: UTF-8 bytes, truncation marker included. */
export const STATE_CONTEXT_MAX_BYTES = 8 * 1024;

/** The smallest bound an agent may set: room for the truncation marker and some of the state. */
export const STATE_CONTEXT_MIN_BYTES = 256;

type RenderState = (state: unknown) => string;

/** How the state is rendered for the model, when it is (`stateInContext` other than false). */
export const StateRenderingSchema = z
  .object({
    /**
     * Turns the state into the text the model reads after the instructions; an empty string
     * leaves the state out of that request. It gets `{}` for a thread whose state was never set.
     * Default: renderStateAsJson.
     */
    render: z.custom<RenderState>((v) => typeof v === "function", "must be a function (state) => string").optional(),
    /**
     * Bound on the rendered text in UTF-8 bytes (default STATE_CONTEXT_MAX_BYTES). Longer text is
     * cut at a character boundary and ends with a marker that says so, within the bound.
     */
    maxBytes: z.number().int().min(STATE_CONTEXT_MIN_BYTES).optional(),
  })
  .strict();

/**
 * `false` (the model never sees the state) or how to render it. defineAgent checks `false` first
 * and the rendering schema alone, so that an issue names its field: the union's own error is
 * only "Invalid input".
 */
export const StateInContextSchema = z.union([z.literal(false), StateRenderingSchema]);

function isEmpty(state: unknown): boolean {
  if (state === undefined || state === null) return true;
  return typeof state === "object" && !Array.isArray(state) && Object.keys(state).length === 0;
}

/**
 * The default rendering: compact JSON under a heading that tells the model what it is. An empty
 * state says nothing, so an agent whose threads never use state sends the prompt it always did.
 * Rejected: pretty-printed JSON, which spends a quarter to a half more of the bound on spaces.
 */
export function renderStateAsJson(state: unknown): string {
  if (isEmpty(state)) return "";
  return `Shared state of this conversation (JSON; the application shows it, and tools may change it):\n${JSON.stringify(state)}`;
}

/** What an agent passes as `stateInContext`. */
export type StateInContextOption = z.input<typeof StateInContextSchema>;

/** `stateInContext` with its defaults filled in, as the engine reads it. */
export interface StateInContext {
  render: RenderState;
  maxBytes: number;
}

export const PredictStateRuleSchema = z
  .object({
    /** The tool whose call streams the argument: a backend tool or a client's frontend tool. */
    tool: z.string().min(1),
    /** A top-level key of the tool's JSON arguments, or the path to a member within them (["memory", "recipe"]). */
    argument: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
    /** The top-level state key the argument's value is written to as it streams. */
    stateKey: z.string().min(1),
    /**
     * The value, an object, is written over what the key held before the call, member by member
     * (the members the arguments have so far change, the others stay), instead of replacing it:
     * for a tool whose argument holds only the fields it changes (the dojo's updateWorkingMemory).
     */
    merge: z.boolean().optional(),
  })
  .strict();

export type PredictStateRule = z.infer<typeof PredictStateRuleSchema>;

export const PredictStateSchema = z.array(PredictStateRuleSchema);
