/**
 * A checkpoint stored as a patch on the one before it (protocol/checkpoint-patch.ts): applying
 * the patch to the fold it was diffed against gives the new fold exactly, through JSON (as the
 * store keeps both), whatever the run changed: messages appended or replaced, a fork cutting the
 * conversation back, the tool ledger, state (also a state that stops being an object), fields
 * gained or lost. And the patch holds only what
 * changed: a run that appends one message writes that message, not the conversation.
 */
import type { Message } from "@ag-ui/core";
import { describe, expect, it } from "vitest";
import type { FoldState } from "../../protocol/checkpoint.ts";
import { applyFoldPatch, diffFold } from "../../protocol/checkpoint-patch.ts";

const msg = (id: string, content = `text of ${id}`): Message => ({ id, role: "user", content });

function fold(over: Partial<FoldState> = {}): FoldState {
  return {
    threadId: "t",
    status: "COMPLETED",
    messages: [msg("m1"), msg("m2")],
    state: { plan: ["a"] },
    usage: [],
    taskToolCalls: [],
    failedCalls: [],
    toolLedger: { calls: [["c1", "r1", true]], runEnds: [["r1", { kind: "completed" }]] as never },
    lastEndedRunId: "r1",
    lastSeq: 10,
    lastAt: 1000,
    ...over,
  };
}

/** What the store does with it: the patch and the base go through JSON. */
const roundTrip = (prev: FoldState, next: FoldState): FoldState =>
  applyFoldPatch(JSON.parse(JSON.stringify(prev)), JSON.parse(JSON.stringify(diffFold(prev, next))));

describe("checkpoint patches", () => {
  it("a run that appends a message writes that message and the fields that moved, not the conversation", () => {
    const prev = fold({ messages: Array.from({ length: 100 }, (_, i) => msg(`m${i}`)) });
    const next = { ...prev, messages: [...prev.messages, msg("new")], lastSeq: 20, lastAt: 2000, lastEndedRunId: "r2" };
    const patch = diffFold(prev, next);
    expect(patch.lists).toEqual({ messages: { keep: 100, add: [msg("new")] } });
    expect(patch.set).toEqual({ lastEndedRunId: "r2", lastSeq: 20, lastAt: 2000 });
    expect(JSON.stringify(patch).length).toBeLessThan(JSON.stringify(prev).length / 20);
    expect(roundTrip(prev, next)).toEqual(next);
  });

  it("a message replaced where it stood, and a fork that cut the conversation back", () => {
    const prev = fold({ messages: [msg("m1"), msg("m2"), msg("m3")] });
    const replaced = { ...prev, messages: [msg("m1"), msg("m2", "edited"), msg("m3")] };
    expect(diffFold(prev, replaced).lists).toEqual({ messages: { keep: 1, add: [msg("m2", "edited"), msg("m3")] } });
    expect(roundTrip(prev, replaced)).toEqual(replaced);
    const cut = { ...prev, messages: [msg("m1")], branch: "b1", branches: [{ branchId: "b1", seq: 5, at: 1 }] as never };
    expect(diffFold(prev, cut).lists).toEqual({ messages: { keep: 1, add: [] } });
    expect(roundTrip(prev, cut)).toEqual(cut);
  });

  it("the tool ledger and state field by field, fields gained and lost", () => {
    const prev = fold({ activeRunId: "r2", toolLedger: { calls: [["c1", "r1", true]], runEnds: [], suspended: { runId: "r1", callIds: ["c1"] } } });
    const next: FoldState = {
      ...prev,
      activeRunId: undefined,
      state: { plan: ["a", "b"] },
      toolLedger: { calls: [["c1", "r1", true], ["c2", "r2", false]], runEnds: [] },
      interrupts: [{ request: { interruptId: "i1", toolCallId: "c2", runId: "r2" } as never }],
    };
    delete next.activeRunId;
    const patch = diffFold(prev, next);
    expect(patch.unset).toEqual(["activeRunId"]);
    expect(patch.objects?.toolLedger).toEqual({ unset: ["suspended"], lists: { calls: { keep: 1, add: [["c2", "r2", false]] } } });
    expect(patch.objects?.state).toEqual({ lists: { plan: { keep: 1, add: ["b"] } } });
    expect(patch.set).toEqual({ interrupts: next.interrupts });
    expect(roundTrip(prev, next)).toEqual(next);
  });

  it("a state that stops or starts being an object is set whole", () => {
    const prev = fold({ state: { a: 1 } });
    const proto = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
    for (const state of [[1, 2], "text", null, { a: { b: 2 } }, proto, JSON.parse('{"__proto__": [1]}')]) {
      const next = { ...prev, state };
      expect(roundTrip(prev, next)).toEqual(next);
      expect(roundTrip(next, prev)).toEqual(prev);
    }
    // A "__proto__" field stays a field (key order aside: jsonb keeps none).
    expect(Object.hasOwn(roundTrip(prev, { ...prev, state: proto }).state as object, "__proto__")).toBe(true);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it("nothing changed: an empty patch, and the base comes back unchanged (not mutated)", () => {
    const prev = fold();
    expect(diffFold(prev, { ...prev })).toEqual({});
    const copy = JSON.parse(JSON.stringify(prev));
    applyFoldPatch(prev, diffFold(prev, { ...prev, messages: [msg("x")], toolLedger: { calls: [], runEnds: [] } }));
    expect(prev).toEqual(copy);
  });
});
