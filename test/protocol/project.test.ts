/**
 * The projection, event by event, over hand-built logs. Frames are summarised as
 * "<id> <TYPE> <the id it is about>" so each expectation reads like the stream itself.
 */
import { describe, expect, it } from "vitest";
import type { AGUIEvent } from "@ag-ui/core";
import type { Frame } from "../../protocol/frames.ts";
import { framesAfter, project, Projector } from "../../protocol/project.ts";
import { Log, toolMessage, user } from "./log.ts";
import { scenario } from "./scenarios.ts";

function about(e: AGUIEvent): string {
  const x = e as unknown as Record<string, unknown>;
  const k = x.messageId ?? x.toolCallId ?? x.stepName ?? x.runId ?? x.code ?? x.name;
  return k === undefined ? "" : ` ${String(k)}`;
}
const summary = (frames: Frame[]) => frames.map((f) => `${f.id} ${f.event.type}${about(f.event)}`);
const at = (frames: Frame[], type: string) => frames.find((f) => f.event.type === type)!.event as unknown as Record<string, unknown>;
const seqOf = (log: Log, type: string) => log.events.find((e) => e.type === type)!.seq;

describe("plain chat", () => {
  const { log } = scenario("plain chat");
  const frames = project(log.events);

  it("yields nothing before the run starts, then RUN_STARTED and the state, the streamed text, RUN_FINISHED", () => {
    expect(summary(frames)).toEqual([
      "5.0 RUN_STARTED r1",
      "5.1 STATE_SNAPSHOT",
      "6 STEP_STARTED llm-1",
      "7 TEXT_MESSAGE_START a1",
      "8 TEXT_MESSAGE_CONTENT a1",
      "9 TEXT_MESSAGE_CONTENT a1",
      "10 TEXT_MESSAGE_CONTENT a1",
      "11 TEXT_MESSAGE_END a1",
      // 12: message.appended of a1, already streamed: nothing. 13: usage: nothing.
      "14 STEP_FINISHED llm-1",
      "15 RUN_FINISHED r1",
    ]);
  });

  it("echoes the run's input in RUN_STARTED.input and sums usage into RUN_FINISHED", () => {
    expect(at(frames, "RUN_STARTED")).toMatchObject({
      threadId: "thread-1",
      runId: "r1",
      input: { threadId: "thread-1", runId: "r1", messages: [user("u1", "Hi")], tools: [], context: [], state: {} },
    });
    expect(at(frames, "TEXT_MESSAGE_START")).toMatchObject({ role: "assistant" });
    expect(at(frames, "RUN_FINISHED")).toEqual({
      type: "RUN_FINISHED",
      threadId: "thread-1",
      runId: "r1",
      usage: [{ model: "demo", inputTokens: 12, outputTokens: 3, totalTokens: 15 }],
      timestamp: log.events.at(-1)!.at,
    });
  });
});

describe("tools", () => {
  it("a backend tool call: START/ARGS/END under its message, its result with its own messageId, then the answer", () => {
    const { log } = scenario("backend tool call with result and follow-up answer");
    const frames = project(log.events);
    expect(at(frames, "TOOL_CALL_START")).toMatchObject({ toolCallId: "tc1", toolCallName: "get_weather", parentMessageId: "a1" });
    expect(at(frames, "TOOL_CALL_RESULT")).toMatchObject({ messageId: "tr1", toolCallId: "tc1", content: '{"temperature":20}', role: "tool" });
    expect(at(frames, "CUSTOM")).toMatchObject({ name: "terminal", value: { toolCallId: "tc1", stream: "stdout", data: "fetching\n" } });
    expect(at(frames, "ACTIVITY_SNAPSHOT")).toMatchObject({ messageId: "act1", activityType: "progress", content: { pct: 10 } });
    expect(at(frames, "ACTIVITY_DELTA")).toMatchObject({ messageId: "act1", patch: [{ op: "replace", path: "/pct", value: 100 }] });
    expect(at(frames, "RUN_FINISHED")).toMatchObject({
      result: { answered: true },
      usage: [{ model: "demo", inputTokens: 50, outputTokens: 14, totalTokens: 64 }],
    });
    expect(summary(frames).filter((s) => / STEP_/.test(s)).map((s) => s.split(" ").slice(1).join(" "))).toEqual([
      "STEP_STARTED llm-1", "STEP_FINISHED llm-1", "STEP_STARTED get_weather", "STEP_FINISHED get_weather", "STEP_STARTED llm-2", "STEP_FINISHED llm-2",
    ]);
  });

  it("a frontend tool: the call is streamed, no result, and the run ends with RUN_FINISHED without an outcome", () => {
    const frames = project(scenario("frontend tool suspends the run").log.events);
    expect(summary(frames).slice(-5)).toEqual([
      "7 TOOL_CALL_START tc-bg", "8 TOOL_CALL_ARGS tc-bg", "9 TOOL_CALL_END tc-bg", "11 STEP_FINISHED llm-1", "12 RUN_FINISHED r1",
    ]);
    expect(frames.some((f) => f.event.type === "TOOL_CALL_RESULT")).toBe(false);
    expect(at(frames, "RUN_FINISHED")).not.toHaveProperty("outcome");
  });

  it("the answer to a frontend tool arrives as input of the next run: only in its RUN_STARTED.input", () => {
    const frames = project(scenario("frontend tool answered by the next run").log.events);
    const second = frames.filter((f) => f.event.type === "RUN_STARTED")[1]!.event as unknown as { input: { messages: unknown[] } };
    expect(second.input.messages).toEqual([toolMessage("tr-bg", "tc-bg", "background changed")]);
    expect(frames.some((f) => f.event.type === "TOOL_CALL_RESULT")).toBe(false);
  });

  it("parallel tool calls keep their interleaving, and each result names its call", () => {
    const frames = project(scenario("parallel tool calls").log.events);
    expect(summary(frames).filter((s) => /TOOL_CALL/.test(s))).toEqual([
      "6 TOOL_CALL_START tc1", "7 TOOL_CALL_START tc2", "8 TOOL_CALL_ARGS tc2", "9 TOOL_CALL_ARGS tc1",
      "10 TOOL_CALL_END tc2", "11 TOOL_CALL_END tc1", "17 TOOL_CALL_RESULT tr2", "19 TOOL_CALL_RESULT tr1",
    ]);
  });

  it("a tool result whose content is parts goes out as their text (0.0.59 takes only a string)", () => {
    const log = new Log().created().run("r1").add({
      type: "message.appended",
      data: { runId: "r1", source: "agent", message: { id: "tr", role: "tool", toolCallId: "tc", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] } },
    });
    expect(at(project(log.events), "TOOL_CALL_RESULT")).toMatchObject({ content: "ab" });
  });
});

describe("state", () => {
  it("STATE_SNAPSHOT after RUN_STARTED, then deltas; state.set is a snapshot; a patch that does not apply is dropped", () => {
    const { log } = scenario("state snapshot then deltas");
    const frames = project(log.events);
    const state = frames.filter((f) => f.event.type.startsWith("STATE_")).map((f) => [f.id, f.event] as const);
    expect(state.map(([id, e]) => [id, e.type, "snapshot" in e ? e.snapshot : (e as { delta: unknown }).delta])).toEqual([
      ["5.1", "STATE_SNAPSHOT", { steps: [], count: 0 }],
      ["6", "STATE_DELTA", [{ op: "add", path: "/steps/-", value: "shop" }]],
      ["7", "STATE_DELTA", [{ op: "replace", path: "/count", value: 1 }]],
      ["8", "STATE_SNAPSHOT", { steps: ["bake"], count: 5 }],
      ["10", "STATE_DELTA", [{ op: "add", path: "/done", value: true }]],
    ]);
  });

  it("state changes before a run starts are folded into its first STATE_SNAPSHOT, never sent outside a run", () => {
    const log = new Log()
      .created()
      .add({ type: "state.set", data: { state: { a: 1 } } })
      .add({ type: "state.patched", data: { patch: [{ op: "add", path: "/b", value: 2 }] } })
      .run("r1");
    expect(summary(project(log.events))).toEqual(["5.0 RUN_STARTED r1", "5.1 STATE_SNAPSHOT"]);
    expect(at(project(log.events), "STATE_SNAPSHOT").snapshot).toEqual({ a: 1, b: 2 });
  });
});

describe("reasoning", () => {
  it("a reasoning message opens a reasoning span and a reasoning message with the same id, and closes both", () => {
    const frames = project(scenario("reasoning").log.events);
    expect(summary(frames).filter((s) => /REASONING/.test(s))).toEqual([
      "6.0 REASONING_START rs1", "6.1 REASONING_MESSAGE_START rs1", "7 REASONING_MESSAGE_CONTENT rs1",
      "8 REASONING_MESSAGE_CONTENT rs1", "9.0 REASONING_MESSAGE_END rs1", "9.1 REASONING_END rs1",
    ]);
    expect(at(frames, "REASONING_MESSAGE_START")).toMatchObject({ role: "reasoning" });
  });
});

describe("how runs end", () => {
  it("a failed run closes the open message and step, resyncs to the recorded conversation, then RUN_ERROR, then nothing more", () => {
    const frames = project(scenario("failed run (upstream error) with a message left open").log.events);
    expect(summary(frames).slice(-4)).toEqual([
      "9.0 TEXT_MESSAGE_END a1", "9.1 STEP_FINISHED llm-1", "9.2 MESSAGES_SNAPSHOT", "9.3 RUN_ERROR UPSTREAM_ERROR",
    ]);
    expect(at(frames, "RUN_ERROR")).toMatchObject({ message: "The model provider answered 500", usage: [{ inputTokens: 5 }] });
    expect(at(frames, "RUN_ERROR")).not.toHaveProperty("runId");
  });

  it("cancellation: cancelling sends nothing; cancelled closes everything, resyncs, then RUN_ERROR CANCELLED", () => {
    const { log } = scenario("cancellation");
    const frames = project(log.events);
    expect(frames.filter((f) => f.id.startsWith(`${seqOf(log, "workflow.cancelling")}`))).toEqual([]);
    expect(summary(frames).slice(-5)).toEqual([
      "11.0 TOOL_CALL_END tc1", "11.1 TEXT_MESSAGE_END a1", "11.2 STEP_FINISHED llm-1", "11.3 MESSAGES_SNAPSHOT", "11.4 RUN_ERROR CANCELLED",
    ]);
    expect(at(frames, "RUN_ERROR")).toMatchObject({ code: "CANCELLED", message: "Run cancelled: user pressed stop" });
  });

  it("a run cancelled before it started still answers its client: RUN_STARTED, STATE_SNAPSHOT, RUN_ERROR", () => {
    const frames = project(scenario("run cancelled before it started").log.events);
    expect(summary(frames).slice(-3)).toEqual(["13.0 RUN_STARTED r2", "13.1 STATE_SNAPSHOT", "13.2 RUN_ERROR CANCELLED"]);
  });

  it("a completed run carries its result; a null result is left out", () => {
    expect(at(project(new Log().created().run("r1").completed("r1", { n: 1 }).events), "RUN_FINISHED")).toMatchObject({ result: { n: 1 } });
    expect(at(project(new Log().created().run("r1").completed("r1", null).events), "RUN_FINISHED")).not.toHaveProperty("result");
  });

  it("a second terminal event for a run, and anything later for it, yields nothing", () => {
    const log = new Log().created().run("r1").suspended("r1").completed("r1").add({ type: "text.started", data: { runId: "r1", messageId: "m" } });
    expect(summary(project(log.events))).toEqual(["3.0 RUN_STARTED r1", "3.1 STATE_SNAPSHOT", "4 RUN_FINISHED r1"]);
  });

  it("a run started while another is open ends the old one (RUN_ERROR SUPERSEDED) before RUN_STARTED", () => {
    const log = new Log().created().run("r1").text("r1", "m", ["x"], { end: false }).run("r2");
    expect(summary(project(log.events)).slice(-5)).toEqual([
      "7.0 TEXT_MESSAGE_END m", "7.1 MESSAGES_SNAPSHOT", "7.2 RUN_ERROR SUPERSEDED", "7.3 RUN_STARTED r2", "7.4 STATE_SNAPSHOT",
    ]);
  });
});

describe("recovery", () => {
  it("workflow.resumed closes what the dead worker left open, supersedes it with the durable conversation; the run goes on, RUN_STARTED is not repeated", () => {
    const { log } = scenario("recovered run");
    const frames = project(log.events);
    const resumed = seqOf(log, "workflow.resumed");
    expect(summary(frames.filter((f) => f.id.split(".")[0] === `${resumed}`))).toEqual([
      `${resumed}.0 TEXT_MESSAGE_END a1`,
      `${resumed}.1 STEP_FINISHED llm-1`,
      `${resumed}.2 MESSAGES_SNAPSHOT`,
    ]);
    const snapshot = frames.find((f) => f.event.type === "MESSAGES_SNAPSHOT")!.event as unknown as { messages: { id: string }[] };
    expect(snapshot.messages.map((m) => m.id)).toEqual(["u1"]);
    expect(frames.filter((f) => f.event.type === "RUN_STARTED")).toHaveLength(1);
    expect(summary(frames).slice(-6)).toEqual([
      "10 STEP_STARTED llm-1", "11 TEXT_MESSAGE_START a2", "12 TEXT_MESSAGE_CONTENT a2", "13 TEXT_MESSAGE_END a2",
      "15 STEP_FINISHED llm-1", "16 RUN_FINISHED r1",
    ]);
  });
});

describe("a cut answer continued or withdrawn", () => {
  it("workflow.resumed leaves the messages it continues open; the words past the cut ones go on in them, once", () => {
    const { log } = scenario("cut answer continued after a hand-off");
    const frames = project(log.events);
    const resumed = seqOf(log, "workflow.resumed");
    // Only the cut step closes: no TEXT_MESSAGE_END of a1, no snapshot that would drop it.
    expect(summary(frames.filter((f) => f.id.split(".")[0] === `${resumed}`))).toEqual([`${resumed} STEP_FINISHED llm-1`]);
    expect(frames.filter((f) => f.event.type === "MESSAGES_SNAPSHOT")).toEqual([]);
    const a1 = frames.filter((f) => f.event.type === "TEXT_MESSAGE_CONTENT").map((f) => (f.event as unknown as { delta: string }).delta);
    expect(a1.join("")).toBe("Once upon a time there was a log.");
    expect(frames.filter((f) => f.event.type === "TEXT_MESSAGE_START")).toHaveLength(1);
    expect(frames.filter((f) => f.event.type === "REASONING_START")).toHaveLength(1);
  });

  it("stream.withdrawn closes the continued message and sends the durable conversation without it", () => {
    const { log } = scenario("cut answer withdrawn after a takeover");
    const frames = project(log.events);
    const resumed = seqOf(log, "workflow.resumed");
    const withdrawn = seqOf(log, "stream.withdrawn");
    expect(summary(frames.filter((f) => f.id.split(".")[0] === `${resumed}`))).toEqual([`${resumed} STEP_FINISHED llm-1`]);
    expect(summary(frames.filter((f) => f.id.split(".")[0] === `${withdrawn}`))).toEqual([
      `${withdrawn}.0 TEXT_MESSAGE_END a1`,
      `${withdrawn}.1 MESSAGES_SNAPSHOT`,
    ]);
    const snapshot = at(frames, "MESSAGES_SNAPSHOT") as { messages: { id: string }[] };
    expect(snapshot.messages.map((m) => m.id)).toEqual(["u1"]);
  });
});

describe("several runs and compaction", () => {
  it("each run has its own RUN_STARTED (with only its own input) and snapshot; framesAfter the first run is the second", () => {
    const { log } = scenario("several runs in one thread");
    const frames = project(log.events);
    const runs = frames.filter((f) => f.event.type === "RUN_STARTED").map((f) => f.event as unknown as { runId: string; input: { messages: { id: string }[]; state: unknown } });
    expect(runs.map((r) => [r.runId, r.input.messages.map((m: { id: string }) => m.id), r.input.state])).toEqual([
      ["r1", ["u1"], { n: 1 }],
      ["r2", ["u2"], { n: 2 }],
    ]);
    const second = framesAfter(log.events, `${seqOf(log, "workflow.suspended")}`);
    expect(summary(second)).toEqual([
      "14.0 RUN_STARTED r2", "14.1 STATE_SNAPSHOT", "15 TEXT_MESSAGE_START a2", "16 TEXT_MESSAGE_CONTENT a2",
      "17 TEXT_MESSAGE_END a2", "19 RUN_FINISHED r2",
    ]);
  });

  it("after compaction, an assistant message is sent whole where it was appended: text, then its tool calls", () => {
    const { log } = scenario("backend tool call with result and follow-up answer");
    const compacted = log.compacted();
    const frames = project(compacted);
    const appended = compacted.find((e) => e.type === "message.appended" && e.data.message.id === "a1")!.seq;
    expect(summary(frames.filter((f) => f.id.split(".")[0] === `${appended}`))).toEqual([
      `${appended}.0 TEXT_MESSAGE_START a1`, `${appended}.1 TEXT_MESSAGE_CONTENT a1`, `${appended}.2 TEXT_MESSAGE_END a1`,
      `${appended}.3 TOOL_CALL_START tc1`, `${appended}.4 TOOL_CALL_ARGS tc1`, `${appended}.5 TOOL_CALL_END tc1`,
    ]);
    expect(frames.find((f) => f.event.type === "TOOL_CALL_START")!.event).toMatchObject({ parentMessageId: "a1" });
    expect(frames.find((f) => f.event.type === "TEXT_MESSAGE_CONTENT")!.event).toMatchObject({ delta: "Let me check." });
  });

  it("a message appended by the agent with another role goes out as a text message with that role", () => {
    const log = new Log().created().run("r1").add({ type: "message.appended", data: { runId: "r1", source: "agent", message: user("u9", "steer") } });
    expect(at(project(log.events), "TEXT_MESSAGE_START")).toMatchObject({ messageId: "u9", role: "user" });
  });
});

describe("Projector", () => {
  it("ignores events of a run that is not open, and refuses events of another thread", () => {
    const p = new Projector();
    const log = new Log().created().run("r1").add({ type: "text.started", data: { runId: "other", messageId: "m" } });
    expect(log.events.flatMap((e) => p.push(e)).map((f) => f.event.type)).toEqual(["RUN_STARTED", "STATE_SNAPSHOT"]);
    expect(p.openRunId).toBe("r1");
    const foreign = new Log("thread-2").created().run("r9").events[1]!;
    expect(() => p.push({ ...foreign, seq: 99 })).toThrow(/thread thread-1 was given event 99 of thread thread-2/);
  });
});
