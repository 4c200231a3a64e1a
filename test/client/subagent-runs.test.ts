/** Which messages are a subagent's, from the thread's log and messages (client/src/subagent-runs.ts). */
import { describe, expect, it } from "vitest";
import { type AttributedMessage, childRunIdOf, childRunOfTask, indexSubagents, type LogEvent, parentToolCallIdOf, sameIndex, subagentStatus } from "../../client/src/subagent-runs.ts";

const ev = (type: string, data: Record<string, unknown>): LogEvent => ({ type, data });
const A = childRunIdOf("call_a");
const B = childRunIdOf("call_b");

describe("indexSubagents", () => {
  it("the ids' rule: a child's run id and its task message's id name the parent's call", () => {
    expect(A).toBe("call_a~sub");
    expect(parentToolCallIdOf(A)).toBe("call_a");
    expect(childRunOfTask(`${A}-task`)).toBe(A);
    expect(childRunOfTask("msg-1")).toBeUndefined();
  });

  it("two children at once: each streamed message is its own child's, from its first event; each run's end", () => {
    const events = [
      ev("toolcall.started", { toolCallId: "call_a", parentMessageId: "lead-1" }),
      ev("subagent.started", { childRunId: A, name: "researcher", parentToolCallId: "call_a" }),
      ev("subagent.started", { childRunId: B, name: "fact_checker", parentToolCallId: "call_b" }),
      ev("message.appended", { message: { id: `${A}-task`, role: "user" }, subagentRunId: A }),
      ev("text.started", { messageId: "m-a", subagentRunId: A }),
      ev("text.started", { messageId: "m-b", subagentRunId: B }),
      ev("toolcall.started", { toolCallId: "c-b", parentMessageId: "m-b2", subagentRunId: B }),
      ev("subagent.ended", { childRunId: B, outcome: "failed" }),
    ];
    const index = indexSubagents(events, []);
    expect(Object.fromEntries(index.childOf)).toEqual({ [`${A}-task`]: A, "m-a": A, "m-b": B, "m-b2": B });
    expect(index.runs.get(A)).toEqual({ childRunId: A, parentToolCallId: "call_a", name: "researcher" });
    expect(index.runs.get(B)?.outcome).toBe("failed");
    expect(index.childOf.has("lead-1")).toBe(false);
    // B asked for an approval, then went on after it: working again.
    const again = indexSubagents([...events.slice(0, -1), ev("subagent.ended", { childRunId: B, outcome: "suspended" }), ev("subagent.started", { childRunId: B, name: "fact_checker" })], []);
    expect(again.runs.get(B)).toEqual({ childRunId: B, parentToolCallId: "call_b", name: "fact_checker" });
  });

  it("after a reload past the events kept: the branch's messages still say whose each is", () => {
    const messages: AttributedMessage[] = [{ id: "u1" }, { id: "m-a", subagentRunId: A }];
    const index = indexSubagents([], messages);
    expect(index.childOf.get("m-a")).toBe(A);
    expect(index.childOf.has("u1")).toBe(false);
    expect([...index.own]).toEqual(["u1"]);
    expect(index.runs.get(A)?.parentToolCallId).toBe("call_a");
  });

  it("an index with nothing new is the same (no re-render for each streamed delta)", () => {
    const events = [ev("subagent.started", { childRunId: A, name: "r" }), ev("text.started", { messageId: "m-a", subagentRunId: A })];
    const more = [...events, ev("text.delta", { messageId: "m-a", subagentRunId: A, delta: "hi" })];
    expect(sameIndex(indexSubagents(events, []), indexSubagents(more, []))).toBe(true);
    expect(sameIndex(indexSubagents(events, []), indexSubagents([...more, ev("subagent.ended", { childRunId: A, outcome: "success" })], []))).toBe(false);
  });

  it("a child's status: its own end first, else what became of its parent's call", () => {
    const run = { childRunId: A, parentToolCallId: "call_a" };
    expect(subagentStatus({ ...run, outcome: "success" }, "Running")).toBe("done");
    expect(subagentStatus({ ...run, outcome: "suspended" }, "Running")).toBe("waiting");
    expect(subagentStatus({ ...run, outcome: "cancelled" }, "Complete")).toBe("cancelled");
    expect(subagentStatus({ ...run, outcome: "failed" }, "Running")).toBe("failed");
    expect(subagentStatus(run, "Running")).toBe("working");
    expect(subagentStatus(undefined, "Complete")).toBe("done");
    expect(subagentStatus(run, "Failed")).toBe("failed");
    expect(subagentStatus(run, "Not run")).toBe("cancelled");
    expect(subagentStatus(run, "Awaiting approval")).toBe("waiting");
  });
});
