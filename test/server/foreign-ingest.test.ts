/**
 * The ingestion rules for a foreign AG-UI stream (server/engine/foreign/), one by one: a scripted
 * remote (a real HTTP server answering what each test sets) behind remoteAgent, a real server and
 * store, and the real @ag-ui/client 1.0.0 and 0.0.59 reading what Threadline made of it.
 */
import { FOREIGN_EVENT_MAX_BYTES, UNKNOWN_EVENT_SOURCE } from "../../protocol/events.ts";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Message } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentCapabilities } from "../../server/agents/capabilities.ts";
import { AgentDefinitionError } from "../../server/agents/define.ts";
import { REMOTE_EVENT_MAX_BYTES } from "../../server/agents/remote-endpoint.ts";
import { remoteAgent } from "../../server/agents/remote-agent.ts";
import { ForeignIds } from "../../server/engine/foreign/ids.ts";
import { SseEvents } from "../../server/engine/foreign/remote-stream.ts";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
import { postSse } from "../support/sse-client.ts";
import { terminals } from "../support/frame-checks.ts";

interface Script {
  status?: number;
  contentType?: string;
  /** Written one by one (a write may end mid-line: the reader must join them). */
  writes?: string[];
  /** Never answer (no status line): the connect timeout's case. */
  holdHeaders?: boolean;
}

const crlf = (events: unknown[]) => events.map((e) => `data: ${JSON.stringify(e)}\r\n\r\n`).join("");
const user = (id: string, content: string): Message => ({ id, role: "user", content });

/** What every normalising case streams: chunks, unknown types, a span left open, state. */
const MIXED = [
  { type: "RUN_STARTED", threadId: "their-thread", runId: "their-run" },
  { type: "TEXT_MESSAGE_CHUNK", messageId: "m", role: "assistant", delta: "Hel" },
  { type: "TEXT_MESSAGE_CHUNK", delta: "lo" },
  { type: "CUSTOM", name: "progress", value: 1 },
  { type: "FUTURE_THING", anything: true },
  { type: "MESSAGES_SNAPSHOT", messages: [] },
  { type: "STEP_STARTED", stepName: "think" },
  { type: "TOOL_CALL_CHUNK", toolCallId: "c1", toolCallName: "lookup", parentMessageId: "m", delta: '{"q":' },
  { type: "TOOL_CALL_CHUNK", toolCallId: "c1", delta: '"x"}' },
  { type: "TOOL_CALL_RESULT", messageId: "r1", toolCallId: "c1", content: "found" },
  { type: "TEXT_MESSAGE_START", messageId: "m2", role: "assistant" },
  { type: "TEXT_MESSAGE_CONTENT", messageId: "m2", delta: "Done" },
  { type: "STATE_SNAPSHOT", snapshot: { a: 1 } },
  { type: "STATE_DELTA", delta: [{ op: "add", path: "/b", value: 2 }] },
  { type: "RUN_FINISHED", threadId: "their-thread", runId: "their-run" },
];

describe.each(backends())("foreign stream ingestion on %s", (backend) => {
  let script: Script = {};
  let remote: Server;
  let remoteUrl: string;
  let server: TestServer;
  beforeAll(async () => {
    remote = createServer((req, res) => {
      req.resume();
      req.on("end", async () => {
        const s = script;
        if (s.holdHeaders) return;
        res.writeHead(s.status ?? 200, { "content-type": s.contentType ?? "text/event-stream" });
        for (const w of s.writes ?? []) {
          res.write(w);
          await new Promise((r) => setImmediate(r));
        }
        res.end();
      });
    });
    remote.listen(0, "127.0.0.1");
    await once(remote, "listening");
    remoteUrl = `http://127.0.0.1:${(remote.address() as AddressInfo).port}/agent`;
    server = await startTestServer({
      backend,
      agents: [remoteAgent({ id: "scripted", url: remoteUrl }), remoteAgent({ id: "hasty", url: remoteUrl, timeouts: { connectMs: 300 } })],
    });
  });
  afterAll(async () => {
    await server?.close();
    remote?.closeAllConnections();
    remote?.close();
  });

  const run = async (threadId: string, runId: string, agent = "scripted") =>
    (await postSse(`${server.url}/api/agents/${agent}/run`, { threadId, runId, messages: [user(`u-${runId}`, "hi")], state: {}, tools: [], context: [] })).done;
  const thread = async (threadId: string) =>
    (await (await fetch(`${server.url}/api/threads/${threadId}`)).json()) as { status: string; messages: Message[]; state: unknown };

  it.each(CLIENT_VERSIONS)("CRLF framing cut mid-line, chunks, dropped types and an open span make a run @ag-ui/client %s accepts", async (version) => {
    const body = crlf(MIXED);
    script = { writes: [body.slice(0, 7), body.slice(7, 301), body.slice(301)] };
    const threadId = `mixed-${version}`;
    const out = await runClient(version, { url: `${server.url}/api/agents/scripted/run`, input: { threadId, runId: "r1", messages: [user("u1", "hi")] } });
    expect(out.error?.message).toBeUndefined();
    expect(out.failed).toBe(false);
    const types = out.events.map((e) => e.type);
    // Kept (ingest.ts): CUSTOM as it came, a type AG-UI does not define as RAW, even mid-message;
    // dropped: the known types the log has no place for.
    expect(out.events.filter((e) => e.type === "CUSTOM" || e.type === "RAW")).toMatchObject([
      { type: "CUSTOM", name: "progress", value: 1 },
      { type: "RAW", event: { type: "FUTURE_THING", anything: true }, source: UNKNOWN_EVENT_SOURCE },
    ]);
    expect(types).not.toContain("STEP_STARTED");
    expect(types).not.toContain("MESSAGES_SNAPSHOT");
    expect(types.filter((t) => t === "TEXT_MESSAGE_END")).toHaveLength(2); // m2's was closed for it
    const saved = await thread(threadId);
    expect(saved.messages.slice(1)).toEqual([
      { id: "m", role: "assistant", content: "Hello", toolCalls: [{ id: "c1", type: "function", function: { name: "lookup", arguments: '{"q":"x"}' } }] },
      { id: "r1", role: "tool", toolCallId: "c1", content: "found" },
      { id: "m2", role: "assistant", content: "Done" },
    ]);
    expect(saved.state).toEqual({ a: 1, b: 2 });
    expect(out.state).toEqual({ a: 1, b: 2 });
  });

  it("a CUSTOM whose record is FOREIGN_EVENT_MAX_BYTES is kept; one byte more is dropped, and the run goes on", async () => {
    // The record's JSON is {"runId":"b1","name":"n","value":"<k x>"}: `around` bytes besides the value.
    const custom = (k: number) => ({ type: "CUSTOM", name: "n", value: "x".repeat(k) });
    const around = JSON.stringify({ runId: "b1", name: "n", value: "" }).length;
    script = {
      writes: [
        crlf([
          { type: "RUN_STARTED", threadId: "t", runId: "b1" },
          custom(FOREIGN_EVENT_MAX_BYTES - around),
          custom(FOREIGN_EVENT_MAX_BYTES - around + 1),
          { type: "RUN_FINISHED", threadId: "t", runId: "b1" },
        ]),
      ],
    };
    const frames = await run("custom-bound", "b1");
    expect(terminals(frames).map((f) => f.event.type)).toEqual(["RUN_FINISHED"]);
    const kept = frames.filter((f) => f.event.type === "CUSTOM").map((f) => (f.event.value as string).length);
    expect(kept).toEqual([FOREIGN_EVENT_MAX_BYTES - around]);
  });

  it("ids a thread already has are rewritten by the one rule; the result names its call's new id", async () => {
    script = { writes: [crlf(MIXED)] };
    await run("ids", "r1");
    await run("ids", "r2");
    const messages = (await thread("ids")).messages.filter((m) => m.role !== "user");
    const suffix = messages[3]!.id.replace(/^m-/, "");
    expect(suffix).toMatch(/^[0-9a-f]{8}$/);
    expect(messages.slice(3).map((m) => m.id)).toEqual([`m-${suffix}`, `r1-${suffix}`, `m2-${suffix}`]);
    const call = (messages[3] as { toolCalls: { id: string }[] }).toolCalls[0]!;
    expect(call.id).toBe(`c1-${suffix}`);
    expect(messages[4]).toMatchObject({ role: "tool", toolCallId: `c1-${suffix}` });
  });

  it("a call to one of the client's tools left without a result leaves the thread waiting for the client's result", async () => {
    script = {
      writes: [
        crlf([
          { type: "RUN_STARTED", threadId: "t", runId: "r" },
          { type: "TOOL_CALL_START", toolCallId: "ask-1", toolCallName: "confirm", parentMessageId: "p" },
          { type: "TOOL_CALL_ARGS", toolCallId: "ask-1", delta: "{}" },
          { type: "TOOL_CALL_END", toolCallId: "ask-1" },
          { type: "RUN_FINISHED", threadId: "t", runId: "r" },
        ]),
      ],
    };
    const tools = [{ name: "confirm", description: "Asks the user to confirm.", parameters: { type: "object", properties: {} } }];
    const frames = await (await postSse(`${server.url}/api/agents/scripted/run`, { threadId: "frontend", runId: "r1", messages: [user("u1", "hi")], state: {}, tools, context: [] })).done;
    expect(terminals(frames).map((f) => f.event.type)).toEqual(["RUN_FINISHED"]);
    const suspended = (await server.store.read("frontend")).find((e) => e.type === "workflow.suspended");
    expect(suspended?.data).toMatchObject({ reason: "frontend_tool", pendingToolCallIds: ["ask-1"] });
    expect((await thread("frontend")).messages.at(-1)).toEqual({ id: "p", role: "assistant", toolCalls: [{ id: "ask-1", type: "function", function: { name: "confirm", arguments: "{}" } }] });
  });

  it.each([
    ["a STATE_DELTA that does not apply", [{ type: "STATE_DELTA", delta: [{ op: "remove", path: "/nope" }] }], /STATE_DELTA that does not apply/],
    ["arguments of a call never started", [{ type: "TOOL_CALL_ARGS", toolCallId: "ghost", delta: "{}" }], /TOOL_CALL_ARGS for tool call "ghost"/],
    ["an event that is not JSON", ["{not json"], /not JSON/],
    ["an event without a type", [{ delta: "x" }], /without a string `type`/],
  ])("%s ends the run REMOTE_MALFORMED, keeping the text it finished", async (name, bad, message) => {
    const head = crlf([{ type: "RUN_STARTED", threadId: "t", runId: "r" }, { type: "TEXT_MESSAGE_START", messageId: "ok" }, { type: "TEXT_MESSAGE_CONTENT", messageId: "ok", delta: "kept" }, { type: "TEXT_MESSAGE_END", messageId: "ok" }]);
    const tail = bad.map((e) => `data: ${typeof e === "string" ? e : JSON.stringify(e)}\n\n`).join("");
    script = { writes: [head + tail + crlf([{ type: "RUN_FINISHED", threadId: "t", runId: "r" }])] };
    const threadId = `malformed-${name.replaceAll(" ", "-")}`;
    const ends = terminals(await run(threadId, "r1"));
    expect(ends.map((f) => f.event.code)).toEqual(["REMOTE_MALFORMED"]);
    expect(String(ends[0]!.event.message)).toMatch(message);
    const saved = await thread(threadId);
    expect(saved.status).toBe("FAILED");
    expect(saved.messages.at(-1)).toEqual({ id: "ok", role: "assistant", content: "kept" });
  });

  it.each([
    ["in the run after its answer", ["same"], ["same"]],
    ["after a new one, in the run after its answer", ["same"], ["new", "same"]],
    ["twice in one outcome", ["twice", "twice"], undefined],
  ])("an interrupt id asked again (%s) ends the run REMOTE_MALFORMED and is never left in pendingInterrupts", async (name, first, second) => {
    const threadId = `reask-${name.replaceAll(" ", "-")}`;
    const ask = (ids: string[], runId: string) => ({
      writes: [crlf([{ type: "RUN_STARTED", threadId: "t", runId }, { type: "RUN_FINISHED", threadId: "t", runId, outcome: { type: "interrupt", interrupts: ids.map((id) => ({ id, reason: "input_required", message: "Which city?" })) } }])],
    });
    script = ask(first, "r1");
    const asked = terminals(await run(threadId, "r1"));
    if (second === undefined) {
      expect(asked.map((f) => f.event.code)).toEqual(["REMOTE_MALFORMED"]);
      expect(String(asked[0]!.event.message)).toMatch(/asked interrupt "twice" again/);
    } else {
      expect(asked.map((f) => f.event.type)).toEqual(["RUN_FINISHED"]);
      expect((await thread(threadId)) as unknown).toMatchObject({ status: "WAITING", pendingInterrupts: [{ id: "same" }] });
      script = ask(second, "r2");
      const answered = await postSse(`${server.url}/api/agents/scripted/run`, { threadId, runId: "r2", messages: [user("u-r1", "hi")], state: {}, tools: [], context: [], resume: [{ interruptId: "same", status: "resolved", payload: { city: "Paris" } }] });
      const again = terminals(await answered.done);
      expect(again.map((f) => f.event.code)).toEqual(["REMOTE_MALFORMED"]);
      expect(String(again[0]!.event.message)).toMatch(/asked interrupt "same" again/);
    }
    const saved = (await thread(threadId)) as unknown as { status: string; pendingInterrupts: unknown[] };
    expect(saved.status).toBe("FAILED");
    expect(saved.pendingInterrupts).toEqual([]);
    // Nothing the client holds asks it either: a reload's outcome names no interrupt.
    const reload = await (await postSse(`${server.url}/api/agents/scripted/connect`, { threadId })).done;
    expect(JSON.stringify(reload.map((f) => f.event))).not.toContain('"type":"interrupt"');
  });

  it("a response that is not an event stream ends the run REMOTE_MALFORMED", async () => {
    script = { contentType: "text/html", writes: ["<html>login</html>"] };
    const ends = terminals(await run("html", "r1"));
    expect(ends.map((f) => f.event.code)).toEqual(["REMOTE_MALFORMED"]);
    expect(String(ends[0]!.event.message)).toMatch(/content-type "text\/html"/);
  });

  it("a stream that ends without RUN_FINISHED ends the run REMOTE_DISCONNECTED; the open text is kept as far as it came", async () => {
    script = { writes: [crlf([{ type: "RUN_STARTED", threadId: "t", runId: "r" }, { type: "TEXT_MESSAGE_START", messageId: "half" }, { type: "TEXT_MESSAGE_CONTENT", messageId: "half", delta: "half an ans" }])] };
    const frames = await run("cut", "r1");
    expect(terminals(frames).map((f) => f.event.code)).toEqual(["REMOTE_DISCONNECTED"]);
    expect(frames.map((f) => f.event.type)).toContain("TEXT_MESSAGE_END");
    expect((await thread("cut")).messages.at(-1)).toEqual({ id: "half", role: "assistant", content: "half an ans" });
  });

  it("an event one byte over REMOTE_EVENT_MAX_BYTES ends the run REMOTE_MALFORMED; one at the bound is taken", async () => {
    // The data line's bytes plus its line end count: this event's data is exactly at the bound.
    const at = (n: number) => {
      const shell = JSON.stringify({ type: "TEXT_MESSAGE_CONTENT", messageId: "big", delta: "" });
      return `data: ${JSON.stringify({ type: "TEXT_MESSAGE_CONTENT", messageId: "big", delta: "x".repeat(n - shell.length - 1) })}\n\n`;
    };
    const start = crlf([{ type: "RUN_STARTED", threadId: "t", runId: "r" }]);
    const finish = crlf([{ type: "RUN_FINISHED", threadId: "t", runId: "r" }]);
    script = { writes: [start, at(REMOTE_EVENT_MAX_BYTES), finish] };
    expect(terminals(await run("big-ok", "r1")).map((f) => f.event.type)).toEqual(["RUN_FINISHED"]);
    script = { writes: [start, at(REMOTE_EVENT_MAX_BYTES + 1), finish] };
    const ends = terminals(await run("big-over", "r1"));
    expect(ends.map((f) => f.event.code)).toEqual(["REMOTE_MALFORMED"]);
    expect(String(ends[0]!.event.message)).toMatch(/larger than 1048576 bytes/);
  });

  it("a remote that never answers ends the run REMOTE_TIMEOUT at connectMs", async () => {
    script = { holdHeaders: true };
    const ends = terminals(await run("hold", "r1", "hasty"));
    expect(ends.map((f) => f.event.code)).toEqual(["REMOTE_TIMEOUT"]);
    expect(String(ends[0]!.event.message)).toMatch(/did not answer within 300 ms/);
  });
});

describe("remoteAgent definition", () => {
  it.each([
    [{ url: "ftp://example.com/agent" }, /url/],
    [{ url: "not a url" }, /url/],
    [{ url: "http://x/agent", timeouts: { readMs: 0 } }, /timeouts\.readMs/],
    [{ url: "http://x/agent", timeouts: { connectMs: 60 * 60 * 1000 + 1 } }, /timeouts\.connectMs/],
  ])("refuses %j", (input, reason) => {
    expect(() => remoteAgent({ id: "r", ...input })).toThrow(AgentDefinitionError);
    expect(() => remoteAgent({ id: "r", ...input })).toThrow(reason);
  });

  it("declares itself remote, with the remote's deltas and interrupts", () => {
    const caps = agentCapabilities(remoteAgent({ id: "r", url: "https://agents.example/run" }), null);
    expect(caps.identity).toMatchObject({ name: "r", type: "remote" });
    expect(caps.state?.deltas).toBe(true);
    expect(caps.humanInTheLoop).toMatchObject({ interrupts: true, approvals: false });
  });

  it("is an agent whose runs recovery fails rather than re-sends", () => {
    const agent = remoteAgent({ id: "r", url: "https://agents.example/run" });
    expect(agent).toMatchObject({ id: "r", onRecovery: "fail", remote: { url: "https://agents.example/run", headers: {}, timeouts: { connectMs: 30_000, readMs: 120_000 } } });
  });
});

describe("SseEvents", () => {
  it("reads LF, CRLF and CR line ends, a CRLF split between two reads, multi-line data, comments and other fields", () => {
    const r = new SseEvents();
    expect(r.push(": hello\r")).toEqual([]);
    expect(r.push("\nevent: x\r\nid: 3\r\ndata: a\r\ndata: b\r")).toEqual([]);
    expect(r.push("\n\r\n")).toEqual(["a\nb"]);
    expect(r.push("data: c\r\rdata:d\n\n")).toEqual(["c", "d"]);
    expect(r.push("data: e")).toEqual([]);
    expect(r.push("\n\n")).toEqual(["e"]);
  });
});

describe("ForeignIds", () => {
  const conversation: Message[] = [
    user("msg-1", "hi"),
    { id: "a1", role: "assistant", toolCalls: [{ id: "call-1", type: "function", function: { name: "f", arguments: "{}" } }] },
    { id: "t1", role: "tool", toolCallId: "call-1", content: "ok" },
  ];

  it("keeps fresh ids, rewrites taken ones the same way every time within a run", () => {
    const ids = new ForeignIds("run-7", conversation);
    expect(ids.of("fresh")).toBe("fresh");
    const rewritten = ids.of("msg-1");
    expect(rewritten).toMatch(/^msg-1-[0-9a-f]{8}$/);
    expect(ids.of("msg-1")).toBe(rewritten);
    expect(ids.of("call-1")).toMatch(/^call-1-[0-9a-f]{8}$/);
    // The same run and conversation give the same ids (another instance reading the rule).
    expect(new ForeignIds("run-7", conversation).of("msg-1")).toBe(rewritten);
    expect(new ForeignIds("run-8", conversation).of("msg-1")).not.toBe(rewritten);
  });

  it("never hands out an id twice, even when the rewritten form is taken too", () => {
    const ids = new ForeignIds("run-7", conversation);
    const first = ids.of("msg-1");
    // A foreign agent that happens to name the id the rule gave another of its ids gets its own.
    expect(ids.of(first)).not.toBe(first);
    expect(ids.of(first)).not.toBe(ids.of("msg-1"));
    const taken = new ForeignIds("run-7", [...conversation, user(first, "x")]);
    expect(taken.of("msg-1")).toBe(`${first}-2`);
  });
});
