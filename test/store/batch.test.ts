import { describe, expect, it } from "vitest";
import { planBatch } from "../../server/store/batch.ts";
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
