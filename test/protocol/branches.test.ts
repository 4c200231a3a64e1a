/** Where a client's history leaves the thread's current branch (protocol/branches.ts). */
import type { Message } from "@ag-ui/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isStaleCopy, keptBy, planFork, planParentFork } from "../../protocol/branches.ts";

const u = (id: string, content = `text of ${id}`): Message => ({ id, role: "user", content });
const a = (id: string, content = `answer ${id}`): Message => ({ id, role: "assistant", content });
const tool = (id: string, toolCallId: string): Message => ({ id, role: "tool", toolCallId, content: "42" });
const reasoning = (id: string): Message => ({ id, role: "reasoning", content: "thinking" });

const branch = [u("u1"), a("a1"), u("u2"), a("a2")];

describe("planFork", () => {
  it("the whole history, or the history and new messages: no fork", () => {
    expect(planFork(branch, branch)).toBeNull();
    expect(planFork(branch, [...branch, u("u3")])).toBeNull();
  });

  it("only new messages (a client that keeps no history): no fork", () => {
    expect(planFork(branch, [u("u9")])).toBeNull();
    expect(planFork(branch, [])).toBeNull();
  });

  it("Regenerate (the last assistant turn dropped): keeps through the client's last message", () => {
    expect(planFork(branch, branch.slice(0, 3))).toEqual({ keepThrough: "u2", edit: false });
  });

  it("a truncated history with a new message: keeps through the last message both have", () => {
    expect(planFork(branch, [u("u1"), a("a1"), u("u2b")])).toEqual({ keepThrough: "a1", edit: false });
  });

  it("an edit (same id, other text): keeps what came before the edited message", () => {
    expect(planFork(branch, [u("u1"), a("a1"), u("u2", "changed")])).toEqual({ keepThrough: "a1", edit: true });
    expect(planFork(branch, [u("u1", "changed")])).toEqual({ keepThrough: null, edit: true });
  });

  it("the client's own copy of an assistant message, or missing tool results and reasoning: no fork", () => {
    expect(planFork(branch, [u("u1"), a("a1", "rebuilt from the stream"), u("u2"), a("a2")])).toBeNull();
    const withTools = [u("u1"), reasoning("r1"), { ...a("a1"), toolCalls: [{ id: "c1", type: "function" as const, function: { name: "f", arguments: "{}" } }] }, tool("t1", "c1"), a("a2")];
    expect(planFork(withTools, [withTools[0]!, withTools[2]!, withTools[4]!])).toBeNull();
  });

  it("a frontend tool's result after the waiting call: no fork", () => {
    const waiting = [u("u1"), { ...a("a1"), toolCalls: [{ id: "c1", type: "function" as const, function: { name: "confirm", arguments: "{}" } }] }];
    expect(planFork(waiting, [...waiting, tool("t1", "c1")])).toBeNull();
  });

  it("property: any prefix that drops a user or assistant message forks right after the prefix", () => {
    const msgArb = fc.oneof(
      fc.constant("user" as const),
      fc.constant("assistant" as const),
      fc.constant("tool" as const),
      fc.constant("reasoning" as const),
    );
    fc.assert(
      fc.property(fc.array(msgArb, { minLength: 1, maxLength: 12 }), fc.nat(), (roles, cut) => {
        const msgs: Message[] = roles.map((role, i) =>
          role === "tool" ? tool(`m${i}`, `c${i}`) : role === "reasoning" ? reasoning(`m${i}`) : role === "user" ? u(`m${i}`) : a(`m${i}`),
        );
        const k = 1 + (cut % msgs.length);
        const prefix = msgs.slice(0, k);
        const dropsTurn = msgs.slice(k).some((m) => m.role === "user" || m.role === "assistant");
        const plan = planFork(msgs, prefix);
        expect(plan).toEqual(dropsTurn ? { keepThrough: msgs[k - 1]!.id, edit: false } : null);
        // What the fork keeps, followed by the client's messages after it, is the client's history.
        if (plan) expect(keptBy(msgs, plan.keepThrough)).toEqual(prefix);
      }),
      { numRuns: 300 },
    );
  });
});

describe("isStaleCopy", () => {
  const stale = (incoming: Message[]) => {
    const plan = planFork(branch, incoming);
    return plan !== null && isStaleCopy(plan, branch, incoming);
  };

  it("a copy that missed the newest exchange and says something new: stale", () => {
    expect(stale([u("u1"), a("a1"), u("u3")])).toBe(true);
    expect(stale([u("u1"), u("u3")])).toBe(true);
  });

  it("Regenerate, an edit, a truncated history without a new message: deliberate", () => {
    expect(stale(branch.slice(0, 3))).toBe(false);
    expect(stale([u("u1")])).toBe(false);
    expect(stale([u("u1"), a("a1"), u("u2", "changed")])).toBe(false);
    expect(stale([u("u1", "changed")])).toBe(false);
  });

  it("new messages that are not the user's (a tool result, a system prompt): not stale", () => {
    expect(stale([u("u1"), a("a1"), { id: "s9", role: "system", content: "be brief" }])).toBe(false);
  });
});

describe("planParentFork (AG-UI parentRunId: fork at the run the client names)", () => {
  // The current branch: run1 answered u1 with a1, run2 answered u2 with a2.
  const atRun1 = branch.slice(0, 2);

  it("the history up to the parent run and a new user message: forks after the parent's last message, nothing to restore", () => {
    const incoming = [...atRun1, u("u3")];
    expect(planParentFork(branch, atRun1, incoming)).toEqual({ fork: { keepThrough: "a1", edit: false }, restore: [], base: atRun1 });
    // The same history without a parentRunId is a stale copy: the rule planParentFork lifts.
    expect(isStaleCopy(planFork(branch, incoming)!, branch, incoming)).toBe(true);
  });

  it("no history at all (AG-UI lets a run omit it): the same fork", () => {
    expect(planParentFork(branch, atRun1, [u("u3")])).toEqual({ fork: { keepThrough: "a1", edit: false }, restore: [], base: atRun1 });
  });

  it("a history that holds a message from after the parent run is not explained by it: null, the usual rules decide", () => {
    expect(planParentFork(branch, atRun1, [...atRun1, u("u2"), u("u3")])).toBeNull();
    expect(planParentFork(branch, atRun1, [...branch, u("u3")])).toBeNull();
  });

  it("the parent run is the branch's head: no fork", () => {
    expect(planParentFork(branch, branch, [...branch, u("u3")])).toEqual({ fork: null, restore: [], base: branch });
  });

  it("within the parent's conversation, regenerate and edit still apply", () => {
    expect(planParentFork(branch, atRun1, [u("u1")])).toEqual({ fork: { keepThrough: "u1", edit: false }, restore: [], base: [u("u1")] });
    expect(planParentFork(branch, atRun1, [u("u1", "changed")])).toEqual({ fork: { keepThrough: null, edit: true }, restore: [], base: [] });
  });

  it("a parent run on a branch left behind: the fork keeps what both share, and restores the rest as the log has it", () => {
    // main was u1 a1 u2 a2; an edit of u2 forked after a1 and the new branch went on with u2' a3.
    const current = [u("u1"), a("a1"), u("u2", "edited"), a("a3")];
    const incoming = [u("u1"), a("a1"), u("u2"), a("a2", "the client's copy"), u("u4")];
    expect(planParentFork(current, branch, incoming)).toEqual({ fork: { keepThrough: "a1", edit: false }, restore: [u("u2"), a("a2")], base: branch });
  });
});
