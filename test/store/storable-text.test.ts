/**
 * The rule for text the log cannot store (server/store/storable-text.ts) and the model seam that
 * applies it (server/models/storable-parts.ts), as properties: any string, cut at any offsets
 * into deltas, comes out as storable pieces whose concatenation is the rule applied to the whole
 * string, and the string itself when it was storable already. Then on each backend: the pieces,
 * appended as text.delta events and read back, reassemble to that text, where the raw pieces
 * (split pairs, NUL) are refused by the database.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelPart } from "../../server/models/model.ts";
import { storableParts } from "../../server/models/storable-parts.ts";
import { NUL_SIGN, REPLACEMENT_CHARACTER, StorableTextStream, storableJsonMember, toStorableText, UNSTORABLE_TEXT } from "../../server/store/storable-text.ts";
import type { EventStore } from "../../server/store/types.ts";
import { backends, openStore } from "../support/server.ts";
import { deltaOf, ev, randomId } from "./fixtures.ts";

/** Any UTF-16 code unit, so lone surrogates of both kinds and NUL come up often enough. */
const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
const tricky = fc.constantFrom("😀", "🎉", "\uD83D", "\uDE00", "\uDBFF", "\uDC00", "\u0000", "a", "é", "\uFFFD", "\u2400");
/** Full Unicode (well-formed), raw code units, and the cases that matter, mixed. */
const text = fc
  .array(fc.oneof(fc.string({ unit: "binary" }), fc.string({ unit: anyUnit }), tricky), { maxLength: 12 })
  .map((parts) => parts.join(""));

/** `s` cut at the given offsets (any order, repeats, past the end: all allowed). */
function cut(s: string, offsets: number[]): string[] {
  const at = [...new Set(offsets.map((o) => o % (s.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let from = 0;
  for (const o of at) {
    pieces.push(s.slice(from, o));
    from = o;
  }
  pieces.push(s.slice(from));
  return pieces;
}

const storable = (s: string) => !UNSTORABLE_TEXT.test(s);

/** What the stream makes of `pieces`: each push's output, then end's. */
function streamed(pieces: string[]): string[] {
  const stream = new StorableTextStream();
  return [...pieces.map((p) => stream.push(p)), stream.end()];
}

describe("the rule", () => {
  it("replaces lone halves with U+FFFD and NUL with U+2400, and leaves storable text as it is", () => {
    expect(toStorableText("a😀b")).toBe("a😀b");
    expect(toStorableText("a\uD83Db")).toBe(`a${REPLACEMENT_CHARACTER}b`);
    expect(toStorableText("\uDE00\uD83D")).toBe(REPLACEMENT_CHARACTER.repeat(2));
    expect(toStorableText("x\u0000y")).toBe(`x${NUL_SIGN}y`);
    fc.assert(
      fc.property(text, (s) => {
        const out = toStorableText(s);
        expect(storable(out)).toBe(true);
        expect(out.length).toBe(s.length); // one unit for one unit: nothing dropped, nothing joined
        if (storable(s)) expect(out).toBe(s);
        expect(toStorableText(out)).toBe(out);
      }),
    );
  });

  it("any string split at any offsets streams out as storable pieces that reassemble to the rule's text", () => {
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 16 }), (s, offsets) => {
        const out = streamed(cut(s, offsets));
        for (const piece of out) expect(storable(piece), JSON.stringify(piece)).toBe(true);
        expect(out.join("")).toBe(toStorableText(s));
      }),
      { numRuns: 500 },
    );
    // The case it is for: a pair cut in two comes out whole, in the later piece.
    expect(streamed(["a\uD83D", "\uDE00b"])).toEqual(["a", "😀b", ""]);
    expect(streamed(["a\uD83D"])).toEqual(["a", REPLACEMENT_CHARACTER]);
  });

  it("as JSON reviver and replacer: every string value and key made storable, the rest untouched", () => {
    const parsed = JSON.parse('{"k\\u0000":["\\ud83d", "😀", 1, true, null, {"\\ude00": "\\u0000"}]}', storableJsonMember) as unknown;
    expect(parsed).toEqual({ [`k${NUL_SIGN}`]: [REPLACEMENT_CHARACTER, "😀", 1, true, null, { [REPLACEMENT_CHARACTER]: NUL_SIGN }] });
    const value = { a: "x\u0000", "\uD800": ["\uDFFF"], when: new Date(0) };
    expect(JSON.parse(JSON.stringify(value, storableJsonMember))).toEqual({ a: `x${NUL_SIGN}`, [REPLACEMENT_CHARACTER]: [REPLACEMENT_CHARACTER], when: "1970-01-01T00:00:00.000Z" });
  });
});

async function* partsOf(list: ModelPart[]): AsyncGenerator<ModelPart> {
  yield* list;
}

async function collect(parts: AsyncIterable<ModelPart>): Promise<ModelPart[]> {
  const out: ModelPart[] = [];
  for await (const p of parts) out.push(p);
  return out;
}

describe("the model seam (storableParts)", () => {
  it("reasoning, text and two calls' arguments, each cut anywhere and interleaved: each stream reassembles to the rule's text", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          reasoning: text,
          text,
          a: text,
          b: text,
          cuts: fc.array(fc.nat(), { maxLength: 8 }),
          order: fc.array(fc.constantFrom("text", "a", "b"), { maxLength: 40 }),
        }),
        async ({ reasoning, text: answer, a, b, cuts, order }) => {
          const queues = { text: cut(answer, cuts), a: cut(a, [...cuts].reverse()), b: cut(b, cuts.map((c) => c + 1)) };
          const input: ModelPart[] = cut(reasoning, cuts).map((delta) => ({ type: "reasoning-delta", delta }));
          input.push({ type: "tool-call-start", index: 0, id: "call-a", name: "a" }, { type: "tool-call-start", index: 1, id: "call-b", name: "b" });
          const next = (k: "text" | "a" | "b"): ModelPart | undefined => {
            const delta = queues[k].shift();
            if (delta === undefined) return undefined;
            return k === "text" ? { type: "text-delta", delta } : { type: "tool-call-args-delta", index: k === "a" ? 0 : 1, delta };
          };
          for (const k of order) {
            const p = next(k);
            if (p) input.push(p);
          }
          for (const k of ["text", "a", "b"] as const) for (let p = next(k); p; p = next(k)) input.push(p);
          // Call a ends before the response; call b ends with it.
          input.push({ type: "tool-call-end", index: 0 }, { type: "finish", reason: "tool-calls" });

          const out = await collect(storableParts(partsOf(input)));
          const of = (pred: (p: ModelPart) => boolean) =>
            out.filter(pred).map((p) => ("delta" in p ? p.delta : "")).join("");
          for (const p of out) if ("delta" in p) expect(storable(p.delta)).toBe(true);
          expect(of((p) => p.type === "reasoning-delta")).toBe(toStorableText(reasoning));
          expect(of((p) => p.type === "text-delta")).toBe(toStorableText(answer));
          expect(of((p) => p.type === "tool-call-args-delta" && p.index === 0)).toBe(toStorableText(a));
          expect(of((p) => p.type === "tool-call-args-delta" && p.index === 1)).toBe(toStorableText(b));
          // The held half of a call's arguments lands before its end; finish stays last.
          const endA = out.findIndex((p) => p.type === "tool-call-end" && p.index === 0);
          expect(out.slice(endA).some((p) => p.type === "tool-call-args-delta" && p.index === 0)).toBe(false);
          expect(out.at(-1)).toEqual({ type: "finish", reason: "tool-calls" });
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe.each(backends())("streamed pieces in the log, on %s", (backend) => {
  let store: EventStore;
  beforeAll(async () => {
    store = openStore(backend);
    await store.migrate();
  });
  afterAll(async () => {
    await store?.close();
  });

  const thread = async () => {
    const threadId = randomId("thread");
    await store.ensureThread(threadId, "agent");
    return threadId;
  };

  it("refuses the raw pieces: half a pair, and NUL", async () => {
    const threadId = await thread();
    await expect(store.append(threadId, [ev.delta("r", "a\uD83D")])).rejects.toThrow(/invalid input syntax for type json/);
    await expect(store.append(threadId, [ev.delta("r", "\uDE00b")])).rejects.toThrow(/invalid input syntax for type json/);
    await expect(store.append(threadId, [ev.delta("r", "x\u0000y")])).rejects.toThrow(/unsupported Unicode escape sequence/);
    expect(await store.read(threadId)).toEqual([]);
  });

  it("stores what the stream makes of any cut, and reads back the rule's text", async () => {
    await fc.assert(
      fc.asyncProperty(text, fc.array(fc.nat(), { maxLength: 8 }), async (s, offsets) => {
        const threadId = await thread();
        const pieces = streamed(cut(s, offsets)).filter((p) => p !== "");
        if (pieces.length > 0) await store.append(threadId, pieces.map((p) => ev.delta("r", p)));
        const back = (await store.read(threadId)).map(deltaOf).join("");
        expect(back).toBe(toStorableText(s));
        if (storable(s)) expect(back).toBe(s);
      }),
      { numRuns: 60 },
    );
  });
});
