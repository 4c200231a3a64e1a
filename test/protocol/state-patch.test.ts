/**
 * protocol/state.ts's patchState against the clients' own call (fast-json-patch's applyPatch,
 * validated, on a deep copy): the same result, or a failure, for every patch of a corpus that walks
 * every operation, arrays and objects, escapes, and the failures; the state given is never
 * touched; a patch that fails part-way leaves nothing applied; and the work per patch follows the
 * patch, not the state (counted as the containers copied, not timed).
 */
import fjp from "fast-json-patch";
import { describe, expect, it } from "vitest";
import { patchState, type StatePatch } from "../../protocol/state.ts";

const base = () => ({
  a: { b: [1, 2, { c: "x" }], "d/e": 1, "f~g": 2 },
  list: [{ id: 1 }, { id: 2 }],
  s: "text",
  n: null,
});

const CASES: [string, unknown[]][] = [
  ["add a key", [{ op: "add", path: "/z", value: { deep: [1] } }]],
  ["add into an array and at its end", [{ op: "add", path: "/list/1", value: { id: 9 } }, { op: "add", path: "/list/-", value: 3 }]],
  ["replace deep", [{ op: "replace", path: "/a/b/2/c", value: "y" }]],
  ["remove from an array", [{ op: "remove", path: "/a/b/0" }]],
  ["escaped keys", [{ op: "replace", path: "/a/d~1e", value: 5 }, { op: "remove", path: "/a/f~0g" }]],
  ["move", [{ op: "move", from: "/a/b", path: "/moved" }]],
  ["move within an array", [{ op: "move", from: "/list/0", path: "/list/1" }]],
  ["copy then change the copy", [{ op: "copy", from: "/a", path: "/a2" }, { op: "replace", path: "/a2/b/0", value: 100 }]],
  ["add then write inside what was added", [{ op: "add", path: "/new", value: { k: [1] } }, { op: "add", path: "/new/k/-", value: 2 }]],
  ["test that holds", [{ op: "test", path: "/s", value: "text" }, { op: "add", path: "/t", value: 1 }]],
  ["replace the root", [{ op: "replace", path: "", value: { fresh: true } }, { op: "add", path: "/more", value: 1 }]],
  ["fails: test that does not hold, after a change", [{ op: "add", path: "/t", value: 1 }, { op: "test", path: "/s", value: "other" }]],
  ["fails: remove a missing key, after a change", [{ op: "replace", path: "/a/b/2/c", value: "changed" }, { op: "remove", path: "/nope" }]],
  ["fails: add below a missing parent", [{ op: "add", path: "/missing/child", value: 1 }]],
  ["fails: array index past the end", [{ op: "add", path: "/list/5", value: 1 }]],
  ["fails: move from a missing path", [{ op: "add", path: "/t", value: 1 }, { op: "move", from: "/nope", path: "/x" }]],
  ["fails: copy from a missing path", [{ op: "copy", from: "/a/zz", path: "/x" }]],
  ["fails: unknown op", [{ op: "frobnicate", path: "/a" }]],
  ["fails: value absent", [{ op: "add", path: "/a" }]],
  ["fails: path without its slash", [{ op: "add", path: "a", value: 1 }]],
  ["fails: __proto__", [{ op: "add", path: "/__proto__/polluted", value: 1 }]],
];

function clients(state: unknown, patch: unknown[]): { value: unknown } | { error: true } {
  try {
    return { value: fjp.applyPatch(state, patch as fjp.Operation[], true, false).newDocument };
  } catch {
    return { error: true };
  }
}

describe("patchState", () => {
  it.each(CASES)("%s: as the clients' applyPatch, the given state untouched", (_name, patch) => {
    const state = base();
    const before = JSON.stringify(state);
    const ours = patchState(state, patch as StatePatch);
    const theirs = clients(base(), patch);
    expect(JSON.stringify(state)).toBe(before);
    if ("error" in theirs) {
      expect(ours).toHaveProperty("error");
      expect((ours as { error: string }).error).not.toBe("");
    } else expect(ours).toEqual(theirs);
    // The patch itself is not written to either (its values are stored in the log).
    expect(JSON.stringify(patch)).toBe(JSON.stringify(CASES.find(([n]) => n === _name)![1]));
  });

  it("an unset state patches as {}", () => {
    expect(patchState(undefined, [{ op: "add", path: "/a", value: 1 }])).toEqual({ value: { a: 1 } });
  });

  it("a patch shares what it did not touch and copies only the containers on its paths", () => {
    const big = { blobs: Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`k${i}`, { v: "x".repeat(100) }])), small: { n: 1 } };
    const out = patchState(big, [{ op: "replace", path: "/small/n", value: 2 }]);
    if (!("value" in out)) throw new Error(out.error);
    const next = out.value as typeof big;
    expect(next.small).toEqual({ n: 2 });
    expect(big.small).toEqual({ n: 1 });
    // The untouched branch is the same object: nothing walked it, whatever its size.
    expect(next.blobs).toBe(big.blobs);
    expect(next).not.toBe(big);
  });
});
