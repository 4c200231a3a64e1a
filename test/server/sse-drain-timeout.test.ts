/**
 * The bound on a client that stops reading (SSE_DRAIN_TIMEOUT_MS, set small here): its stream is
 * dropped once its socket stayed full that long, and everything it held is given back; a client
 * that was blocked but reads again before the bound gets the whole stream.
 *
 * A real socket and a real SseResponse on a route of its own, whatever the database: the bound is
 * the response's. Nothing here measures a time; the drop is awaited as the response's 'close'.
 */
import { once } from "node:events";
import { createServer, request, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { EventType } from "@ag-ui/core";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { SSE_DRAIN_TIMEOUT_MS, SseResponse } from "../../server/http/sse-response.ts";
import { createMetrics, type Metrics } from "../../server/metrics.ts";
import { parseSse } from "../support/sse-client.ts";

/** 12 MB of frames: more than loopback's kernel buffers hold for one connection. */
const FRAMES = 200;
const DELTA = "x".repeat(64 * 1024);

const value = async (m: { get(): Promise<{ values: { value: number }[] }> }) => (await m.get()).values[0]?.value ?? 0;

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/** A stream of FRAMES big frames; resolves with the port and, per request, its response's close. */
async function streamServer(metrics: Metrics, drainTimeoutMs: number): Promise<{ port: number; closed: Promise<void>[] }> {
  const closed: Promise<void>[] = [];
  const app = express();
  app.post("/stream", async (req, res) => {
    closed.push(once(res, "close").then(() => undefined));
    const sse = new SseResponse(req, res, { metrics, drainTimeoutMs });
    sse.open();
    for (let i = 0; i < FRAMES && !sse.signal.aborted; i++) {
      await sse.write({ id: String(i + 1), event: { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m", delta: DELTA } });
    }
    sse.end();
  });
  server = createServer(app);
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return { port: (server.address() as AddressInfo).port, closed };
}

function neverReading(port: number): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method: "POST", path: "/stream", agent: false, headers: { accept: "text/event-stream" } }, resolve);
    req.on("error", reject);
    req.end();
  });
}

describe("a client that stops reading", () => {
  it("is dropped once its socket stayed full for the drain bound, and its stream frees what it held", async () => {
    const metrics = createMetrics();
    const { port, closed } = await streamServer(metrics, 200);
    const res = await neverReading(port);
    res.on("error", () => {}); // the server drops it: an aborted response is the expected end
    await until("the stream waits for its client", async () => (await value(metrics.blockedStreams)) === 1);
    expect(await value(metrics.bufferedBytes)).toBeGreaterThan(0);
    await closed[0]; // the drop, not a sleep
    expect(await value(metrics.droppedStreams)).toBe(1);
    expect(await value(metrics.blockedStreams)).toBe(0);
    expect(await value(metrics.activeStreams)).toBe(0);
    expect(await value(metrics.bufferedBytes)).toBe(0);
    expect(await value(metrics.bufferedFrames)).toBe(0);
    expect(await value(metrics.framesSent)).toBeLessThan(FRAMES);
  });

  it("is not dropped when it reads again before the bound: it gets every frame", async () => {
    const metrics = createMetrics();
    const { port } = await streamServer(metrics, SSE_DRAIN_TIMEOUT_MS);
    const res = await neverReading(port);
    await until("the stream waits for its client", async () => (await value(metrics.blockedStreams)) === 1);
    const chunks: Buffer[] = [];
    res.on("data", (c: Buffer) => chunks.push(c));
    await once(res, "end");
    const frames = parseSse(Buffer.concat(chunks).toString("utf8")).frames;
    expect(frames.map((f) => f.id)).toEqual(Array.from({ length: FRAMES }, (_, i) => String(i + 1)));
    expect(await value(metrics.droppedStreams)).toBe(0);
    expect(await value(metrics.bufferedBytes)).toBe(0);
  });
});
