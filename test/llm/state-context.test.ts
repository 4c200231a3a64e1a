/**
 * The state in the model's context (server/engine/state-context.ts, AgentInput.stateInContext):
 * the bound holds at the byte, the cut is marked and never splits a character, and the option is
 * checked where the agent is defined.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AgentDefinitionError, defineAgent } from "../../server/agents/define.ts";
import { STATE_CONTEXT_MAX_BYTES, STATE_CONTEXT_MIN_BYTES } from "../../server/agents/state-options.ts";
import { RunFailure } from "../../server/engine/errors.ts";
import { boundUtf8, stateForModel, truncationMarker } from "../../server/engine/state-context.ts";

const bytes = (s: string) => Buffer.byteLength(s, "utf8");

describe("boundUtf8", () => {
  it("keeps text of exactly the bound, and cuts text one byte past it with the marker", () => {
    const max = 300;
    const at = "a".repeat(max);
    expect(boundUtf8(at, max)).toBe(at);

    const past = "a".repeat(max + 1);
    const cut = boundUtf8(past, max);
    const marker = truncationMarker(max + 1, max);
    expect(cut.endsWith(marker)).toBe(true);
    expect(bytes(cut)).toBeLessThanOrEqual(max);
    expect(cut).toBe("a".repeat(max - bytes(marker)) + marker);
    expect(marker).toContain(`${max + 1} bytes`);
  });

  it("counts bytes, not characters, and never cuts inside one", () => {
    const max = STATE_CONTEXT_MIN_BYTES;
    const text = "é😀".repeat(100); // 2 + 4 bytes each pair: 600 bytes, 300 UTF-16 units
    const cut = boundUtf8(text, max);
    expect(bytes(cut)).toBeLessThanOrEqual(max);
    const kept = cut.slice(0, cut.indexOf("\n[state truncated"));
    expect(text.startsWith(kept)).toBe(true);
    expect(kept).not.toContain("\uFFFD");
  });

  it("holds for any text and bound: within the bound, unchanged iff it fits, else a prefix plus the marker", () => {
    fc.assert(
      // "binary": any code point, astral ones as surrogate pairs, never a lone surrogate (which has
      // no UTF-8 form, and which the state, JSON out of Postgres, never holds).
      fc.property(fc.string({ unit: "binary", maxLength: 600 }), fc.integer({ min: STATE_CONTEXT_MIN_BYTES, max: 700 }), (text, max) => {
        const out = boundUtf8(text, max);
        expect(bytes(out)).toBeLessThanOrEqual(max);
        if (bytes(text) <= max) {
          expect(out).toBe(text);
        } else {
          const marker = truncationMarker(bytes(text), max);
          expect(out.endsWith(marker)).toBe(true);
          const kept = out.slice(0, out.length - marker.length);
          expect(text.startsWith(kept)).toBe(true);
          // As much as fits: one more character would not.
          const next = [...text.slice(kept.length)][0] ?? "";
          expect(bytes(kept) + bytes(next) + bytes(marker)).toBeGreaterThan(max);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("stateForModel", () => {
  const agent = (opts: Parameters<typeof defineAgent>[0]["stateInContext"]) =>
    defineAgent({ id: "a", instructions: "x", ...(opts !== undefined && { stateInContext: opts }) });

  it("defaults to compact JSON under a heading, within STATE_CONTEXT_MAX_BYTES, and says nothing of an empty state", () => {
    const a = agent(undefined);
    expect(a.stateInContext !== false && a.stateInContext.maxBytes).toBe(STATE_CONTEXT_MAX_BYTES);
    expect(stateForModel(a, { theme: "dark", n: [1, 2] })).toMatch(/^Shared state of this conversation[^\n]*\n\{"theme":"dark","n":\[1,2\]\}$/);
    expect(stateForModel(a, {})).toBe("");
    expect(stateForModel(a, undefined)).toBe("");
    expect(stateForModel(a, null)).toBe("");

    const big = { document: "x".repeat(STATE_CONTEXT_MAX_BYTES) };
    const text = stateForModel(a, big);
    expect(bytes(text)).toBeLessThanOrEqual(STATE_CONTEXT_MAX_BYTES);
    expect(text).toMatch(/\[state truncated: \d+ bytes, over the 8192-byte limit of stateInContext\.maxBytes\]$/);
  });

  it("uses the agent's own render and bound, and nothing at all when it opts out", () => {
    const custom = agent({ render: (s) => `Tasks: ${(s as { tasks?: string[] }).tasks?.join(", ") ?? "none"}`, maxBytes: 256 });
    expect(stateForModel(custom, { tasks: ["a", "b"] })).toBe("Tasks: a, b");
    expect(stateForModel(custom, undefined)).toBe("Tasks: none"); // render sees {} for an unset state
    expect(bytes(stateForModel(custom, { tasks: ["y".repeat(1000)] }))).toBeLessThanOrEqual(256);
    expect(stateForModel(agent({ render: () => "" }), { a: 1 })).toBe("");
    expect(stateForModel(agent(false), { a: 1 })).toBe("");
  });

  it("fails the run with STATE_RENDER_FAILED when render throws or returns no string", () => {
    const throws = agent({
      render: () => {
        throw new Error("boom");
      },
    });
    expect(() => stateForModel(throws, {})).toThrow(RunFailure);
    expect(() => stateForModel(throws, {})).toThrow(/stateInContext\.render threw: boom/);
    const wrong = agent({ render: (() => 42) as unknown as () => string });
    expect(() => stateForModel(wrong, {})).toThrow(/returned number, not a string/);
  });

  it("rejects a bad option where the agent is defined, naming the path", () => {
    expect(() => agent({ maxBytes: 10 })).toThrow(AgentDefinitionError);
    expect(() => agent({ maxBytes: 10 })).toThrow(/stateInContext\.maxBytes/);
    expect(() => agent({ maxBytes: 1.5 as number })).toThrow(/stateInContext\.maxBytes/);
    expect(() => agent({ render: "json" as unknown as () => string })).toThrow(/stateInContext\.render: must be a function/);
    expect(() => agent(true as unknown as false)).toThrow(/stateInContext/);
  });
});
