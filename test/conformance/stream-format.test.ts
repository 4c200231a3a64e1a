/**
 * 12. The stream on the wire. Headers (`Content-Type: text/event-stream`, `Cache-Control:
 * no-cache`, `X-Accel-Buffering: no`), every frame `id: <id>\ndata: <one-line JSON>\n\n` with LF
 * only and increasing ids, and content negotiation: protobuf only when the Accept header names
 * `application/vnd.ag-ui.event+proto` (curl's `*\/*` gets SSE). Keep-alives: keep-alive.test.ts.
 *
 * Against AGUI_URL: the content type, the LF-only `data:` framing and the `*\/*` rule run; the
 * `id:` lines, the cache headers and protobuf are this server's choices and are skipped.
 */
import { randomUUID } from "node:crypto";
import type { Fixture } from "@copilotkit/aimock";
import { decode } from "@ag-ui/proto";
import { expect, it } from "vitest";
import { compareFrameIds } from "../../protocol/frames.ts";
import { expectBracketed } from "./support/expect.ts";
import { conformanceSuite, itLocal, newThreadId, TEST_AGENT_ID, type Target } from "./support/kit.ts";
import { runObserved } from "./support/observed-client.ts";
import { post, postRun } from "./support/sse.ts";

const PROTO = "application/vnd.ag-ui.event+proto";
const fixtures: Fixture[] = [
  { match: { userMessage: "[wire-chat]" }, response: { content: "Hello over protobuf." } },
  { match: { userMessage: "[wire]", hasToolResult: true }, response: { content: "A-1 has shipped." } },
  { match: { userMessage: "[wire]" }, response: { toolCalls: [{ name: "lookup_order", arguments: '{"orderId":"A-1"}' }] } },
];

const input = () => ({
  threadId: newThreadId("wire"),
  runId: `run-${randomUUID()}`,
  messages: [{ id: `u-${randomUUID()}`, role: "user", content: "[wire] Hello! Where is order A-1?" }],
});
const url = (t: Target) => t.runUrl(TEST_AGENT_ID);

/** Splits a length-prefixed protobuf body into decoded events. */
function decodeProto(body: Buffer): Array<{ type: string }> {
  const events: Array<{ type: string }> = [];
  for (let at = 0; at < body.length; ) {
    const len = body.readUInt32BE(at);
    events.push(decode(new Uint8Array(body.subarray(at + 4, at + 4 + len))) as { type: string });
    at += 4 + len;
  }
  return events;
}

conformanceSuite("stream format", { fixtures, remote: true }, (target) => {
  it("frames every event as `data: <one-line JSON>` blocks separated by LF LF", async () => {
    const t = target();
    const res = await postRun(url(t), input(), t.headers);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/event-stream/);
    expect(res.sse.hasCR).toBe(false);
    expect(res.sse.trailing).toBe(""); // the body ends with a complete block
    for (const b of res.sse.blocks) {
      if (b.comment) continue;
      expect(b.data, b.raw).toHaveLength(1); // one data line: the JSON has no line break
      expect(b.other, b.raw).toEqual([]);
      const event: unknown = JSON.parse(b.data[0]!);
      expect(event).toEqual(expect.objectContaining({ type: expect.stringMatching(/^[A-Z_]+$/) }));
    }
    expect(res.sse.frames[0]?.event.type).toBe("RUN_STARTED");
    expect(res.sse.frames.at(-1)?.event.type).toBe("RUN_FINISHED");
  });

  itLocal("sends the streaming headers and an increasing `id:` line on every frame", async () => {
    const t = target();
    const res = await postRun(url(t), input());
    expect(res.headers["cache-control"]).toMatch(/(^|[ ,])no-cache([ ,]|$)/);
    expect(res.headers["x-accel-buffering"]).toBe("no");
    expect(res.sse.frames.length).toBeGreaterThan(10);
    for (const b of res.sse.blocks) {
      if (b.comment) continue;
      // Exactly `id: <id>` then `data: <json>`: nothing else in a frame.
      expect(b.raw).toMatch(/^id: \d+(\.\d+)?\ndata: \{.*\}$/);
    }
    const ids = res.sse.frames.map((f) => f.id!);
    for (let i = 1; i < ids.length; i++) expect(compareFrameIds(ids[i - 1]!, ids[i]!), `${ids[i - 1]} < ${ids[i]}`).toBeLessThan(0);
    // Ids are unique across the whole stream, events with several frames included.
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.some((id) => id.includes("."))).toBe(true);
  });

  it.each([
    ["*/*", "curl's default"],
    ["text/event-stream", "HttpAgent's"],
    ["application/json, */*;q=0.8", "a browser-ish list"],
  ])("answers Accept %s (%s) with SSE, not protobuf", async (accept) => {
    const t = target();
    const res = await post(url(t), { body: input(), headers: { ...t.headers, Accept: accept } });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/event-stream/);
    expect(res.text.startsWith(":") || /^(id|data|event|retry):/.test(res.text)).toBe(true);
  });

  itLocal("answers SSE without an Accept header, and when SSE is preferred over protobuf", async () => {
    const t = target();
    for (const accept of [undefined, `text/event-stream, ${PROTO};q=0.5`]) {
      const res = await post(url(t), { body: input(), ...(accept !== undefined && { headers: { Accept: accept } }) });
      expect(res.headers["content-type"], String(accept)).toMatch(/^text\/event-stream/);
    }
  });

  itLocal("answers protobuf, length-prefixed, when the Accept header names it and the run declares protocolVersion 1.0", async () => {
    const t = target();
    // Without a 1.x declaration the same request is answered in SSE: 0.0.59's proto schema has
    // no TOOL_CALL_RESULT, which this run sends.
    const legacy = await post(url(t), { body: input(), headers: { Accept: PROTO } });
    expect(legacy.headers["content-type"]).toMatch(/^text\/event-stream/);
    const res = await post(url(t), { body: { ...input(), protocolVersion: "1.0" }, headers: { Accept: PROTO } });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe(PROTO);
    const events = decodeProto(res.body);
    expect(events[0]?.type).toBe("RUN_STARTED");
    expect(events.at(-1)?.type).toBe("RUN_FINISHED");
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(["TOOL_CALL_RESULT", "TEXT_MESSAGE_CONTENT"]));
  });

  // 0.0.59's protobuf schema has no TOOL_CALL_RESULT (its own encoder cannot encode one either),
  // so a backend-tool run over protobuf is checked with 1.0 only; HttpAgent and CopilotKit never
  // ask for protobuf by themselves.
  itLocal.each([
    ["1.0.0", "[wire] Where is order A-1?", ["user", "assistant", "tool", "assistant"]],
    ["1.0.0", "[wire-chat] Hello!", ["user", "assistant"]],
    ["0.0.59", "[wire-chat] Hello!", ["user", "assistant"]],
  ] as const)("streams protobuf that @ag-ui/client %s accepts when it asks for it (%s)", async (version, prompt, roles) => {
    const t = target();
    const askProto = (u: string, init: RequestInit) =>
      fetch(u, { ...init, headers: { ...(init.headers as Record<string, string>), Accept: PROTO } });
    const threadId = newThreadId(`proto-${version}`);
    const messages = [{ id: `u-${randomUUID()}`, role: "user" as const, content: prompt }];
    const run = await runObserved(version, { url: url(t), threadId, messages, fetch: askProto });
    expect(run.error?.message).toBeUndefined();
    expectBracketed(run.events, { threadId, terminal: "RUN_FINISHED" });
    expect(run.messages.map((m) => m.role)).toEqual(roles);
  });
});
