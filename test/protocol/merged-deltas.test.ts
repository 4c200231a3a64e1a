/**
 * The merge rule of the compacted form (protocol/merged-deltas.ts): over random runs whose text and
 * tool-call deltas interleave with each other and with state patches, projecting the log with its
 * stretches merged gives the exact projection with those stretches' frames merged (matchesMerged),
 * which leaves a client with the same messages and state; and the bounds, each tested at its edge.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StoredEvent, WorkflowEvent } from "../../protocol/events.ts";
import { DeltaMerger, matchesMerged, type MergedDelta } from "../../protocol/merged-deltas.ts";
import { project } from "../../protocol/project.ts";
import { clientView } from "../support/client-view.ts";

const runId = "r1";
type Op = { kind: "text" | "args"; delta: string } | { kind: "patch"; value: number };

function log(ops: readonly Op[]): StoredEvent[] {
  const events: WorkflowEvent[] = [
    { type: "thread.created", data: { agentId: "default" } },
    { type: "run.accepted", data: { runId, tools: [], context: [] } },
    { type: "workflow.started", data: { runId } },
    { type: "state.set", data: { runId, state: { n: 0 } } },
    { type: "text.started", data: { runId, messageId: "a1" } },
    { type: "toolcall.started", data: { runId, toolCallId: "c1", name: "f", parentMessageId: "a1" } },
    ...ops.map((op): WorkflowEvent => {
      if (op.kind === "text") return { type: "text.delta", data: { runId, messageId: "a1", delta: op.delta } };
      if (op.kind === "args") return { type: "toolcall.args", data: { runId, toolCallId: "c1", delta: op.delta } };
      return { type: "state.patched", data: { runId, patch: [{ op: "replace", path: "/n", value: (op as { value: number }).value }] } };
    }),
    { type: "text.ended", data: { runId, messageId: "a1" } },
    { type: "toolcall.ended", data: { runId, toolCallId: "c1" } },
    { type: "workflow.completed", data: { runId } },
  ];
  return events.map((e, i) => ({ ...e, threadId: "t", seq: i + 1, runId, at: 1_000 + i }) as StoredEvent);
}

/** The log as a catch-up reads it: each stretch in place of the events it stands for. */
function substituted(events: readonly StoredEvent[], merged: readonly MergedDelta[]): StoredEvent[] {
  const out: StoredEvent[] = [];
  for (const e of events) {
    const m = merged.find((x) => e.seq >= x.fromSeq && e.seq <= x.event.seq);
    if (!m) out.push(e);
    else if (e.seq === m.event.seq) out.push(m.event);
  }
  return out;
}

const ops = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant("text" as const), delta: fc.string({ minLength: 1, maxLength: 6 }) }),
    fc.record({ kind: fc.constant("args" as const), delta: fc.string({ minLength: 1, maxLength: 6 }) }),
    fc.record({ kind: fc.constant("patch" as const), value: fc.integer() }),
  ),
  { maxLength: 60 },
);

describe("merged deltas", () => {
  it("a log with its stretches merged projects to the exact frames with those stretches merged, and the same client view", () => {
    fc.assert(
      fc.property(ops, fc.integer({ min: 2, max: 5 }), (list, minEvents) => {
        const events = log(list);
        const merger = new DeltaMerger(1_000_000, minEvents);
        for (const e of events) merger.push(e);
        const merged = merger.take();
        for (const m of merged) expect(m.event.seq - m.fromSeq + 1).toBeGreaterThanOrEqual(minEvents);
        const exact = project(events);
        const compacted = project(substituted(events, merged));
        expect(matchesMerged(exact, compacted)).toEqual({ ok: true });
        expect(clientView(compacted.map((f) => f.event))).toEqual(clientView(exact.map((f) => f.event)));
        expect(exact.length - compacted.length).toBe(merged.reduce((n, m) => n + m.event.seq - m.fromSeq, 0));
      }),
    );
  });

  it("matchesMerged refuses a merge under another id, a merge across another frame, a lost and a duplicated frame", () => {
    const events = log([{ kind: "text", delta: "a" }, { kind: "text", delta: "b" }, { kind: "patch", value: 1 }, { kind: "text", delta: "c" }]);
    const exact = project(events);
    const at = exact.findIndex((f) => f.event.type === "TEXT_MESSAGE_CONTENT");
    const merge = (id: string, delta: string, drop: number) => [
      ...exact.slice(0, at),
      { id, event: { ...exact[at]!.event, delta } as never },
      ...exact.slice(at + drop),
    ];
    expect(matchesMerged(exact, merge(exact[at + 1]!.id, "ab", 2))).toEqual({ ok: true });
    expect(matchesMerged(exact, merge(exact[at]!.id, "ab", 2)).ok).toBe(false); // the first's id
    expect(matchesMerged(exact, [...merge(exact[at + 3]!.id, "abc", 4).slice(0, at + 1), ...exact.slice(at + 4)]).ok).toBe(false); // across the patch
    expect(matchesMerged(exact, exact.slice(1)).ok).toBe(false);
    expect(matchesMerged(exact, [...exact, exact.at(-1)!]).ok).toBe(false);
  });

  it("bounds: a merged delta holds at most maxDeltaChars, deltas are never split, and past maxChars nothing more is kept", () => {
    const text = (n: number, delta = "xy") => log(Array.from({ length: n }, () => ({ kind: "text" as const, delta })));
    const merge = (events: StoredEvent[], maxChars: number, maxDeltaChars: number) => {
      const m = new DeltaMerger(maxChars, 2, maxDeltaChars);
      for (const e of events) m.push(e);
      return m.take().map((x) => (x.event.data as { delta: string }).delta.length);
    };
    // 10 deltas of 2 units: at the bound (20) one stretch; one unit under it, two (18 + 2 is not kept alone).
    expect(merge(text(10), 1_000, 20)).toEqual([20]);
    expect(merge(text(10), 1_000, 19)).toEqual([18]);
    // A delta longer than the bound stays alone, whole.
    expect(merge(text(3, "x".repeat(30)), 1_000, 20)).toEqual([]);
    // The run's total: at the bound kept; one unit under it, the stretch and all after it are left to the log.
    expect(merge(text(10), 20, 20)).toEqual([20]);
    expect(merge(text(10), 19, 20)).toEqual([]);
    expect(merge(text(20), 20, 20)).toEqual([20]);
  });
});
