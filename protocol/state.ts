/**
 * The thread's shared state as a fold of state.set / state.patched, with the same library and the
 * same checks the clients use (fast-json-patch, validated), so a patch applies here exactly when
 * it applies on the client.
 *
 * What differs is the cost. The clients' call (applyPatch with mutateDocument false) deep-clones
 * the whole state for every patch: a run that grows its state by 900 KB thirty times cloned
 * ~400 MB in the ingester, again in every fold and every stream's projection, and stalled the
 * event loop for seconds (issue 30). Here a patch copies, shallowly, only the objects and arrays
 * on the paths its operations touch, then lets fast-json-patch apply each operation to those
 * copies in place: the cost is the patch's size times the widths of the containers it walks, not
 * the state's size. The state given is never touched (frames already sent, the checkpoint and
 * other folds may hold it, and share every part the patch did not touch), and a patch that fails
 * at any operation leaves it as it was, because nothing outside the copies was written.
 * Rejected: an undo log of inverse operations over a mutated state (move and copy make the
 * inverse subtle, and a bug there corrupts state silently); jsonpatch.validate first (it
 * deep-clones too).
 */
import jsonpatch from "fast-json-patch";
import type { EventOf } from "./events.ts";

export type StatePatch = EventOf<"state.patched">["data"]["patch"];

type Container = Record<string, unknown> | unknown[];

/**
 * The state after `patch`, or undefined when the patch does not apply: then the state is left as
 * it was, as the client does (it only warns). An unset state patches as `{}`, the clients' default.
 */
export function applyStatePatch(state: unknown, patch: StatePatch): { value: unknown } | undefined {
  const out = patchState(state, patch);
  return "value" in out ? out : undefined;
}

/**
 * As applyStatePatch, with the reason a patch does not apply (fast-json-patch's message).
 * `onCopy` is shown each value a `copy` duplicates before it is copied (a patch of a few bytes
 * can double the state with each one): what it throws ends the patch and is thrown on.
 */
export function patchState(state: unknown, patch: StatePatch, onCopy?: (value: unknown) => void): { value: unknown } | { error: string } {
  const ops = patch as jsonpatch.Operation[];
  if (!Array.isArray(ops)) return { error: "the patch is not an array of operations" };
  const owned = new Set<object>();
  let doc: unknown = state === undefined ? {} : state;
  try {
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      // The operation's own shape first, without the document: the library's check of a move or
      // copy against the document would deep-clone it (jsonpatch.validate).
      jsonpatch.validator(op, i);
      doc = own(doc, op.path, owned);
      if (op.op === "move" || op.op === "copy") {
        doc = own(doc, op.from, owned);
        const from = jsonpatch.getValueByPointer(doc, op.from);
        if (from === undefined) {
          throw new jsonpatch.JsonPatchError("Cannot perform the operation from the desired path", "OPERATION_FROM_UNRESOLVABLE", i, op, doc);
        }
        if (op.op === "copy") onCopy?.(from);
      }
      doc = jsonpatch.applyOperation(doc, op, validateAt, true, true, i).newDocument;
    }
  } catch (err) {
    // The library's refusals (and its TypeError for __proto__, or a walk through a non-object);
    // anything else is onCopy's, for the caller.
    if (!(err instanceof jsonpatch.JsonPatchError || err instanceof TypeError)) throw err;
    return { error: err.message };
  }
  return { value: doc };
}

/** The library's document checks, but for move and copy, whose `from` patchState checked itself. */
function validateAt(op: jsonpatch.Operation, index: number, document: unknown, existingPath: string): void {
  if (op.op === "move" || op.op === "copy") return;
  jsonpatch.validator(op, index, document as jsonpatch.Operation, existingPath);
}

/**
 * `doc` with every container on `pointer`'s way (the root and each parent of its target) a
 * shallow copy this patch owns, so the operation may write to them: the target's parent is
 * where add, remove and replace write. Stops where the way leaves the document (the operation
 * then fails in the library, with its message).
 */
function own(doc: unknown, pointer: string, owned: Set<object>): unknown {
  if (pointer === "" || !isContainer(doc)) return doc;
  const root = ownCopy(doc, owned);
  const keys = pointer.split("/").slice(1);
  let parent: Container = root;
  for (let k = 0; k < keys.length - 1; k++) {
    const key = jsonpatch.unescapePathComponent(keys[k]!);
    const child = Array.isArray(parent) ? parent[Number(key)] : Object.hasOwn(parent, key) ? parent[key] : undefined;
    if (!isContainer(child)) break;
    const copy = ownCopy(child, owned);
    if (Array.isArray(parent)) parent[Number(key)] = copy;
    else parent[key] = copy;
    parent = copy;
  }
  return root;
}

function ownCopy(c: Container, owned: Set<object>): Container {
  if (owned.has(c)) return c;
  // Spread defines own properties (an own "__proto__" key stays a key), as JSON.parse made them.
  const copy: Container = Array.isArray(c) ? c.slice() : { ...c };
  owned.add(copy);
  return copy;
}

function isContainer(v: unknown): v is Container {
  return typeof v === "object" && v !== null;
}
