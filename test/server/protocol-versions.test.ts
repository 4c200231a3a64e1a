/**
 * What a client gets depends on what it declares (protocol/versions.ts), through the real
 * clients: @ag-ui/client 1.0.0 (declares protocolVersion "1.0") gets 1.0's forms and accepts
 * them; 0.0.59 (declares nothing) gets the frames it always got and accepts them. Replay through
 * /connect with the same declaration gives the same frames as the live stream. Also: protobuf
 * only for a 1.x declaration (decoded with @ag-ui/proto 1.0), capabilities at GET /api/agents/:id
 * and in CopilotKit's /info, and the admission refusals (400, nothing written).
 */
import { decode } from "@ag-ui/proto";
import { LLMock } from "@copilotkit/aimock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { approvalsAgent } from "../../server/agents/approvals-agent.ts";
import { defineAgent, defineTool } from "../../server/agents/define.ts";
import { runClient } from "../support/agui-clients.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
import { postSse } from "../support/sse-client.ts";
import { gatedAgent, lastUserText } from "./support.ts";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const PROTO = "application/vnd.ag-ui.event+proto";

const chart = defineTool({
  name: "draw_chart",
  description: "Draws a chart.",
  inputSchema: z.object({ title: z.string() }),
  execute: ({ title }) => ({ content: [{ type: "text", text: `chart: ${title}` }, { type: "image", data: PNG, mimeType: "image/png" }] }),
});
const imager = defineAgent({ id: "imager", instructions: "Test agent.", tools: [chart] });
const changeBackground = { name: "change_background", description: "Browser tool.", parameters: { type: "object", properties: { color: { type: "string" } } } };

async function startUpstream() {
  const mock = new LLMock({ port: 0, host: "127.0.0.1", latency: 0, logLevel: "silent" });
  mock.addFixtures([
    // A tool result anywhere in the request: the turn after a tool (an image result is followed by
    // a user message carrying the image, so the result is not always last).
    { match: { predicate: (req) => req.messages.some((m) => m.role === "tool") }, response: { content: "done" } },
    { match: { predicate: (req) => lastUserText(req).includes("one step") }, response: { toolCalls: [{ name: "slow_step", arguments: '{"label":"only"}', id: "call-only" }] } },
    { match: { predicate: (req) => lastUserText(req).includes("draw") }, response: { toolCalls: [{ name: "draw_chart", arguments: '{"title":"sales"}', id: "call-draw" }] } },
    { match: { predicate: (req) => lastUserText(req).includes("paint") }, response: { toolCalls: [{ name: "change_background", arguments: '{"color":"blue"}', id: "call-paint" }] } },
    { match: { predicate: () => true }, response: { content: "hello" } },
  ]);
  const base = await mock.start();
  return { mock, url: `${base.replace(/\/$/, "")}/v1` };
}

let n = 0;
const ids = (label: string) => ({ threadId: `t-${label}-${++n}`, runId: `r-${label}-${n}` });
const say = (text: string) => [{ id: `u-${++n}`, role: "user" as const, content: text }];

describe.each(backends())("protocol versions on %s", (backend) => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let server: TestServer;
  const gated = gatedAgent();
  beforeAll(async () => {
    upstream = await startUpstream();
    server = await startTestServer({ backend, llmUrl: upstream.url, agents: [imager, gated.agent, approvalsAgent()] });
  });
  afterAll(async () => {
    gated.release.open();
    await server?.close();
    await upstream?.mock.stop();
  });
  const runUrl = (agent: string) => `${server.url}/api/agents/${agent}/run`;

  it("a cancel: 1.0 gets RUN_FINISHED{outcome cancelled}, 0.0.59 RUN_ERROR CANCELLED, each accepted", async () => {
    for (const version of ["1.0.0", "0.0.59"] as const) {
      const { threadId, runId } = ids(`cancel-${version}`);
      const started = gated.started.next();
      const outcome = runClient(version, { url: runUrl("gated"), input: { threadId, runId, messages: say("one step") } });
      await started;
      expect((await fetch(`${server.url}/api/threads/${threadId}/cancel`, { method: "POST" })).status).toBe(200);
      const run = await outcome;
      const first = run.events[0]!;
      const last = run.events.at(-1)!;
      if (version === "1.0.0") {
        expect(run.failed, run.error?.message).toBe(false);
        expect(first).toMatchObject({ type: "RUN_STARTED", protocolVersion: "1.0" });
        expect(last).toMatchObject({ type: "RUN_FINISHED", runId, outcome: { type: "cancelled" } });
      } else {
        expect(first.type).toBe("RUN_STARTED");
        expect(first).not.toHaveProperty("protocolVersion");
        // The client applied the terminal frame (it parsed and verified it); RUN_ERROR fails the run.
        expect(last).toMatchObject({ type: "RUN_ERROR", code: "CANCELLED" });
        expect(run.error?.message ?? "").not.toMatch(/Cannot send|invalid|Zod/i);
      }
    }
  });

  it("a tool's image: content parts for 1.0 (in TOOL_CALL_RESULT and the conversation), text for 0.0.59", async () => {
    for (const version of ["1.0.0", "0.0.59"] as const) {
      const { threadId, runId } = ids(`image-${version}`);
      const run = await runClient(version, { url: runUrl("imager"), input: { threadId, runId, messages: say("draw it") } });
      expect(run.failed, run.error?.message).toBe(false);
      const result = run.events.find((e) => e.type === "TOOL_CALL_RESULT")!;
      const tool = run.messages.find((m) => m.role === "tool")!;
      if (version === "1.0.0") {
        const parts = [{ type: "text", text: "chart: sales" }, { type: "image", source: { type: "data", value: PNG, mimeType: "image/png" } }];
        expect(result.content).toEqual(parts);
        expect(tool.content).toEqual(parts);
      } else {
        expect(result.content).toBe("chart: sales");
        expect(tool.content).toBe("chart: sales");
      }
      // The thread view keeps the parts whatever the client spoke: the app's tool card reads its images there.
      const view = (await (await fetch(`${server.url}/api/threads/${threadId}`)).json()) as { messages: Array<{ role: string; toolCallId?: string; content: unknown }> };
      expect(view.messages.find((m) => m.role === "tool" && m.toolCallId === "call-draw")?.content).toEqual([
        { type: "text", text: "chart: sales" },
        { type: "image", source: { type: "data", value: PNG, mimeType: "image/png" } },
      ]);
    }
  });

  it("a frontend tool call left waiting: 1.0 gets outcome success with pendingToolCallIds, 0.0.59 no outcome", async () => {
    for (const version of ["1.0.0", "0.0.59"] as const) {
      const { threadId, runId } = ids(`pending-${version}`);
      const run = await runClient(version, { url: runUrl("imager"), input: { threadId, runId, messages: say("paint it"), tools: [changeBackground] } });
      expect(run.failed, run.error?.message).toBe(false);
      const last = run.events.at(-1)!;
      const callId = run.events.find((e) => e.type === "TOOL_CALL_START")?.toolCallId;
      if (version === "1.0.0") expect(last).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success", pendingToolCallIds: [callId] } });
      else expect(last).not.toHaveProperty("outcome");
    }
  });

  it("replay through /connect with the same declaration is the live stream, frame for frame; without one, the legacy forms", async () => {
    const { threadId, runId } = ids("replay");
    const live = await (await postSse(runUrl("imager"), { threadId, runId, protocolVersion: "1.0", messages: say("draw it"), tools: [], context: [] })).done;
    expect(live.find((f) => f.event.type === "TOOL_CALL_RESULT")?.event.content).toEqual(expect.any(Array));
    const connect = (body: object) => postSse(`${server.url}/api/agents/imager/connect`, { threadId, ...body }).then((s) => s.done);
    const strip = (fs: typeof live) => fs.map((f) => ({ id: f.id, event: f.event }));
    expect(strip(await connect({ lastSeenEventId: "0", protocolVersion: "1.0" }))).toEqual(strip(live));
    const legacy = await connect({ lastSeenEventId: "0" });
    expect(legacy.map((f) => f.id)).toEqual(live.map((f) => f.id)); // same positions, other forms
    expect(legacy.find((f) => f.event.type === "TOOL_CALL_RESULT")?.event.content).toBe("chart: sales");
    expect(legacy[0]?.event).not.toHaveProperty("protocolVersion");
    // A run posted without a declaration stays legacy even for a 1.0 reader: what its poster saw.
    const old = ids("replay-old");
    const oldLive = await (await postSse(runUrl("imager"), { ...old, messages: say("draw it"), tools: [], context: [] })).done;
    const oldAs10 = await postSse(`${server.url}/api/agents/imager/connect`, { threadId: old.threadId, lastSeenEventId: "0", protocolVersion: "1.0" }).then((s) => s.done);
    expect(strip(oldAs10)).toEqual(strip(oldLive));
  });

  it("protobuf only for a 1.x declaration; @ag-ui/proto 1.0 decodes every event, image parts included", async () => {
    const body = (v?: string) => ({ ...ids("proto"), ...(v && { protocolVersion: v }), messages: say("draw it"), tools: [], context: [] });
    const legacy = await fetch(runUrl("imager"), { method: "POST", headers: { "content-type": "application/json", accept: PROTO }, body: JSON.stringify(body()) });
    expect(legacy.headers.get("content-type")).toMatch(/^text\/event-stream/);
    await legacy.text();
    const res = await fetch(runUrl("imager"), { method: "POST", headers: { "content-type": "application/json", accept: PROTO }, body: JSON.stringify(body("1.0")) });
    expect(res.headers.get("content-type")).toBe(PROTO);
    const buf = Buffer.from(await res.arrayBuffer());
    const events: Array<{ type: string; content?: unknown }> = [];
    for (let at = 0; at < buf.length; ) {
      const len = buf.readUInt32BE(at);
      events.push(decode(new Uint8Array(buf.subarray(at + 4, at + 4 + len))) as { type: string });
      at += 4 + len;
    }
    expect(events[0]).toMatchObject({ type: "RUN_STARTED", protocolVersion: "1.0" });
    expect(events.find((e) => e.type === "TOOL_CALL_RESULT")?.content).toEqual([
      { type: "text", text: "chart: sales" },
      { type: "image", source: { type: "data", value: PNG, mimeType: "image/png" } },
    ]);
    expect(events.at(-1), JSON.stringify(events.at(-1))).toMatchObject({ type: "RUN_FINISHED" });
  });

  it("capabilities at GET /api/agents/:id, in the list, and in CopilotKit's /info", async () => {
    const res = await fetch(`${server.url}/api/agents/imager`);
    expect(res.status).toBe(200);
    const { capabilities } = (await res.json()) as { capabilities: Record<string, Record<string, unknown>> };
    expect(capabilities.transport).toMatchObject({ streaming: true, resumable: true, httpBinary: true });
    expect(capabilities.tools).toMatchObject({ supported: true, clientProvided: true, items: [expect.objectContaining({ name: "draw_chart", parameters: expect.objectContaining({ type: "object" }) })] });
    expect(capabilities.humanInTheLoop).toMatchObject({ interrupts: true, approvals: false, approveWithEdits: false });
    // The test server's model is the openai adapter: images, wav/mp3 audio, documents; no video.
    expect(capabilities.multimodal).toMatchObject({ input: { image: true, audio: true, video: false, pdf: true, file: false } });
    expect(capabilities.execution).toEqual({ maxIterations: 10 });
    expect((await fetch(`${server.url}/api/agents/nope`)).status).toBe(404);
    const list = (await (await fetch(`${server.url}/api/agents`)).json()) as { agents: Array<{ id: string; capabilities: unknown }> };
    expect(list.agents.find((a) => a.id === "imager")?.capabilities).toEqual(capabilities);
    const info = (await (await fetch(`${server.url}/api/copilotkit/info`)).json()) as { agents: Record<string, { capabilities?: unknown }> };
    expect(info.agents.imager?.capabilities).toEqual(capabilities);
    // An agent whose tool needs approval says so, and that the approval takes edits (run through
    // both clients in interrupt-forms.test.ts); its tools patch state, so it sends STATE_DELTA.
    const approvals = (await (await fetch(`${server.url}/api/agents/approvals`)).json()) as { capabilities: Record<string, unknown> };
    expect(approvals.capabilities.humanInTheLoop).toEqual({ supported: true, approvals: true, interrupts: true, approveWithEdits: true });
    expect(approvals.capabilities.state).toMatchObject({ snapshots: true, deltas: true });
    expect(info.agents.approvals?.capabilities).toEqual(approvals.capabilities);
  });

  it("refuses a frontend tool named like a backend tool: 400 naming both, nothing written", async () => {
    const { threadId, runId } = ids("clash");
    const res = await fetch(runUrl("imager"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ threadId, runId, messages: say("draw it"), tools: [changeBackground, { ...changeBackground, name: "draw_chart" }], context: [] }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; issues: Array<{ path: string; message: string }> } };
    expect(body.error.code).toBe("INVALID_RUN_INPUT");
    expect(body.error.issues).toEqual([{ path: "tools.1.name", message: expect.stringMatching(/frontend tool "draw_chart".*backend tool "draw_chart"/) }]);
    expect(await server.store.read(threadId)).toEqual([]);
  });

  it.each([
    [{ type: "video", source: { type: "data", value: "AAAA", mimeType: "video/mp4" } }, /takes no video/],
    [{ type: "audio", source: { type: "data", value: "AAAA", mimeType: "audio/ogg" } }, /wav or mp3.*"audio\/ogg"/],
    [{ type: "audio", source: { type: "url", value: "https://example.com/a.wav", mimeType: "audio/wav" } }, /audio only as source.type "data", not "url"/],
    [{ type: "document", source: { type: "url", value: "https://example.com/a.pdf", mimeType: "application/pdf" } }, /document only as .*not "url"/],
  ])("refuses a media part the model cannot take (%j): 400 naming the part, nothing written", async (part, reason) => {
    const { threadId, runId } = ids("media");
    const messages = [{ id: `u-${++n}`, role: "user", content: [{ type: "text", text: "look" }, part] }];
    const res = await fetch(runUrl("imager"), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ threadId, runId, messages, tools: [], context: [] }) });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { issues: Array<{ path: string; message: string }> } };
    expect(body.error.issues).toEqual([{ path: "messages.0.content.1", message: expect.stringMatching(reason) }]);
    expect(await server.store.read(threadId)).toEqual([]);
  });
});
