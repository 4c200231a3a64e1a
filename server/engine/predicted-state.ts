/**
 * Predictive state for one streaming tool call (AgentInput.predictState): which state writes the
 * call's arguments make, and when. Pure: the caller gives the clock and the state, and writes
 * what it is told (server/engine/tool-call-prediction.ts).
 *
 * Bound: while the arguments stream, at most one partial parse and one write per
 * PREDICT_STATE_INTERVAL_MS; then exactly one write when they are complete, if the value
 * differs from the last one written. Rejected: a write per argument delta, one state event per
 * token, each carrying the whole value so far: a 5 KB document streamed in 1,000 deltas would
 * put some 2.5 MB of state events in the log. At 100 ms a client still sees the document grow
 * several times a second.
 *
 * The argument is a top-level member of the arguments or a path into them; with `merge` its
 * value (an object) is written over what the key held before the call's first write, so the
 * members not streamed yet keep their values. A first value equal to the key's is not written.
 *
 * A write is a JSON Patch `add` of `/<stateKey>` (it adds the key or replaces its value) while
 * the state is an object; a state that is not one (an array, a string) cannot hold a key, so it
 * is replaced by a state.set of an object. When the complete arguments lack the argument, or are
 * not JSON, and when the call is withdrawn (cancelled, failed), the keys written go back to what
 * they were before the call's first write: the state then says what the conversation says.
 */
import fjp from "fast-json-patch";
import type { PredictStateRule } from "../agents/define.ts";
import { applyStatePatch, type StatePatch } from "../../protocol/state.ts";
import { completeArguments, isStorable, partialArguments } from "./partial-args.ts";

/** The least time between two predictive writes of one tool call while its arguments stream. */
export const PREDICT_STATE_INTERVAL_MS = 100;

/** A state event to append, and the state after it (the run's RunContext.state). */
export type StateWrite =
  | { type: "state.patched"; patch: StatePatch; next: unknown }
  | { type: "state.set"; state: unknown; next: unknown };

/** What a state key should hold: a value of the arguments, or what it held before the call. */
type Target = { value: unknown } | "prior";

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** RFC 6901: "~" becomes "~0" and "/" becomes "~1", in that order. */
function pointer(key: string): string {
  return `/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
}

export class PredictedState {
  #args = "";
  /** Arguments arrived since the last parse. */
  #fresh = false;
  #nextParseAt = Number.NEGATIVE_INFINITY;
  /** stateKey -> JSON text of the value last written for it. */
  readonly #written = new Map<string, string>();
  /** The state before this call's first write: what a withdrawn key goes back to. */
  #prior: { state: unknown } | undefined;

  constructor(
    private readonly rules: readonly PredictStateRule[],
    private readonly intervalMs = PREDICT_STATE_INTERVAL_MS,
  ) {}

  /** The arguments so far (the whole text, not a delta). Cheap: nothing is parsed here. */
  offer(args: string): void {
    this.#args = args;
    this.#fresh = true;
  }

  /**
   * The write to make now, if any; or, when arguments arrived within the interval of the last
   * parse, `retryInMs` after which to ask again (the arguments may stop arriving for a while: the
   * value so far must not wait for the next delta).
   */
  take(now: number, state: unknown): { write?: StateWrite; retryInMs?: number } {
    if (!this.#fresh) return {};
    if (now < this.#nextParseAt) return { retryInMs: this.#nextParseAt - now };
    this.#fresh = false;
    this.#nextParseAt = now + this.intervalMs;
    const write = this.#write(state, this.#targets(partialArguments(this.#args), false, this.#priorOr(state)));
    return write ? { write } : {};
  }

  /** The arguments are complete: each key gets the argument's final value, or goes back. */
  finish(args: string, state: unknown): StateWrite | undefined {
    this.#fresh = false;
    return this.#write(state, this.#targets(completeArguments(args) ?? {}, true, this.#priorOr(state)));
  }

  /** The state before the call's first write; before that write, the state now. */
  #priorOr(state: unknown): unknown {
    return this.#prior ? this.#prior.state : state;
  }

  /** The call will not happen (cancelled, failed): every key written goes back. */
  withdraw(state: unknown): StateWrite | undefined {
    this.#fresh = false;
    return this.#write(state, new Map([...this.#written.keys()].map((k) => [k, "prior" as const])));
  }

  #targets(args: Record<string, unknown> | undefined, complete: boolean, prior: unknown): Map<string, Target> {
    const targets = new Map<string, Target>();
    for (const rule of this.rules) {
      let value: unknown = args;
      for (const member of [rule.argument].flat()) value = isPlainObject(value) && Object.hasOwn(value, member) ? value[member] : undefined;
      // merge: over what the key held before the call's first write, so a member the arguments
      // no longer have (they never do: they only grow) is not left from an earlier preview.
      const before = isPlainObject(prior) ? prior[rule.stateKey] : undefined;
      if (rule.merge && isPlainObject(value) && isPlainObject(before)) value = { ...before, ...value };
      if (value !== undefined && isStorable(value)) targets.set(rule.stateKey, { value });
      else if (complete) targets.set(rule.stateKey, "prior");
    }
    return targets;
  }

  #write(state: unknown, targets: Map<string, Target>): StateWrite | undefined {
    const base = state === undefined ? {} : state;
    const changes: [string, Target][] = [];
    for (const [key, target] of targets) {
      if (target === "prior" ? this.#written.has(key) : this.#written.get(key) !== JSON.stringify(target.value)) {
        // A first value that is what the key holds already (a merge of no members yet) is no change.
        const same = target !== "prior" && !this.#written.has(key) && isPlainObject(base) && JSON.stringify(base[key]) === JSON.stringify(target.value);
        if (!same) changes.push([key, target]);
      }
    }
    if (changes.length === 0) return undefined;
    this.#prior ??= { state: fjp.deepClone(base) };
    const prior = this.#prior.state;
    for (const [key, target] of changes) {
      if (target === "prior") this.#written.delete(key);
      else this.#written.set(key, JSON.stringify(target.value));
    }

    if (isPlainObject(base) && isPlainObject(prior)) {
      const patch: StatePatch = [];
      for (const [key, target] of changes) {
        if (target !== "prior") patch.push({ op: "add", path: pointer(key), value: target.value });
        else if (Object.hasOwn(prior, key)) patch.push({ op: "add", path: pointer(key), value: prior[key] });
        else if (Object.hasOwn(base, key)) patch.push({ op: "remove", path: pointer(key) });
      }
      if (patch.length === 0) return undefined;
      const next = applyStatePatch(base, patch);
      // Unreachable: every op names a top-level key of an object. Kept as a set, not a throw.
      if (next) return { type: "state.patched", patch, next: next.value };
    }
    // Not an object before or now: the keys cannot be patched in or out; the state is set whole.
    if (this.#written.size === 0 && !isPlainObject(prior)) return { type: "state.set", state: prior, next: prior };
    const next: Record<string, unknown> = isPlainObject(base) ? { ...base } : {};
    for (const [key, target] of changes) {
      if (target !== "prior") next[key] = target.value;
      else if (isPlainObject(prior) && Object.hasOwn(prior, key)) next[key] = prior[key];
      else delete next[key];
    }
    return { type: "state.set", state: next, next };
  }
}
