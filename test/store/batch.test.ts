import { describe, expect, it } from "vitest";
import type { WorkflowEvent } from "../../protocol/events.ts";
import { IllegalTransitionError } from "../../protocol/lifecycle.ts";
import { assertLegalAppend, planBatch } from "../../server/store/batch.ts";
import { ev } from "./fixtures.ts";

describe("planBatch", () => {
  it("numbers each thread's events from 1 in queue order, threads sorted for locking", () => {
    const plan = planBatch([
      { threadId: "b", events: [ev.delta("r", "1"), ev.delta("r", "2")] },
      { threadId: "a", events: [ev.delta("r", "3")] },
      { threadId: "b", events: [ev.delta("r", "4")] },
    ]);
    expect(plan.threads.ids).toEqual(["a", "b"]);
    expect(plan.threads.counts).toEqual([1, 3]);
    expect(plan.events.threadIds).toEqual(["b", "b", "a", "b"]);
    expect(plan.events.offsets).toEqual([1, 2, 1, 3]);
    expect(plan.firstOffsets).toEqual([1, 1, 3]);
    expect(plan.events.data.map((d) => JSON.parse(d).delta)).toEqual(["1", "2", "3", "4"]);
  });

  it("keeps the last status, the last active-run change and each run's final status", () => {
    const plan = planBatch([
      { threadId: "t", events: [ev.runAccepted("r1"), ev.started("r1"), ev.delta("r1", "x")] },
      { threadId: "t", events: [ev.completed("r1"), ev.userMessage("after")] },
      { threadId: "u", events: [ev.runAccepted("r2"), ev.cancelling("r2")] },
      { threadId: "v", events: [ev.delta("r3", "y")] },
    ]);
    expect(plan.threads.statuses).toEqual(["COMPLETED", "CANCELLING", null]);
    expect(plan.threads.touchActive).toEqual([true, true, false]);
    expect(plan.threads.activeRunIds).toEqual([null, "r2", null]);
    expect(plan.runs.ids).toEqual(["r1", "r2"]);
    expect(plan.runs.statuses).toEqual(["completed", "running"]);
    expect(plan.runs.threadIds).toEqual(["t", "u"]);
    expect(plan.runs.inputs.map((i) => (i ? JSON.parse(i).runId : null))).toEqual(["r1", "r2"]);
  });
});

describe("planBatch enforces the transition table", () => {
  it("refuses a sequence the table forbids, naming both states and the thread", () => {
    expect(() => planBatch([{ threadId: "t", events: [ev.completed("r1"), ev.started("r1")] }])).toThrow(
      /Thread t cannot go from COMPLETED to RUNNING/,
    );
    // across two appends of one batch too
    expect(() =>
      planBatch([
        { threadId: "t", events: [ev.suspended("r1")] },
        { threadId: "t", events: [ev.started("r1")] },
      ]),
    ).toThrow(IllegalTransitionError);
    expect(() => assertLegalAppend("t", [ev.suspended("r1"), ev.completed("r1")])).toThrow(/from WAITING to COMPLETED/);
  });

  it("keeps the real flows legal: first run, recovery, queued runs, cancel races", () => {
    const resumed: WorkflowEvent = { type: "workflow.resumed", data: { runId: "r1", reason: "recovered" } };
    const cancelled = (runId: string): WorkflowEvent => ({ type: "workflow.cancelled", data: { runId } });
    const plan = planBatch([
      { threadId: "new", events: [ev.threadCreated(), ev.runAccepted("r1"), ev.started("r1")] },
      { threadId: "rec", events: [ev.started("r1"), resumed, resumed] },
      { threadId: "queued", events: [ev.suspended("r0"), ev.runAccepted("r1"), ev.started("r1")] },
      { threadId: "race", events: [ev.started("x1"), ev.completed("x1"), ev.cancelling("x1"), cancelled("x1")] },
      { threadId: "cancel", events: [ev.started("c1"), ev.cancelling("c1"), cancelled("c1"), ev.runAccepted("c2")] },
    ]);
    expect(plan.threads.ids).toEqual(["cancel", "new", "queued", "race", "rec"]);
    expect(plan.threads.statuses).toEqual(["PENDING", "RUNNING", "RUNNING", "COMPLETED", "RUNNING"]);
    // an ignored cancel touches neither the active run nor the run row
    expect(plan.threads.activeRunIds[3]).toBeNull();
    expect(plan.runs.statuses[plan.runs.ids.indexOf("x1")]).toBe("completed");
    expect(plan.runs.statuses[plan.runs.ids.indexOf("c1")]).toBe("cancelled");
  });

  it("leaves a cancel whose starting status it does not know to the database's guard", () => {
    const plan = planBatch([{ threadId: "t", events: [ev.cancelling("r1")] }]);
    expect(plan.threads.statuses).toEqual(["CANCELLING"]);
    expect(plan.threads.cancelGuards).toEqual([true]);
  });
});
