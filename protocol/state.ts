/**
 * The thread's shared state as a fold of state.set / state.patched, with the same library and the
 * same flags the clients use (fast-json-patch, validate, never mutate), so a patch applies here
 * exactly when it applies on the client.
 */
import jsonpatch from "fast-json-patch";
import type { EventOf } from "./events.ts";

export type StatePatch = EventOf<"state.patched">["data"]["patch"];

/**
 * The state after `patch`, or undefined when the patch does not apply: then the state is left as
 * it was, as the client does (it only warns). An unset state patches as `{}`, the clients' default.
 * `state` itself is never touched: frames already sent may still hold it.
 */
export function applyStatePatch(state: unknown, patch: StatePatch): { value: unknown } | undefined {
  try {
    const base = state === undefined ? {} : state;
    return { value: jsonpatch.applyPatch(base, patch as jsonpatch.Operation[], true, false).newDocument };
  } catch {
    return undefined;
  }
}
