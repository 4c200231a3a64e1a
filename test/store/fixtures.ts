/** Workflow events and small helpers for the store tests. */
import { randomBytes } from "node:crypto";
import type { StoredEvent, WorkflowEvent } from "../../protocol/events.ts";
import type { EventStore, RunAdmission } from "../../server/store/types.ts";
import { testSchema } from "../support/schemas.ts";

/** A fresh schema, dropped when the test file ends (support/schemas.ts) if the test did not. */
export function randomSchema(): string {
  return testSchema("tl_test");
}

export function randomId(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString("hex")}`;
}

export const ev = {
  threadCreated: (agentId = "agent"): WorkflowEvent => ({ type: "thread.created", data: { agentId } }),
  runAccepted: (runId: string): WorkflowEvent => ({ type: "run.accepted", data: { runId, tools: [], context: [] } }),
  started: (runId: string): WorkflowEvent => ({ type: "workflow.started", data: { runId } }),
  suspended: (runId: string): WorkflowEvent => ({
    type: "workflow.suspended",
    data: { runId, reason: "input", pendingToolCallIds: [] },
  }),
  completed: (runId: string): WorkflowEvent => ({ type: "workflow.completed", data: { runId } }),
  cancelling: (runId: string): WorkflowEvent => ({ type: "workflow.cancelling", data: { runId } }),
  textStarted: (runId: string, messageId = "m1"): WorkflowEvent => ({ type: "text.started", data: { runId, messageId } }),
  delta: (runId: string, delta: string, messageId = "m1"): WorkflowEvent => ({
    type: "text.delta",
    data: { runId, messageId, delta },
  }),
  textEnded: (runId: string, messageId = "m1"): WorkflowEvent => ({ type: "text.ended", data: { runId, messageId } }),
  userMessage: (content: string, runId?: string): WorkflowEvent => ({
    type: "message.appended",
    data: { runId, source: "input", message: { id: randomId("msg"), role: "user", content } },
  }),
};

/** The text of a text.delta event (the marker the concurrency tests write). */
export function deltaOf(e: StoredEvent): string {
  return (e.data as { delta?: string }).delta ?? "";
}

/** Follows a thread until an event with seq >= untilSeq arrived; returns all it yielded. */
export async function followUntil(store: EventStore, threadId: string, after: number, untilSeq: number): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  const ac = new AbortController();
  try {
    for await (const batch of store.follow(threadId, after, ac.signal)) {
      out.push(...batch);
      if ((out.at(-1)?.seq ?? 0) >= untilSeq) break;
    }
  } finally {
    ac.abort();
  }
  return out;
}

export function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

/** A run's admission as the contract suites make it: one agent, the default tenant, instance-a's lease. */
export const admit = (over: Partial<RunAdmission> = {}): RunAdmission => ({
  agentId: "agent",
  tenantId: "default",
  leaseOwner: "instance-a",
  ttlMs: 60_000,
  expectedLastSeq: 0,
  ...over,
});
