/**
 * What became of each tool call (protocol/tool-status.ts), read from hand-built logs: each of the
 * seven states, and a property over random logs: nothing is running on a settled thread, a call
 * with a result is never awaiting or running, awaiting only on a WAITING thread, and a fold
 * resumed from a checkpoint (through JSON, as a reload reads it) says the same as the whole log.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { FoldState } from "../../protocol/checkpoint.ts";
import { reconstruct, Reconstructor } from "../../protocol/reconstruct.ts";
import { Log, user } from "./log.ts";

const email = { id: "tc1", name: "send_email", args: '{"to":"team@example.com"}' };
const plan = { id: "tc2", name: "run_plan", args: '{"goal":"launch"}' };
const paint = { id: "tc3", name: "change_background", args: '{"background":"red"}' };

function asks(log: Log, runId: string, callId: string, kind: "approval" | "input" = "approval"): Log {
  log.add({
    type: "interrupt.requested",
    data: { runId, interruptId: `int-${callId}`, kind, toolCallId: callId, toolName: "send_email", parentMessageId: "a1", reason: "tool_call" },
  });
  return log.add({ type: "workflow.suspended", data: { runId, reason: kind === "approval" ? "approval" : "interrupt", pendingToolCallIds: [], interruptIds: [`int-${callId}`] } });
}

function answers(log: Log, runId: string, callId: string, status: "resolved" | "cancelled", via: "resume" | "superseded" | "expired" = "resume"): Log {
  return log.add({ type: "interrupt.resolved", data: { runId, interruptId: `int-${callId}`, status, via, ...(status === "resolved" && { payload: { approved: true } }) } });
}

function emailWaiting(): Log {
  const log = new Log().created().run("r1", { messages: [user("u1", "Email the team")] }).assistant("r1", "a1", undefined, [email]).task("r1", "k1", "send_email", "tc1");
  return asks(log, "r1", "tc1");
}

describe("tool call status from the log", () => {
  it("an email waiting for its approval is awaiting_approval, not complete", () => {
    const snap = reconstruct(emailWaiting().events);
    expect(snap.status).toBe("WAITING");
    expect(snap.toolCalls.tc1).toEqual({ name: "send_email", status: "awaiting_approval" });
  });

  it("a question the tool asked is awaiting_input", () => {
    const log = new Log().created().run("r1").assistant("r1", "a1", undefined, [email]).task("r1", "k1", "send_email", "tc1");
    expect(reconstruct(asks(log, "r1", "tc1", "input").events).toolCalls.tc1?.status).toBe("awaiting_input");
  });

  it("approved: running in the run that carries the answer, complete with its result", () => {
    const log = emailWaiting().run("r2", { start: false });
    answers(log, "r2", "tc1", "resolved").add({ type: "workflow.started", data: { runId: "r2" } });
    expect(reconstruct(log.events).toolCalls.tc1?.status).toBe("running");
    log.task("r2", "k2", "send_email", "tc1").toolResult("r2", "tr1", "tc1", '{"sent":true}').taskDone("r2", "k2").suspended("r2");
    expect(reconstruct(log.events).toolCalls.tc1).toEqual({ name: "send_email", status: "complete", result: '{"sent":true}' });
  });

  it("denied: never ran, and says why", () => {
    const log = emailWaiting().run("r2", { start: false });
    answers(log, "r2", "tc1", "resolved").add({ type: "workflow.started", data: { runId: "r2" } });
    log.task("r2", "k2", "send_email", "tc1");
    log.add({ type: "message.appended", data: { runId: "r2", source: "agent", message: { id: "tr1", role: "tool", toolCallId: "tc1", content: '{"error":"denied"}', error: "denied" } } });
    log.taskFailed("r2", "k2", "DENIED", "denied").suspended("r2");
    expect(reconstruct(log.events).toolCalls.tc1).toMatchObject({ status: "never_run", reason: "denied" });
  });

  it("a newer message instead of an answer: the interrupt is closed, the call cancelled as superseded", () => {
    const log = emailWaiting().run("r2", { start: false, messages: [] });
    answers(log, "r2", "tc1", "cancelled", "superseded");
    log.add({ type: "message.appended", data: { runId: "r2", source: "input", message: user("u2", "Never mind") } }).add({ type: "workflow.started", data: { runId: "r2" } });
    expect(reconstruct(log.events).toolCalls.tc1).toEqual({ name: "send_email", status: "cancelled", reason: "superseded" });
    // The engine then records a result that tells the model so: still cancelled, not denied.
    log.task("r2", "k2", "send_email", "tc1").toolResult("r2", "tr1", "tc1", '{"approval":"denied"}').taskFailed("r2", "k2", "DENIED").suspended("r2");
    expect(reconstruct(log.events).toolCalls.tc1).toMatchObject({ status: "cancelled", reason: "superseded" });
  });

  it("a plan cancelled while it runs is cancelled; a frontend call left unanswered by the next message never ran", () => {
    const log = new Log().created().run("r1", { messages: [user("u1", "Plan")] }).assistant("r1", "a1", undefined, [plan]).task("r1", "k1", "run_plan", "tc2");
    expect(reconstruct(log.events).toolCalls.tc2?.status).toBe("running");
    log.cancelled("r1");
    expect(reconstruct(log.events).toolCalls.tc2).toEqual({ name: "run_plan", status: "cancelled", reason: "run_cancelled" });

    const fe = new Log().created().run("r1", { messages: [user("u1", "Paint")] }).assistant("r1", "a1", undefined, [paint]).suspended("r1", "frontend_tool", ["tc3"]);
    expect(reconstruct(fe.events).toolCalls.tc3?.status).toBe("awaiting_input");
    fe.run("r2", { messages: [user("u2", "Something else")] }).assistant("r2", "a2", "Sure.").suspended("r2");
    expect(reconstruct(fe.events).toolCalls.tc3).toEqual({ name: "change_background", status: "never_run", reason: "not_run" });
  });
});

type Step = "result" | "error" | "ask" | "approve" | "deny" | "supersede" | "cancel" | "fail" | "frontend" | "answerFrontend";

/** A random log: runs that each propose a call and end in one of the ways a run ends. */
function logOf(steps: Step[]): Log {
  const log = new Log().created();
  let run = 0;
  let waitingAsk: string | undefined;
  let waitingFrontend: string | undefined;
  for (const step of steps) {
    const r = `r${++run}`;
    const call = { id: `c${run}`, name: "tool", args: "{}" };
    if (waitingAsk && (step === "approve" || step === "deny" || step === "supersede")) {
      log.run(r, { start: false });
      answers(log, r, waitingAsk, step === "supersede" ? "cancelled" : "resolved", step === "supersede" ? "superseded" : "resume");
      log.add({ type: "workflow.started", data: { runId: r } });
      // Superseded, as denied, the call gets a result that tells the model it did not run.
      log.task(r, `k${run}`, "tool", waitingAsk).toolResult(r, `t${run}`, waitingAsk, "{}");
      if (step === "approve") log.taskDone(r, `k${run}`);
      else log.taskFailed(r, `k${run}`, "DENIED");
      log.suspended(r);
      waitingAsk = undefined;
      continue;
    }
    if (waitingFrontend && step === "answerFrontend") {
      log.run(r, { messages: [{ id: `t${run}`, role: "tool", toolCallId: waitingFrontend, content: "{}" }] }).suspended(r);
      waitingFrontend = undefined;
      continue;
    }
    // As admission does: a run that carries no answer closes the question it leaves behind.
    log.run(r, { start: false, messages: [user(`u${run}`, "go")] });
    if (waitingAsk) answers(log, r, waitingAsk, "cancelled", "superseded");
    log.add({ type: "workflow.started", data: { runId: r } }).assistant(r, `a${run}`, undefined, [call]);
    waitingAsk = undefined;
    waitingFrontend = undefined;
    if (step === "frontend") {
      log.suspended(r, "frontend_tool", [call.id]);
      waitingFrontend = call.id;
      continue;
    }
    log.task(r, `k${run}`, "tool", call.id);
    if (step === "result") log.toolResult(r, `t${run}`, call.id, "{}").taskDone(r, `k${run}`).suspended(r);
    else if (step === "error") log.toolResult(r, `t${run}`, call.id, "{}").taskFailed(r, `k${run}`).suspended(r);
    else if (step === "ask") {
      asks(log, r, call.id);
      waitingAsk = call.id;
    } else if (step === "cancel") log.cancelled(r);
    else if (step === "fail") log.failed(r, "UPSTREAM_ERROR", "boom");
    else log.suspended(r);
  }
  return log;
}

const STEPS: Step[] = ["result", "error", "ask", "approve", "deny", "supersede", "cancel", "fail", "frontend", "answerFrontend"];

describe("tool call status: properties over random logs", () => {
  it("settled: nothing running; answered calls are done; awaiting only while WAITING; a checkpoint anywhere agrees", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...STEPS), { minLength: 1, maxLength: 12 }), fc.nat(), (steps, cut) => {
        const log = logOf(steps);
        const snap = reconstruct(log.events);
        const results = new Set(snap.messages.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])));
        for (const [id, call] of Object.entries(snap.toolCalls)) {
          expect(call.status).not.toBe("running"); // every generated run ended
          if (results.has(id)) expect(["complete", "failed", "never_run", "cancelled"]).toContain(call.status);
          if (call.status.startsWith("awaiting")) expect(snap.status).toBe("WAITING");
        }
        // A reload: the checkpoint at some position, through JSON, then the events after it.
        const at = cut % log.events.length;
        const head = new Reconstructor();
        for (const e of log.events.slice(0, at + 1)) head.push(e);
        const resumed = Reconstructor.from({ seq: head.lastSeq, fold: JSON.parse(JSON.stringify(head.toState())) as FoldState });
        for (const e of log.events.slice(at + 1)) resumed.push(e);
        expect(resumed.snapshot().toolCalls).toEqual(snap.toolCalls);
      }),
      { numRuns: 300 },
    );
  });
});
