/**
 * A checkpoint as a patch on the one before it: what a run's end changed in the fold, so that a
 * thread's stored checkpoints grow with its conversation rather than with runs × conversation.
 *
 * The fold's lists (messages, usage, the tool ledger's calls...) change at their end: a run
 * appends to them, and a fork cuts them back. So a list is patched as "keep the first k items,
 * then these": k is the length of the common prefix, found by identity first (a message the run
 * did not touch is the very object the fold was resumed with) and by its JSON otherwise. Any other
 * field (status, the last run ids, a state that is not an object) is set whole when its JSON changed. Objects at the top
 * (the tool ledger, an object state) are patched the same way, field by field, one level down. Rejected: a JSON Patch
 * (RFC 6902) library, whose generic array diff costs O(n·m) and whose output is no smaller for
 * lists that only grow at the end; and storing messages as rows of their own, which needs every
 * other list of the fold (and each one added later) to get a table too.
 */
import type { FoldState } from "./checkpoint.ts";

/** A list's change: the first `keep` items stay, `add` follows them. */
interface ListPatch {
  keep: number;
  add: unknown[];
}

export interface FoldPatch {
  /** fields set whole (JSON of the new value) */
  set?: Record<string, unknown>;
  /** fields the new fold no longer has */
  unset?: string[];
  lists?: Record<string, ListPatch>;
  /** objects patched field by field (one level down: the tool ledger, an object state) */
  objects?: Record<string, FoldPatch>;
}

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const same = (a: unknown, b: unknown): boolean => a === b || JSON.stringify(a) === JSON.stringify(b);

/**
 * Sets an own property, whatever the key: state is the agent's JSON, and `out["__proto__"] = v`
 * would set the object's prototype instead of its "__proto__" field (in a patch as in a fold).
 */
function put(out: Obj, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/** An own field only: `obj["__proto__"]` would be the prototype when the object has no such field. */
const own = (obj: Obj, key: string): unknown => (Object.hasOwn(obj, key) ? obj[key] : undefined);

function diffObject(prev: Obj, next: Obj, depth: number): FoldPatch | null {
  const unset = Object.keys(prev).filter((key) => prev[key] !== undefined && own(next, key) === undefined);
  const set: Obj = {};
  const lists: Obj = {};
  const objects: Obj = {};
  for (const [key, value] of Object.entries(next)) {
    if (value === undefined) continue;
    const old = own(prev, key);
    if (Array.isArray(value) && Array.isArray(old)) {
      let keep = 0;
      const bound = Math.min(old.length, value.length);
      while (keep < bound && same(old[keep], value[keep])) keep++;
      if (keep < old.length || keep < value.length) put(lists, key, { keep, add: value.slice(keep) });
    } else if (depth > 0 && isObject(value) && isObject(old)) {
      const inner = diffObject(old, value, depth - 1);
      if (inner) put(objects, key, inner);
    } else if (!same(old, value)) {
      put(set, key, value);
    }
  }
  const patch: FoldPatch = {
    ...(Object.keys(set).length > 0 && { set }),
    ...(unset.length > 0 && { unset }),
    ...(Object.keys(lists).length > 0 && { lists: lists as Record<string, ListPatch> }),
    ...(Object.keys(objects).length > 0 && { objects: objects as Record<string, FoldPatch> }),
  };
  return Object.keys(patch).length > 0 ? patch : null;
}

/** What turns `prev` into `next` (an empty patch when nothing changed but the position). */
export function diffFold(prev: FoldState, next: FoldState): FoldPatch {
  return diffObject(prev as unknown as Obj, next as unknown as Obj, 1) ?? {};
}

function applyObject(base: Obj, patch: FoldPatch): Obj {
  const out: Obj = { ...base };
  for (const key of patch.unset ?? []) delete out[key];
  for (const [key, value] of Object.entries(patch.set ?? {})) put(out, key, value);
  for (const [key, { keep, add }] of Object.entries(patch.lists ?? {})) {
    const old = Object.hasOwn(out, key) && Array.isArray(out[key]) ? (out[key] as unknown[]) : [];
    put(out, key, [...old.slice(0, keep), ...add]);
  }
  for (const [key, inner] of Object.entries(patch.objects ?? {})) {
    const old = Object.hasOwn(out, key) && isObject(out[key]) ? out[key] : {};
    put(out, key, applyObject(old, inner));
  }
  return out;
}

/** `base` with `patch` applied; `base` itself is left as it was. */
export function applyFoldPatch(base: FoldState, patch: FoldPatch): FoldState {
  return applyObject(base as unknown as Obj, patch) as unknown as FoldState;
}
