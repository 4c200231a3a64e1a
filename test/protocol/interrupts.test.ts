/**
 * The interrupt rules of protocol/: the order lifecycle.ts enforces on one append, and the fold
 * (reconstruction) that lists pending interrupts, checkpoint round trip included.
 */
import { describe, expect, it } from "vitest";
import type { StoredEvent, WorkflowEvent } from "../../protocol/events.ts";
import { approvalOf, interruptIdFor } from "../../protocol/interrupts.ts";
import { assertInterruptOrder, IllegalInterruptOrderError } from "../../protocol/lifecycle.ts";
import { Reconstructor } from "../../protocol/reconstruct.ts";

const requested: WorkflowEvent = {
  type: "interrupt.requested",
  data: { runId: "r1", interruptId: interruptIdFor("c1"), kind: "approval", toolCallId: "c1", toolName: "send_email", parentMessageId: "m1", reason: "approval" },
};
const resolved = (runId: string): WorkflowEvent => ({
  type: "interrupt.resolved",
  data: { runId, interruptId: interruptIdFor("c1"), status: "resolved", payload: { approved: true }, via: "resume" },
});

describe("interrupt order (lifecycle.ts)", () => {
  it("takes a resolution between its run's run.accepted and workflow.started", () => {
    expect(() =>
      assertInterruptOrder([
        { type: "run.accepted", data: { runId: "r2", tools: [], context: [] } },
        resolved("r2"),
        { type: "workflow.started", data: { runId: "r2" } },
      ]),
    ).not.toThrow();
  });

  it("refuses a resolution outside an admission, after the start, or for another run", () => {
    expect(() => assertInterruptOrder([resolved("r2")])).toThrow(IllegalInterruptOrderError);
    expect(() =>
      assertInterruptOrder([
        { type: "run.accepted", data: { runId: "r2" } },
        { type: "workflow.started", data: { runId: "r2" } },
        resolved("r2"),
      ]),
    ).toThrow(IllegalInterruptOrderError);
    expect(() => assertInterruptOrder([{ type: "run.accepted", data: { runId: "r2" } }, resolved("r3")])).toThrow(IllegalInterruptOrderError);
  });

  it("refuses a request after its run ended, and a suspension for interrupts that names none", () => {
    expect(() =>
      assertInterruptOrder([{ type: "workflow.suspended", data: { runId: "r1", reason: "input", pendingToolCallIds: [] } }, requested]),
    ).toThrow(IllegalInterruptOrderError);
    expect(() =>
      assertInterruptOrder([{ type: "workflow.suspended", data: { runId: "r1", reason: "approval", pendingToolCallIds: [] } }]),
    ).toThrow(/must name the interrupts/);
  });
});

describe("pending interrupts in the fold", () => {
  const stored = (events: WorkflowEvent[]): StoredEvent[] =>
    events.map((e, i) => ({ ...e, threadId: "t", seq: i + 1, runId: (e.data as { runId?: string }).runId ?? null, at: 1 }) as StoredEvent);

  it("lists a request until it is resolved, and keeps both across a checkpoint", () => {
    const fold = new Reconstructor();
    for (const e of stored([requested, requested])) fold.push(e);
    expect(fold.snapshot().pendingInterrupts.map((r) => r.interruptId)).toEqual([interruptIdFor("c1")]);
    const resumed = Reconstructor.from({ seq: fold.lastSeq, fold: fold.toState() });
    resumed.push({ ...stored([resolved("r2")])[0]!, seq: 3 });
    expect(resumed.snapshot().pendingInterrupts).toEqual([]);
    expect(approvalOf(resumed.interrupts().get(interruptIdFor("c1"))!.resolution!)).toEqual({ approved: true });
    // The checkpoint taken before the answer is not changed by it.
    expect(fold.snapshot().pendingInterrupts).toHaveLength(1);
  });

  it("approves only an explicit {approved: true}", () => {
    const base = { runId: "r", interruptId: "i" };
    expect(approvalOf({ ...base, status: "resolved", via: "resume", payload: {} }).approved).toBe(false);
    expect(approvalOf({ ...base, status: "resolved", via: "resume", payload: { approved: false, reason: "no" } })).toEqual({ approved: false, reason: "no" });
    expect(approvalOf({ ...base, status: "cancelled", via: "superseded" })).toEqual({ approved: false, reason: "superseded" });
  });
});
