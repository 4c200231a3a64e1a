/**
 * Reconstruction from durable events: what a reload, the REST thread view and the engine read.
 * The centre is the rule that keeps a tool from running on a thread nobody drives: once a thread
 * is WAITING or terminal, no tool call runs.
 */
import { describe, expect, it } from "vitest";
import { reconstruct, reloadCut, messagesSnapshotFrames, snapshotRunFrames } from "../../protocol/reconstruct.ts";
import { assistantMessage, Log, toolMessage, user } from "./log.ts";
import { scenario, scenarios } from "./scenarios.ts";

const lookup = { id: "tc1", name: "lookup", args: "{}" };
const fetchCall = { id: "tc2", name: "fetch", args: "{}" };

describe("tool-call status follows the thread status", () => {
  it("WAITING on a frontend tool: the pending call has no result and awaits the client's answer, not running", () => {
    const snap = reconstruct(scenario("frontend tool suspends the run").log.events);
    expect(snap.status).toBe("WAITING");
    expect(snap.toolCalls).toEqual({ "tc-bg": { name: "change_background", status: "awaiting_input" } });
    expect(snap.messages.map((m) => m.id)).toEqual(["u1", "a1"]);
    expect(snap.state).toEqual({ theme: "light" });
  });

  it("COMPLETED: calls with results are complete and carry them; usage is totalled", () => {
    const snap = reconstruct(scenario("backend tool call with result and follow-up answer").log.events);
    expect(snap.status).toBe("COMPLETED");
    expect(snap.toolCalls).toEqual({ tc1: { name: "get_weather", status: "complete", result: '{"temperature":20}' } });
    expect(snap.messages).toEqual([
      user("u1", "Weather in Paris?"),
      assistantMessage("a1", "Let me check.", [{ id: "tc1", name: "get_weather", args: '{"location":"Paris"}' }]),
      toolMessage("tr1", "tc1", '{"temperature":20}'),
      assistantMessage("a2", "It is 20°C in Paris."),
    ]);
    expect(snap.usage).toEqual({
      total: { inputTokens: 50, outputTokens: 14, totalTokens: 64 },
      byModel: [{ model: "demo", inputTokens: 50, outputTokens: 14, totalTokens: 64 }],
    });
    expect(snap.lastEndedRunId).toBe("r1");
    expect(snap.activeRunId).toBeUndefined();
  });

  it("FAILED: a call whose task failed is failed; one the run never reached never ran", () => {
    const log = new Log()
      .created()
      .run("r1", { messages: [user("u1", "Go")] })
      .assistant("r1", "a1", undefined, [lookup, fetchCall])
      .task("r1", "k1", "lookup", "tc1")
      .taskFailed("r1", "k1")
      .failed("r1", "TOOL_ERROR", "lookup failed");
    const snap = reconstruct(log.events);
    expect(snap.status).toBe("FAILED");
    expect(snap.toolCalls).toEqual({
      tc1: { name: "lookup", status: "failed", reason: "run_failed" },
      tc2: { name: "fetch", status: "never_run", reason: "run_failed" },
    });
  });

  it("a task that failed and was retried successfully leaves its call complete", () => {
    const log = new Log()
      .created()
      .run("r1")
      .assistant("r1", "a1", undefined, [lookup])
      .task("r1", "k1", "lookup", "tc1")
      .taskFailed("r1", "k1")
      .task("r1", "k2", "lookup", "tc1")
      .taskDone("r1", "k2")
      .toolResult("r1", "tr1", "tc1", "ok")
      .suspended("r1");
    expect(reconstruct(log.events).toolCalls.tc1).toEqual({ name: "lookup", status: "complete", result: "ok" });
  });

  it("CANCELLED: nothing runs any more; the streamed but never appended text is not in the conversation", () => {
    const log = new Log()
      .created()
      .run("r1", { messages: [user("u1", "Search")] })
      .assistant("r1", "a1", undefined, [lookup])
      .task("r1", "k1", "lookup", "tc1")
      .text("r1", "a2", ["Partial"], { end: false })
      .cancelled("r1");
    const snap = reconstruct(log.events);
    expect(snap.status).toBe("CANCELLED");
    expect(snap.toolCalls).toEqual({ tc1: { name: "lookup", status: "cancelled", reason: "run_cancelled" } });
    expect(snap.messages.map((m) => m.id)).toEqual(["u1", "a1"]);
  });

  it("RUNNING (and CANCELLING): a call without a result is running; the status of the store can be passed in", () => {
    const log = new Log()
      .created()
      .run("r1", { messages: [user("u1", "Go")] })
      .assistant("r1", "a1", undefined, [lookup])
      .task("r1", "k1", "lookup", "tc1");
    const running = reconstruct(log.events);
    expect(running.status).toBe("RUNNING");
    expect(running.activeRunId).toBe("r1");
    expect(running.toolCalls.tc1).toEqual({ name: "lookup", status: "running" });
    log.add({ type: "workflow.cancelling", data: { runId: "r1" } });
    expect(reconstruct(log.events).toolCalls.tc1?.status).toBe("running");
    // A settled status from the store, ahead of the log read: nothing runs, and nothing ran it.
    expect(reconstruct(log.events, { status: "WAITING" }).toolCalls.tc1?.status).toBe("never_run");
  });
});

describe("the conversation", () => {
  it("upserts a message appended again under its id, in place", () => {
    const log = new Log()
      .created()
      .run("r1", { messages: [user("u1", "Hi")] })
      .assistant("r1", "a1", "Hel")
      .toolResult("r1", "tr1", "tc1", "x")
      .assistant("r1", "a1", "Hello");
    expect(reconstruct(log.events).messages.map((m) => [m.id, m.content])).toEqual([
      ["u1", "Hi"],
      ["a1", "Hello"],
      ["tr1", "x"],
    ]);
  });

  it("as of a position (uptoSeq): the first run of two, with that run's state and status", () => {
    const { log } = scenario("several runs in one thread");
    const firstEnd = log.events.find((e) => e.type === "workflow.suspended")!.seq;
    const snap = reconstruct(log.events, { uptoSeq: firstEnd });
    expect(snap.messages.map((m) => m.id)).toEqual(["u1", "a1"]);
    expect(snap.state).toEqual({ n: 1 });
    expect(snap.status).toBe("WAITING");
    expect(snap.lastSeq).toBe(firstEnd);
  });

  it.each(scenarios().map((s) => [s.name, s] as const))("ignores stream events: the compacted log gives the same snapshot (%s)", (_n, s) => {
    const { lastSeq, lastAt, ...full } = reconstruct(s.log.events);
    const { lastSeq: _s, lastAt: _a, ...compacted } = reconstruct(s.log.compacted());
    expect(compacted).toEqual(full);
    expect(lastSeq).toBeGreaterThan(0);
    expect(lastAt).toBeGreaterThan(0);
  });

  it("an empty log: no status, nothing else", () => {
    const snap = reconstruct([]);
    expect(snap).toMatchObject({ status: null, messages: [], state: undefined, toolCalls: {}, lastSeq: 0 });
    expect(messagesSnapshotFrames(snap)).toEqual([]);
  });
});

describe("reload frames", () => {
  it("one synthetic run: RUN_STARTED, MESSAGES_SNAPSHOT (whole conversation), STATE_SNAPSHOT, RUN_FINISHED, all at the snapshot's position", () => {
    const { log } = scenario("backend tool call with result and follow-up answer");
    const snap = reconstruct(log.events);
    const frames = messagesSnapshotFrames(snap);
    expect(frames.map((f) => [f.id, f.event.type])).toEqual([
      [`${log.lastSeq}`, "RUN_STARTED"],
      [`${log.lastSeq}`, "MESSAGES_SNAPSHOT"],
      [`${log.lastSeq}`, "STATE_SNAPSHOT"],
      [`${log.lastSeq}`, "RUN_FINISHED"],
    ]);
    expect(frames[0]!.event).toMatchObject({ threadId: "thread-1", runId: "r1", timestamp: snap.lastAt });
    expect(frames[1]!.event).toMatchObject({ messages: snap.messages });
    expect(frames[2]!.event).toMatchObject({ snapshot: {} });
  });

  it("tool message content parts are flattened to text for the wire; the snapshot itself keeps them", () => {
    const log = new Log().created().run("r1").add({
      type: "message.appended",
      data: { runId: "r1", source: "agent", message: { id: "tr", role: "tool", toolCallId: "tc", content: [{ type: "text", text: "a" }] } },
    });
    const snap = reconstruct(log.events);
    expect(snap.messages[0]).toMatchObject({ content: [{ type: "text", text: "a" }] });
    expect(messagesSnapshotFrames(snap)[1]!.event).toMatchObject({ messages: [{ id: "tr", content: "a" }] });
    expect(messagesSnapshotFrames(snap)[0]!.event).toMatchObject({ runId: `snapshot-${log.lastSeq}` });
  });

  it("reloadCut: a settled thread is all snapshot; an open run is cut just before it started", () => {
    const settled = scenario("several runs in one thread").log;
    expect(reloadCut(settled.events)).toEqual({ snapshotUpto: settled.lastSeq });
    const open = new Log().created().run("r1").text("r1", "a1", ["x"], { end: false });
    const started = open.events.find((e) => e.type === "workflow.started")!.seq;
    expect(reloadCut(open.events)).toEqual({ snapshotUpto: started - 1, openRunId: "r1" });
    expect(snapshotRunFrames(open.events, started - 1).map((f) => f.id)).toEqual(Array(4).fill(`${started - 1}`));
  });
});
