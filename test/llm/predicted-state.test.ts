/**
 * Predictive state, the pure part (server/engine/predicted-state.ts, partial-args.ts): the rate
 * bound on a hand-driven clock, the final value equal to the complete arguments' for any
 * chunking, every write consistent with the log's fold (protocol/state.ts), keys put back when a
 * call is withdrawn or ends without its argument, and the option checked by defineAgent.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AgentDefinitionError, defineAgent, type PredictStateRule } from "../../server/agents/define.ts";
import { isStorable, partialArguments } from "../../server/engine/partial-args.ts";
import { PREDICT_STATE_INTERVAL_MS, PredictedState, type StateWrite } from "../../server/engine/predicted-state.ts";
import { applyStatePatch } from "../../protocol/state.ts";

const DOC: PredictStateRule = { tool: "write_document", argument: "document", stateKey: "document" };

/** What the log's fold (and every client) makes of `write`, from `state`. */
function fold(state: unknown, write: StateWrite): unknown {
  if (write.type === "state.set") return write.state;
  const next = applyStatePatch(state, write.patch);
  if (!next) throw new Error(`the patch does not apply: ${JSON.stringify(write.patch)}`);
  return next.value;
}

/**
 * Streams `args` in `chunks` (their lengths) at the given times, as the engine does: every delta
 * offers the text so far and takes; a retry the tracker asks for is taken at its time. Returns
 * the writes with their times, then the final one.
 */
function stream(
  rules: PredictStateRule[],
  args: string,
  chunks: number[],
  times: number[],
  initial: unknown = {},
): { writes: { at: number; write: StateWrite }[]; state: unknown; tracker: PredictedState } {
  const tracker = new PredictedState(rules);
  const writes: { at: number; write: StateWrite }[] = [];
  let state = initial;
  let retryAt: number | undefined;
  const apply = (at: number, r: { write?: StateWrite; retryInMs?: number }) => {
    if (r.write) {
      expect(fold(state, r.write)).toEqual(r.write.next); // the engine's state = the log's
      state = r.write.next;
      writes.push({ at, write: r.write });
    }
    retryAt = r.retryInMs === undefined ? undefined : at + r.retryInMs;
  };
  let pos = 0;
  for (const [i, size] of chunks.entries()) {
    const at = times[i]!;
    if (retryAt !== undefined && retryAt <= at) apply(retryAt, tracker.take(retryAt, state));
    pos += size;
    tracker.offer(args.slice(0, pos));
    if (retryAt === undefined) apply(at, tracker.take(at, state));
  }
  if (retryAt !== undefined) apply(retryAt, tracker.take(retryAt, state));
  const last = tracker.finish(args, state);
  if (last) {
    expect(fold(state, last)).toEqual(last.next);
    state = last.next;
    writes.push({ at: Number.POSITIVE_INFINITY, write: last });
  }
  return { writes, state, tracker };
}

function documentOf(w: StateWrite): unknown {
  return Array.isArray(w.next) ? undefined : (w.next as Record<string, unknown>).document;
}

describe("PredictedState", () => {
  it("writes at most once per interval while the arguments stream, then the exact final value", () => {
    const document = "Dear team, ".repeat(200); // 2,200 characters
    const args = JSON.stringify({ title: "memo", document });
    const chunks = Array.from({ length: args.length }, () => 1);
    const times = chunks.map((_, i) => i); // one character per ms: a 2.2 s stream
    const { writes, state } = stream([DOC], args, chunks, times, { theme: "dark" });

    const streaming = writes.filter((w) => Number.isFinite(w.at));
    const duration = times.at(-1)! + PREDICT_STATE_INTERVAL_MS;
    expect(streaming.length).toBeLessThanOrEqual(Math.floor(duration / PREDICT_STATE_INTERVAL_MS) + 1);
    expect(streaming.length).toBeGreaterThan(10); // and it does show the document growing
    for (const [i, w] of streaming.entries()) {
      if (i > 0) expect(w.at - streaming[i - 1]!.at).toBeGreaterThanOrEqual(PREDICT_STATE_INTERVAL_MS);
      const partial = documentOf(w.write) as string;
      expect(document.startsWith(partial)).toBe(true);
    }
    // Every write is one `add` of /document: the other keys are untouched.
    for (const { write } of writes) {
      expect(write).toMatchObject({ type: "state.patched", patch: [{ op: "add", path: "/document" }] });
    }
    expect(state).toEqual({ theme: "dark", document });
  });

  it("writes the value so far after a pause in the stream, at the end of the interval", () => {
    const tracker = new PredictedState([DOC]);
    tracker.offer('{"document": "He');
    expect(tracker.take(0, {}).write?.next).toEqual({ document: "He" });
    tracker.offer('{"document": "Hello');
    const gated = tracker.take(30, {});
    expect(gated).toEqual({ retryInMs: PREDICT_STATE_INTERVAL_MS - 30 });
    expect(tracker.take(PREDICT_STATE_INTERVAL_MS, { document: "He" }).write?.next).toEqual({ document: "Hello" });
    expect(tracker.take(500, { document: "Hello" })).toEqual({}); // nothing new arrived
  });

  it("ends with the complete arguments' value for any chunking and timing, every write a fold step", () => {
    const json = fc.jsonValue({ maxDepth: 3 }).filter(isStorable);
    fc.assert(
      fc.property(
        fc.record({ document: fc.oneof(fc.string({ unit: "binary" }), json), other: json }, { requiredKeys: ["document"] }),
        fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 200 }),
        fc.array(fc.integer({ min: 0, max: 150 }), { minLength: 200, maxLength: 200 }),
        fc.oneof(fc.constant<unknown>({}), fc.constant<unknown>({ document: "old", keep: 1 }), fc.constant<unknown>([1, 2])),
        (value, sizes, gaps, initial) => {
          const args = JSON.stringify(value);
          const chunks: number[] = [];
          for (let left = args.length, i = 0; left > 0; i++) {
            const n = Math.min(left, sizes[i % sizes.length]!);
            chunks.push(n);
            left -= n;
          }
          let t = 0;
          const times = chunks.map((_, i) => (t += gaps[i % gaps.length]!));
          const { writes, state } = stream([DOC], args, chunks, times, initial);
          const base = Array.isArray(initial) ? {} : initial;
          // As JSON has it: the arguments are text, where -0 reads back as 0.
          const final: unknown = JSON.parse(args).document;
          // A value the log cannot store (a NUL) is never predicted: the state stays as it was.
          if (isStorable(final)) expect(state).toEqual({ ...(base as object), document: final });
          else expect(state).toEqual(initial);
          // A partial string is always the start of the final one (when there is one to write:
          // an unstorable final puts the old value back, which is no start of it).
          if (typeof value.document === "string" && isStorable(final)) {
            for (const { write } of writes) {
              const partial = documentOf(write);
              if (typeof partial === "string") expect(value.document.startsWith(partial)).toBe(true);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("puts the keys back when the call is withdrawn, or its arguments lack the argument or are not JSON", () => {
    const before = { document: "old", keep: 1 };
    for (const end of ["withdraw", '{"title": "x"}', '{"document": "half'] as const) {
      const tracker = new PredictedState([DOC]);
      tracker.offer('{"document": "new text');
      const first = tracker.take(0, before).write!;
      expect(first.next).toEqual({ document: "new text", keep: 1 });
      const back = end === "withdraw" ? tracker.withdraw(first.next) : tracker.finish(end, first.next);
      expect(back?.next, end).toEqual(before);
      expect(fold(first.next, back!)).toEqual(before);
    }
    // A key the state did not have is removed again.
    const tracker = new PredictedState([DOC]);
    tracker.offer('{"document": "new');
    const first = tracker.take(0, { keep: 1 }).write!;
    expect(tracker.withdraw(first.next)).toMatchObject({ patch: [{ op: "remove", path: "/document" }], next: { keep: 1 } });
    // Nothing written, nothing to put back.
    expect(new PredictedState([DOC]).withdraw({ keep: 1 })).toBeUndefined();
  });

  it("sets the whole state when it is not an object, and restores it whole", () => {
    const tracker = new PredictedState([DOC]);
    tracker.offer('{"document": "abc');
    const first = tracker.take(0, ["a list"]).write!;
    expect(first).toEqual({ type: "state.set", state: { document: "abc" }, next: { document: "abc" } });
    expect(tracker.withdraw(first.next)).toEqual({ type: "state.set", state: ["a list"], next: ["a list"] });
  });

  it("writes several keys of one call in one event, escapes keys as JSON pointers, and skips what is not yet readable", () => {
    const rules: PredictStateRule[] = [
      { tool: "t", argument: "body", stateKey: "doc/body" },
      { tool: "t", argument: "count", stateKey: "count" },
    ];
    const tracker = new PredictedState(rules);
    tracker.offer('{"body": "hi", "count": 12');
    const w = tracker.take(0, {}).write!;
    // The number is not complete yet: 12 may become 123.
    expect(w).toMatchObject({ type: "state.patched", patch: [{ op: "add", path: "/doc~1body", value: "hi" }], next: { "doc/body": "hi" } });
    expect(tracker.finish('{"body": "hi", "count": 123}', w.next)?.next).toEqual({ "doc/body": "hi", count: 123 });
  });
});

describe("partialArguments", () => {
  it("reads the members so far, and nothing a store would refuse", () => {
    expect(partialArguments("")).toBeUndefined();
    expect(partialArguments('{"document": "He said \\"hi')).toEqual({ document: 'He said "hi' });
    expect(partialArguments('{"document": "a\\u00')).toEqual({ document: "a" });
    expect(partialArguments('["not", "an object"')).toBeUndefined();
    // Cut between the halves of an escaped surrogate pair: readable, but not storable yet.
    const cut = partialArguments('{"document": "smile \\ud83d');
    expect(cut).toBeDefined();
    expect(isStorable(cut!.document)).toBe(false);
    expect(isStorable(partialArguments('{"document": "smile \\ud83d\\ude00')!.document)).toBe(true);
    expect(isStorable(partialArguments('{"n": NaN}')!.n)).toBe(false);
    expect(isStorable("nul \u0000")).toBe(false);
  });
});

describe("PredictedState: a path into the arguments, merged (the dojo's updateWorkingMemory)", () => {
  const RECIPE: PredictStateRule = { tool: "updateWorkingMemory", argument: ["memory", "recipe"], stateKey: "recipe", merge: true };
  const page = { recipe: { title: "Mine", skill_level: "Beginner", ingredients: [{ name: "Carrots" }] }, theme: "dark" };

  it("writes the members streamed so far over the recipe the page had, the others kept, ending at the complete ones", () => {
    const recipe = { skill_level: "Intermediate", ingredients: [{ name: "Pasta" }, { name: "Garlic" }], instructions: ["Boil", "Toss"] };
    const args = JSON.stringify({ memory: { recipe } });
    const chunks = Array.from({ length: args.length }, () => 1);
    const { writes, state } = stream([RECIPE], args, chunks, chunks.map((_, i) => i * 5), page);
    expect(writes.filter((w) => Number.isFinite(w.at)).length).toBeGreaterThan(1); // the recipe fills in live
    for (const { write } of writes) {
      expect(write).toMatchObject({ type: "state.patched", patch: [{ op: "add", path: "/recipe" }] });
      expect((write.next as typeof page).recipe.title).toBe("Mine"); // never lost mid-stream
    }
    expect(state).toEqual({ theme: "dark", recipe: { ...page.recipe, ...recipe } });
  });

  it("writes nothing while no member has streamed (a merge of none is the recipe as it was)", () => {
    const tracker = new PredictedState([RECIPE]);
    tracker.offer('{"memory": {"recipe": {"skil');
    expect(tracker.take(0, page)).toEqual({});
    tracker.offer('{"memory": {"recipe": {"title": "Pa');
    expect(tracker.take(PREDICT_STATE_INTERVAL_MS, page).write?.next).toEqual({ ...page, recipe: { ...page.recipe, title: "Pa" } });
  });

  it("puts the recipe back when the complete arguments lack it", () => {
    const tracker = new PredictedState([RECIPE]);
    tracker.offer('{"memory": {"recipe": {"title": "Pa');
    const first = tracker.take(0, page).write!;
    expect(tracker.finish('{"memory": {}}', first.next)?.next).toEqual(page);
  });
});

describe("defineAgent predictState", () => {
  const agent = (predictState: unknown) => defineAgent({ id: "p", instructions: "x", predictState: predictState as PredictStateRule[] });

  it("accepts rules and defaults to none", () => {
    expect(defineAgent({ id: "p", instructions: "x" }).predictState).toEqual([]);
    expect(agent([DOC]).predictState).toEqual([DOC]);
  });

  it("rejects bad rules with the path of what is wrong", () => {
    expect(() => agent([{ ...DOC, argument: "" }])).toThrow(AgentDefinitionError);
    expect(() => agent([{ ...DOC, argument: "" }])).toThrow(/predictState\.0\.argument/);
    expect(() => agent([{ tool: "write_document", stateKey: "document" }])).toThrow(/predictState\.0\.argument/);
    expect(() => agent([{ ...DOC, state_key: "x" }])).toThrow(/predictState\.0/);
    expect(() => agent([{ ...DOC, tool: "write document" }])).toThrow(/can never be called/);
    expect(() => agent([DOC, { ...DOC, argument: "text" }])).toThrow(/state key "document" from both "document" and "text"/);
    expect(() => agent({ tool: "x" })).toThrow(/predictState/);
    expect(() => agent([{ ...DOC, argument: [] }])).toThrow(/predictState\.0\.argument/);
    expect(() => agent([DOC, { ...DOC, argument: ["memory", "text"] }])).toThrow(/from both "document" and "memory.text"/);
  });
});
