/**
 * The input-limit checker (server/http/limits.ts), property-tested: depth, string bytes, array
 * length and key counts at the bound pass and one past it fail; NUL and lone surrogates are
 * found in values and keys; every reported path is an RFC 6901 pointer that, resolved by an
 * independent reader, lands on the offending value. Plus the path-id rule and the seq cursor.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseSeqCursor } from "../../server/http/cursor.ts";
import { idProblem } from "../../server/http/ids.ts";
import { checkInput, DEFAULT_INPUT_LIMITS, MAX_REPORTED_ISSUES, type InputLimits } from "../../server/http/limits.ts";

const loose: InputLimits = { maxDepth: 1_000_000, maxStringBytes: 1 << 30, maxArrayLength: 1 << 30, maxObjectKeys: 1 << 30 };

/** RFC 6901 resolution, written from the RFC rather than from the code under test. */
function resolve(doc: unknown, pointer: string): { found: boolean; value?: unknown; parentKeys?: string[] } {
  if (pointer === "") return { found: true, value: doc };
  expect(pointer.startsWith("/")).toBe(true);
  let cur: unknown = doc;
  const tokens = pointer.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
  for (const t of tokens) {
    if (cur === null || typeof cur !== "object" || !Object.hasOwn(cur, t)) return { found: false };
    cur = (cur as Record<string, unknown>)[t];
  }
  return { found: true, value: cur };
}

/** Objects nested `depth` deep (the outermost is depth 1) along `keys` (cycled), a leaf inside. */
function nested(depth: number, keys: string[], leaf: unknown = 1): { value: unknown; pathTo: (d: number) => string } {
  let value: unknown = leaf;
  for (let d = depth; d >= 1; d--) value = { [keys[(d - 1) % keys.length]!]: value };
  const esc = (k: string) => k.replace(/~/g, "~0").replace(/\//g, "~1");
  // The pointer of the container at depth d: the keys of the d-1 containers around it.
  const pathTo = (d: number) => Array.from({ length: d - 1 }, (_, i) => `/${esc(keys[i % keys.length]!)}`).join("");
  return { value, pathTo };
}

const keyArb = fc.string({ maxLength: 6, unit: fc.constantFrom("a", "~", "/", "0", "1", "é", "😀") });

describe("checkInput", () => {
  it("depth at the bound passes, one more fails at the pointer of the too-deep container", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 80 }), fc.array(keyArb, { minLength: 1, maxLength: 4 }), (bound, keys) => {
        const limits = { ...loose, maxDepth: bound };
        expect(checkInput(nested(bound, keys).value, limits)).toEqual([]);
        const over = nested(bound + 1, keys);
        const issues = checkInput(over.value, limits);
        expect(issues).toHaveLength(1);
        expect(issues[0]).toMatchObject({ limit: "MAX_JSON_DEPTH", max: bound, path: over.pathTo(bound + 1) });
        const hit = resolve(over.value, issues[0]!.path);
        expect(hit.found).toBe(true);
        expect(typeof hit.value).toBe("object");
      }),
      { numRuns: 200 },
    );
  });

  it("arrays count as levels too; a string or number at the bottom is not a level", () => {
    const limits = { ...loose, maxDepth: 3 };
    expect(checkInput([[["x"]]], limits)).toEqual([]);
    expect(checkInput([[[[]]]], limits)).toMatchObject([{ path: "/0/0/0", limit: "MAX_JSON_DEPTH" }]);
    expect(checkInput({ a: [{ b: 1 }] }, limits)).toEqual([]);
    expect(checkInput("just a string", { ...limits, maxDepth: 1 })).toEqual([]);
  });

  it("walks a body nested 200,000 deep without recursion (no stack overflow)", () => {
    let deep: unknown = [];
    for (let i = 0; i < 200_000; i++) deep = { a: deep };
    expect(() => checkInput(deep, loose)).not.toThrow();
    expect(checkInput({ forwardedProps: deep }, DEFAULT_INPUT_LIMITS)).toMatchObject([
      { limit: "MAX_JSON_DEPTH", max: 64, path: `/forwardedProps${"/a".repeat(63)}` },
    ]);
  });

  it("strings of exactly the byte bound pass, one byte more fails, values and keys alike", () => {
    // Units of 1, 2, 3 and 4 UTF-8 bytes: the bound is counted in bytes, not characters.
    const unit = fc.constantFrom("a", "é", "€", "😀");
    fc.assert(
      fc.property(fc.array(unit, { minLength: 2, maxLength: 40 }), fc.boolean(), (units, asKey) => {
        const s = units.join("");
        const bytes = Buffer.byteLength(s);
        const at = (max: number) => checkInput(asKey ? { [s]: 1 } : { k: [s] }, { ...loose, maxStringBytes: max });
        expect(at(bytes)).toEqual([]);
        const issues = at(bytes - 1);
        expect(issues).toMatchObject([{ limit: "MAX_STRING_BYTES", max: bytes - 1 }]);
        const pointer = issues[0]!.path;
        if (asKey) {
          // A key's pointer names the key itself: it resolves to the value stored under it.
          expect(resolve({ [s]: 1 }, pointer)).toEqual({ found: true, value: 1 });
        } else {
          expect(pointer).toBe("/k/0");
        }
      }),
      { numRuns: 300 },
    );
  });

  it("array length and key count: the bound passes, one more fails", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), (n) => {
        const arr = Array.from({ length: n + 1 }, (_, i) => i);
        const obj = Object.fromEntries(arr.map((i) => [`k${i}`, i]));
        expect(checkInput({ a: arr }, { ...loose, maxArrayLength: n + 1 })).toEqual([]);
        expect(checkInput({ a: arr }, { ...loose, maxArrayLength: n })).toMatchObject([{ path: "/a", limit: "MAX_ARRAY_LENGTH", max: n }]);
        expect(checkInput({ o: obj }, { ...loose, maxObjectKeys: n + 1 })).toEqual([]);
        expect(checkInput({ o: obj }, { ...loose, maxObjectKeys: n })).toMatchObject([{ path: "/o", limit: "MAX_OBJECT_KEYS", max: n }]);
      }),
    );
  });

  it("NUL and lone surrogates are found in values and keys, at the right pointer; pairs pass", () => {
    const bad = fc.constantFrom("\u0000", "\uD800", "\uDBFF", "\uDC00", "\uDFFF", "a\uD83D", "\uDE00b");
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), bad, fc.string(), fc.boolean(), (doc, poison, prefix, inKey) => {
        const value = inKey ? { wrap: { [prefix + poison]: doc } } : { wrap: [doc, prefix + poison] };
        const issues = checkInput(value, loose).filter((i) => i.limit === "UNSAFE_TEXT");
        expect(issues.length).toBeGreaterThanOrEqual(1);
        const ours = issues.find((i) => i.path === (inKey ? `/wrap/${(prefix + poison).replace(/~/g, "~0").replace(/\//g, "~1")}` : "/wrap/1"));
        expect(ours, JSON.stringify(issues)).toBeDefined();
        for (const i of issues) expect(resolve(value, i.path).found).toBe(true);
      }),
      { numRuns: 300 },
    );
    expect(checkInput({ "😀": "😀 \uD83D\uDE00" }, loose)).toEqual([]);
  });

  it("any JSON within the limits passes; every issue of any JSON points at something that exists", () => {
    // fast-check's strings may hold lone surrogates and NUL; those must be reported, nothing else.
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (doc) => {
        const issues = checkInput(doc, { ...loose, maxDepth: 7 });
        for (const i of issues) {
          expect(i.limit).toBe("UNSAFE_TEXT");
          expect(resolve(doc, i.path).found).toBe(true);
        }
        const text = JSON.stringify(doc);
        const hasUnsafe = /\\u0000|[\uD800-\uDFFF]/.test(text) || /\\ud[89ab]|\\ud[c-f]/i.test(text);
        if (!hasUnsafe) expect(issues).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("reports at most MAX_REPORTED_ISSUES, in document order", () => {
    const many = Array.from({ length: 100 }, (_, i) => `bad\u0000${i}`);
    const issues = checkInput({ many }, loose);
    expect(issues).toHaveLength(MAX_REPORTED_ISSUES);
    expect(issues.map((i) => i.path)).toEqual(Array.from({ length: MAX_REPORTED_ISSUES }, (_, i) => `/many/${i}`));
  });
});

describe("ids and cursors", () => {
  it("idProblem: 1-200 printable characters", () => {
    expect(idProblem("thread-1")).toBeNull();
    expect(idProblem("t".repeat(200))).toBeNull();
    expect(idProblem("t".repeat(201))).toMatch(/at most 200/);
    expect(idProblem(" ")).toMatch(/empty/);
    for (const c of ["\u0000", "\n", "\u001f", "\u007f"]) expect(idProblem(`a${c}b`)).toMatch(/control/);
    expect(idProblem("a\uD800")).toMatch(/well-formed/);
  });

  it("parseSeqCursor takes whole numbers of decimal digits only", () => {
    expect(parseSeqCursor("0", "h")).toBe(0);
    expect(parseSeqCursor(" 42 ", "h")).toBe(42);
    for (const bad of ["abc", "1e400", "-1", "0x10", "1.5", "", "99999999999999999", "Infinity"]) {
      expect(() => parseSeqCursor(bad, "header Last-Event-ID"), bad).toThrow(/header Last-Event-ID/);
    }
  });
});
