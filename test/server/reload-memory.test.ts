/**
 * Reload memory is bounded by the thread, not by the clients: ten clients that reload a long
 * thread and never read hold one copy of its snapshot between them, and each stream holds a slice
 * of it at most, counted in bytes (never timed). Once they read, every client gets the same full
 * snapshot, which both @ag-ui/client versions accept. Through both doors: the connect route, and
 * CopilotKit's connect (/api/copilotkit), whose bytes are the same frames without `id:` lines.
 *
 * The snapshot's size is a parameter (RELOAD_TEST_SNAPSHOT_MB, default 8): it must exceed what the
 * kernel holds for one connection (4 MB send buffer and the receive window on loopback), or the
 * streams never wait for their clients and there is nothing to measure.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { decode } from "@ag-ui/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredEvent, WorkflowEvent } from "../../protocol/events.ts";
import { Reconstructor } from "../../protocol/reconstruct.ts";
import type { EventStore } from "../../server/store/types.ts";
import { assertAcceptedByBoth, checkWithBothClients } from "../support/agui-clients.ts";
import { backends, serverMetric, startTestServer, type TestServer } from "../support/server.ts";
import { parseSse } from "../support/sse-client.ts";

const SNAPSHOT_BYTES = Number(process.env.RELOAD_TEST_SNAPSHOT_MB ?? 8) * 1_000_000;
const CLIENTS = 10;
const MESSAGE_BYTES = 50_000;

/** Polls a condition the server reaches on its own (every stream waiting for its client). */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Finished runs of a long question and a long answer each, the last run's end carrying the checkpoint, as the executor's does. */
async function longThread(store: EventStore, threadId: string): Promise<{ id: string; content: string }[]> {
  await store.ensureThread(threadId, "default");
  const fold = new Reconstructor();
  const messages: { id: string; content: string }[] = [];
  for (const e of await store.append(threadId, [{ type: "thread.created", data: { agentId: "default" } }])) fold.push(e);
  const runs = Math.ceil(SNAPSHOT_BYTES / (2 * MESSAGE_BYTES));
  for (let r = 0; r < runs; r++) {
    const runId = `r-${r}`;
    const question = { id: `u-${r}`, role: "user" as const, content: `question ${r} `.padEnd(MESSAGE_BYTES, "q") };
    const answer = { id: `a-${r}`, role: "assistant" as const, content: `answer ${r} `.padEnd(MESSAGE_BYTES, "a") };
    messages.push(question, answer);
    const events: WorkflowEvent[] = [
      { type: "run.accepted", data: { runId, tools: [], context: [] } },
      { type: "message.appended", data: { runId, source: "input", message: question } },
      { type: "workflow.started", data: { runId } },
      { type: "message.appended", data: { runId, source: "agent", message: answer } },
    ];
    for (const e of await store.append(threadId, events)) fold.push(e);
    const end: WorkflowEvent = { type: "workflow.completed", data: { runId } };
    fold.push({ ...end, threadId, runId, seq: fold.lastSeq + 1, at: Date.now() } as StoredEvent);
    await store.append(threadId, [end], { checkpoint: fold.toState() });
  }
  return messages;
}

type Door = "api" | "copilotkit";

/** A reload whose response is never read: node:http stops reading the socket once its buffer is full. */
function neverReadingReload(port: number, door: Door, threadId: string): Promise<IncomingMessage> {
  const path = door === "api" ? "/api/agents/default/connect" : "/api/copilotkit/agent/default/connect";
  const body = JSON.stringify(door === "api" ? { threadId } : { threadId, runId: "reload", state: {}, tools: [], context: [], forwardedProps: {}, messages: [] });
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, method: "POST", path, agent: false, headers: { "content-type": "application/json", accept: "text/event-stream" } },
      resolve,
    );
    req.on("error", reject);
    req.end(body);
  });
}

function readAll(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on("data", (c: Buffer) => chunks.push(c));
    res.on("end", () => resolve(Buffer.concat(chunks)));
    res.on("error", reject);
  });
}

describe.each(backends())("reload memory on %s", (backend) => {
  let server: TestServer;
  /** A server of our own on the same app: its responses tell what Node holds for each stream. */
  let http: Server;
  let port: number;
  const responses: ServerResponse[] = [];
  const threadId = `reload-memory-${backend}`;
  let messages: { id: string; content: string }[];
  /** What the connect route sends for the thread (with ids), read by the first test. */
  let apiBody: Buffer | undefined;

  beforeAll(async () => {
    server = await startTestServer({ backend });
    messages = await longThread(server.store, threadId);
    http = createServer(server.threadline.app);
    http.on("request", (_req, res) => responses.push(res));
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    port = (http.address() as AddressInfo).port;
  }, 120_000);

  afterAll(async () => {
    http?.closeAllConnections();
    await new Promise<void>((r) => (http ? http.close(() => r()) : r()));
    await server?.close();
  });

  it.each<Door>(["api", "copilotkit"])(`${CLIENTS} never-reading reloads of a long thread through %s hold one copy of its snapshot; once they read, each gets all of it`, async (door) => {
    const metric = (name: string) => serverMetric(server, name);

    const pending = await Promise.all(Array.from({ length: CLIENTS }, () => neverReadingReload(port, door, threadId)));
    // Every stream wrote all it will write without a drain: it waits for its client.
    await until("every stream waits for its client", async () => (await metric("threadline_sse_blocked_streams")) === CLIENTS);

    const shared = await metric("threadline_reload_snapshot_bytes");
    const buffered = await metric("threadline_sse_buffered_bytes");
    const queued = responses.filter((r) => !r.writableEnded).reduce((n, r) => n + r.writableLength, 0);
    // One copy of the snapshot, not one per client...
    expect(shared).toBeGreaterThanOrEqual(SNAPSHOT_BYTES);
    // ...and what the streams hold on top of it stays under a second copy, whatever the count of clients.
    expect(buffered + shared).toBeLessThanOrEqual(2 * shared);
    expect(queued + shared).toBeLessThanOrEqual(2 * shared);
    expect(buffered).toBeGreaterThan(0); // the streams are really waiting with bytes queued

    const bodies = await Promise.all(pending.map(readAll));
    // The bytes every client got are the shared ones: the same, and all of them.
    for (const body of bodies) expect(body.equals(bodies[0]!)).toBe(true);
    expect(bodies[0]!.byteLength).toBe(shared);
    const frames = parseSse(bodies[0]!.toString("utf8")).frames;
    expect(frames.map((f) => f.event.type)).toEqual(["RUN_STARTED", "MESSAGES_SNAPSHOT", "STATE_SNAPSHOT", "RUN_FINISHED"]);
    // CopilotKit's door: the connect route's frames, without the `id:` lines its runtime never writes.
    if (door === "api") apiBody = bodies[0];
    else if (apiBody) expect(bodies[0]!.toString("utf8")).toBe(apiBody.toString("utf8").replace(/^id: .*\n/gm, ""));
    expect(frames.every((f) => (door === "api" ? f.id !== undefined : f.id === undefined))).toBe(true);
    // Nothing is held once the streams are done.
    expect(await metric("threadline_reload_snapshot_bytes")).toBe(0);
    expect(await metric("threadline_sse_buffered_bytes")).toBe(0);

    const outcomes = await checkWithBothClients(bodies[0]!, { threadId });
    assertAcceptedByBoth(outcomes);
    for (const outcome of Object.values(outcomes)) {
      // Ids compared whole; contents as one boolean, so that a failure does not print megabytes.
      expect(outcome.messages.map((m) => m.id)).toEqual(messages.map((m) => m.id));
      expect(outcome.messages.every((m, i) => m.content === messages[i]!.content)).toBe(true);
    }
  }, 180_000);

  it("a client that asks for protobuf gets the snapshot in protobuf, encoded for it, not the SSE bytes", async () => {
    const res = await fetch(`${server.url}/api/agents/default/connect`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/vnd.ag-ui.event+proto" },
      // Protobuf is for clients that declare 1.0 (the older schema lacks events a thread may hold).
      body: JSON.stringify({ threadId, protocolVersion: "1.0" }),
    });
    const body = Buffer.from(await res.arrayBuffer());
    const events: { type: string; messages?: { id: string }[] }[] = [];
    for (let at = 0; at < body.length; at += 4 + body.readUInt32BE(at)) {
      events.push(decode(new Uint8Array(body.subarray(at + 4, at + 4 + body.readUInt32BE(at)))) as (typeof events)[number]);
    }
    expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "MESSAGES_SNAPSHOT", "STATE_SNAPSHOT", "RUN_FINISHED"]);
    expect(events[1]!.messages!.map((m) => m.id)).toEqual(messages.map((m) => m.id));
    expect(await serverMetric(server, "threadline_reload_snapshot_bytes")).toBe(0);
  });
});
