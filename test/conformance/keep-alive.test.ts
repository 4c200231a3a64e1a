/**
 * 12 (continued). Keep-alive comments. The server's SseResponse writes `: keep-alive` after
 * keepAliveMs of silence (15 s in production, so proxies keep the connection). Here it runs with
 * 20 ms in a small Express app that holds a run open until the comment has gone out (awaited on
 * the response's own write, not slept for): the comment is a well-formed SSE comment between
 * frames, and both clients read through it.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { EventType } from "@ag-ui/core";
import express from "express";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Frame } from "../../protocol/frames.ts";
import { KEEP_ALIVE } from "../../protocol/sse.ts";
import { SseResponse } from "../../server/http/sse-response.ts";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import { expectAccepted, expectBracketed, streamedText } from "./support/expect.ts";
import { inProcessSuite } from "./support/kit.ts";
import { postRun } from "./support/sse.ts";

function frames(threadId: string, runId: string): Frame[] {
  const m = "msg-1";
  return [
    { id: "1", event: { type: EventType.RUN_STARTED, threadId, runId } },
    { id: "2", event: { type: EventType.TEXT_MESSAGE_START, messageId: m, role: "assistant" } },
    { id: "3", event: { type: EventType.TEXT_MESSAGE_CONTENT, messageId: m, delta: "still " } },
    // the pause (and the keep-alive) falls here
    { id: "4", event: { type: EventType.TEXT_MESSAGE_CONTENT, messageId: m, delta: "here" } },
    { id: "5", event: { type: EventType.TEXT_MESSAGE_END, messageId: m } },
    { id: "6", event: { type: EventType.RUN_FINISHED, threadId, runId } },
  ];
}

/** An app whose run route pauses mid-message until SseResponse has written a keep-alive. */
function pausingApp() {
  const app = express();
  app.use(express.json());
  app.post("/run", async (req, res) => {
    const { threadId, runId } = req.body as { threadId: string; runId: string };
    const original = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
    const keptAlive = new Promise<void>((resolve) => {
      res.write = ((chunk: unknown, ...rest: unknown[]) => {
        if (chunk === KEEP_ALIVE) resolve();
        return original(chunk, ...rest);
      }) as typeof res.write;
    });
    const sse = new SseResponse(req, res, { keepAliveMs: 20 });
    sse.open();
    const all = frames(threadId, runId);
    for (const f of all.slice(0, 3)) await sse.write(f);
    await keptAlive;
    for (const f of all.slice(3)) await sse.write(f);
    sse.end();
  });
  return app;
}

inProcessSuite("keep-alive comments", "it tests this server's SseResponse in-process", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = pausingApp().listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/run`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("writes `: keep-alive` comment blocks between frames during a silence", async () => {
    const res = await postRun(url, { threadId: "ka", runId: "r1", messages: [] });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/event-stream/);
    const comments = res.sse.blocks.filter((b) => b.comment);
    expect(comments.length).toBeGreaterThanOrEqual(1);
    for (const c of comments) expect(`${c.raw}\n\n`).toBe(KEEP_ALIVE);
    expect(KEEP_ALIVE).toMatch(/^:[^\n]*\n\n$/);
    // The comments sit between the third and the fourth frame, and every frame is intact.
    const order = res.sse.blocks.map((b) => (b.comment ? "comment" : b.id));
    expect(order.slice(0, 3)).toEqual(["1", "2", "3"]);
    expect(order.slice(-3)).toEqual(["4", "5", "6"]);
    expect(res.sse.frames.map((f) => f.id)).toEqual(["1", "2", "3", "4", "5", "6"]);
    expect(res.sse.hasCR).toBe(false);
  });

  it.each(CLIENT_VERSIONS)("@ag-ui/client %s reads through the keep-alive comments", async (version) => {
    const out = await runClient(version, { url, input: { threadId: `ka-${version}`, runId: "r2", messages: [] } });
    expectAccepted(out);
    expectBracketed(out.events, { threadId: `ka-${version}`, runId: "r2", terminal: "RUN_FINISHED" });
    expect(streamedText(out.events)).toBe("still here");
    expect(out.messages).toEqual([{ id: "msg-1", role: "assistant", content: "still here" }]);
  });
});
