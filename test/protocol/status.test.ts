/**
 * The thread status machine (protocol/lifecycle.ts, through status.ts's re-exports): legal and
 * illegal transitions, the error's wording, and which status each workflow event moves a thread to.
 */
import { describe, expect, it } from "vitest";
import type { WorkflowEvent } from "../../protocol/events.ts";
import {
  ACTIVE_STATUSES,
  assertTransition,
  canTransition,
  IllegalTransitionError,
  isActive,
  isSettled,
  SETTLED_STATUSES,
  statusAfter,
  ThreadStatusSchema,
  type ThreadStatus,
} from "../../protocol/status.ts";

const legal: Array<[ThreadStatus | null, ThreadStatus]> = [
  [null, "PENDING"],
  ["PENDING", "RUNNING"],
  ["PENDING", "CANCELLED"],
  ["PENDING", "CANCELLING"],
  ["PENDING", "PENDING"], // a new thread's first batch: thread.created, then run.accepted
  ["RUNNING", "WAITING"],
  ["RUNNING", "RUNNING"], // recovery: workflow.resumed
  ["RUNNING", "PENDING"], // a run whose lease expired is queued again
  ["RUNNING", "COMPLETED"],
  ["RUNNING", "FAILED"],
  ["RUNNING", "CANCELLING"],
  ["RUNNING", "CANCELLED"],
  ["WAITING", "PENDING"],
  ["CANCELLING", "CANCELLED"],
  ["CANCELLING", "FAILED"],
  ["CANCELLING", "COMPLETED"], // the run's own end crossed the cancel in flight
  ["CANCELLING", "WAITING"],
  ["COMPLETED", "PENDING"], // a new run reopens a thread
  ["FAILED", "PENDING"],
  ["CANCELLED", "PENDING"],
];

const illegal: Array<[ThreadStatus | null, ThreadStatus]> = [
  [null, "RUNNING"],
  ["PENDING", "WAITING"],
  ["WAITING", "RUNNING"],
  ["WAITING", "CANCELLING"],
  ["CANCELLING", "RUNNING"],
  ["CANCELLING", "CANCELLING"],
  ["WAITING", "CANCELLED"], // a cancel never moves a settled thread
  ["WAITING", "COMPLETED"],
  ["COMPLETED", "RUNNING"],
  ["FAILED", "COMPLETED"],
  ["CANCELLED", "RUNNING"],
];

describe("transitions", () => {
  it.each(legal)("%s -> %s is legal", (from, to) => {
    expect(canTransition(from, to)).toBe(true);
    expect(() => assertTransition(from, to)).not.toThrow();
  });

  it.each(illegal)("%s -> %s is refused, and the error names both states", (from, to) => {
    expect(canTransition(from, to)).toBe(false);
    let err: unknown;
    try {
      assertTransition(from, to, "thread-7");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(IllegalTransitionError);
    const e = err as IllegalTransitionError;
    expect(e.name).toBe("IllegalTransitionError");
    expect([e.from, e.to]).toEqual([from, to]);
    expect(e.message).toContain(`from ${from ?? "(new)"} to ${to}`);
    expect(e.message).toContain("thread-7");
  });

  it("the error says where the thread may go instead", () => {
    expect(() => assertTransition("WAITING", "RUNNING")).toThrow(/from WAITING it may go to PENDING$/);
    expect(() => assertTransition(null, "RUNNING")).toThrow(/a new thread starts as PENDING/);
  });
});

describe("settled and active", () => {
  it("partition the statuses: nothing runs when WAITING or terminal (the rule that keeps a tool from running on a thread nobody is driving)", () => {
    for (const s of ThreadStatusSchema.options) expect(isActive(s)).toBe(!isSettled(s));
    expect([...SETTLED_STATUSES].sort()).toEqual(["CANCELLED", "COMPLETED", "FAILED", "WAITING"]);
    expect([...ACTIVE_STATUSES].sort()).toEqual(["CANCELLING", "PENDING", "RUNNING"]);
  });
});

describe("statusAfter", () => {
  const r = { runId: "r" };
  it.each([
    [{ type: "thread.created", data: { agentId: "a" } }, "PENDING"],
    [{ type: "run.accepted", data: { ...r, tools: [], context: [] } }, "PENDING"],
    [{ type: "workflow.started", data: r }, "RUNNING"],
    [{ type: "workflow.resumed", data: { ...r, reason: "recovered" } }, "RUNNING"],
    [{ type: "workflow.suspended", data: { ...r, reason: "input", pendingToolCallIds: [] } }, "WAITING"],
    [{ type: "workflow.completed", data: r }, "COMPLETED"],
    [{ type: "workflow.failed", data: { ...r, error: { code: "X", message: "x" } } }, "FAILED"],
    [{ type: "workflow.cancelling", data: r }, "CANCELLING"],
    [{ type: "workflow.cancelled", data: r }, "CANCELLED"],
    [{ type: "text.delta", data: { ...r, messageId: "m", delta: "x" } }, undefined],
    [{ type: "message.appended", data: { ...r, source: "agent", message: { id: "m", role: "assistant" } } }, undefined],
  ] as Array<[WorkflowEvent, ThreadStatus | undefined]>)("%o -> %s", (event, status) => {
    expect(statusAfter(event)).toBe(status);
  });
});
