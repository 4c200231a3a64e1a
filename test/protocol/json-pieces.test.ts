/**
 * jsonPieces: the pieces, joined, are JSON.stringify's text of any value, character for
 * character (what lets the thread view and a reload's snapshot be encoded in slices without
 * changing a byte on the wire); and a list is taken apart one item a piece.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JSON_PIECES_DEPTH, jsonPieces } from "../../protocol/json-pieces.ts";

const joined = (v: unknown, depth?: number) => [...jsonPieces(v, depth)].join("");

describe("jsonPieces", () => {
  it("joins to JSON.stringify's text of any JSON value, at any depth", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 4 }), (v, depth) => {
        expect(joined(v, depth)).toBe(JSON.stringify(v));
      }),
      { numRuns: 300 },
    );
  });

  it("skips what JSON.stringify skips, writes null where it does, and keeps toJSON's text", () => {
    const fn = () => 1;
    const odd = {
      a: undefined,
      b: fn,
      c: Symbol("s"),
      // biome-ignore lint/suspicious/noSparseArray: a hole, which JSON.stringify writes as null
      list: [undefined, fn, Symbol("t"), 1, , 2],
      at: new Date(1760000000123),
      boxed: new String("text"),
      bare: Object.assign(Object.create(null), { x: 1 }),
      own: { toJSON: () => "mine" },
      nested: { deeper: { deepest: [1, { a: undefined }] } },
      "\u2028key\"": "\u2029",
    };
    for (const depth of [0, 1, 2, 3, 5]) expect(joined(odd, depth)).toBe(JSON.stringify(odd));
    expect(joined([odd, [odd]], JSON_PIECES_DEPTH)).toBe(JSON.stringify([odd, [odd]]));
  });

  it("writes each item of a list under the top object as a piece of its own", () => {
    const messages = Array.from({ length: 5 }, (_, i) => ({ id: `m${i}`, content: "x".repeat(1000) }));
    const pieces = [...jsonPieces({ threadId: "t", messages })];
    for (const m of messages) expect(pieces).toContain(JSON.stringify(m));
    expect(Math.max(...pieces.map((p) => p.length))).toBe(JSON.stringify(messages[0]).length);
  });
});
