/**
 * Bounded memory per stream, and disconnects noticed at any moment.
 *
 * - A client that never reads (a raw socket that sends its request and stops reading) on a long
 *   thread: once its socket is full the server stops reading the log for it. What it holds is
 *   counted, not timed: the frames written but not flushed to the kernel stay under the socket's
 *   high-water mark, and the log pages read never run more than one page ahead of the frames
 *   written.
 * - A client that goes away before the first byte of the response (while the handler awaits the
 *   database), in the middle of a replay, or in the live tail: the `threadline_sse_streams` gauge
 *   returns to zero (never below), and no follower stays subscribed to the log.
 */
import { createServer, type Server } from "node:http";
import { connect as netConnect, type AddressInfo, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkflowEvent } from "../../protocol/events.ts";
import type { EventStore } from "../../server/store/types.ts";
import { untilEvent } from "../durability/support/threads.ts";
import { backends, openStore, serverMetric, startTestServer, type TestServer } from "../support/server.ts";
import { gate, gatedAgent, startGatedUpstream, type Gate, type GatedAgent } from "./support.ts";

const DELTA = "x".repeat(2_000);
/** 12 MB of deltas: three times what loopback's kernel buffers can hold (4 MB send, 128 KB receive). */
const DELTAS = 6_000;
/** A frame is at least DELTA long, and Node's socket high-water mark is at most 64 KiB. */
const MAX_BUFFERED_FRAMES = Math.ceil(65_536 / DELTA.length) + 1;

const metric = serverMetric;

/** Polls a condition the server reaches on its own (a close noticed, a socket filled). */
async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Gauges and followers back to where they were; the stream gauge never went below zero. */
async function expectFreed(server: TestServer, followersBefore: number): Promise<void> {
  await until("the stream gauge is back to zero", async () => (await metric(server, "threadline_sse_streams")) === 0);
  await until("no follower is left", () => server.store.followerCount() === followersBefore);
  expect(await metric(server, "threadline_sse_streams")).toBe(0);
  expect(await metric(server, "threadline_sse_blocked_streams")).toBe(0);
  expect(await metric(server, "threadline_sse_buffered_frames")).toBe(0);
}

/** A raw HTTP request on its own socket that never reads the response (or reads until `seen`). */
function rawRequest(port: number, method: string, path: string, body: unknown, headers: Record<string, string> = {}): Socket {
  const payload = body === undefined ? "" : JSON.stringify(body);
  const head = [
    `${method} ${path} HTTP/1.1`,
    "Host: 127.0.0.1",
    "Accept: text/event-stream",
    ...(body === undefined ? [] : ["Content-Type: application/json", `Content-Length: ${Buffer.byteLength(payload)}`]),
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ].join("\r\n");
  const socket = netConnect(port, "127.0.0.1");
  socket.on("error", () => {}); // destroyed on purpose by the tests; nothing to report
  socket.write(`${head}\r\n\r\n${payload}`);
  return socket;
}

/** Reads from the socket until the text received contains `needle`, then stops reading. */
function readUntil(socket: Socket, needle: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let text = "";
    const onData = (chunk: Buffer) => {
      text += chunk.toString("utf8");
      if (text.includes(needle)) {
        socket.off("data", onData);
        socket.pause();
        resolve();
      }
    };
    socket.on("data", onData);
    socket.once("close", () => reject(new Error(`socket closed before "${needle}"; got: ${text.slice(0, 300)}`)));
  });
}

/** The store, with the first read of one thread (getThread, ensureThread, admissionView) held at a gate the test opens. */
function gatedStore(inner: EventStore): { store: EventStore; hold(threadId: string): { reached: Promise<void>; release: Gate } } {
  let held: { threadId: string; reached: () => void; release: Gate } | undefined;
  const wait = async (threadId: string) => {
    const h = held;
    if (h && h.threadId === threadId) {
      held = undefined;
      h.reached();
      await h.release.opened;
    }
  };
  const store: EventStore = Object.create(inner);
  store.getThread = async (threadId) => {
    await wait(threadId);
    return inner.getThread(threadId);
  };
  store.ensureThread = async (threadId, agentId) => {
    await wait(threadId);
    return inner.ensureThread(threadId, agentId);
  };
  store.admissionView = async (threadId, runId) => {
    await wait(threadId);
    return inner.admissionView(threadId, runId);
  };
  return {
    store,
    hold(threadId) {
      const release = gate();
      let reached!: () => void;
      const hit = new Promise<void>((r) => (reached = r));
      held = { threadId, reached, release };
      return { reached: hit, release };
    },
  };
}

/** A thread that ended WAITING after one long streamed answer, written straight into the log. */
async function longThread(store: EventStore, threadId: string, agentId: string): Promise<number> {
  await store.ensureThread(threadId, agentId);
  const runId = `${threadId}-r1`;
  const events: WorkflowEvent[] = [
    { type: "thread.created", data: { agentId } },
    { type: "run.accepted", data: { runId, tools: [], context: [] } },
    { type: "message.appended", data: { runId, source: "input", message: { id: "u1", role: "user", content: "a long one" } } },
    { type: "workflow.started", data: { runId } },
    { type: "text.started", data: { runId, messageId: "a1" } },
  ];
  for (let i = 0; i < DELTAS; i++) events.push({ type: "text.delta", data: { runId, messageId: "a1", delta: DELTA } });
  events.push(
    { type: "text.ended", data: { runId, messageId: "a1" } },
    { type: "message.appended", data: { runId, source: "agent", message: { id: "a1", role: "assistant", content: "(long)" } } },
    { type: "workflow.suspended", data: { runId, reason: "input", pendingToolCallIds: [] } },
  );
  for (let i = 0; i < events.length; i += 500) await store.append(threadId, events.slice(i, i + 500));
  return events.length;
}

describe.each(backends())("slow and vanishing readers on %s", (backend) => {
  let upstream: Awaited<ReturnType<typeof startGatedUpstream>>;
  let gated: GatedAgent;
  /** Its own agent for the live-tail case, so that no other test's tool start is in its queue. */
  let live: GatedAgent;
  let holder: ReturnType<typeof gatedStore>;
  let inner: EventStore;
  let server: TestServer;
  /** A server of our own on the same app: its sockets tell when the server has seen a close. */
  let http: Server;
  let port: number;
  const serverSockets: Socket[] = [];

  beforeAll(async () => {
    upstream = await startGatedUpstream();
    gated = gatedAgent();
    live = gatedAgent("gated-live");
    inner = openStore(backend);
    holder = gatedStore(inner);
    server = await startTestServer({ backend, llmUrl: upstream.url, agents: [gated.agent, live.agent], store: holder.store });
    http = createServer(server.threadline.app);
    http.on("connection", (s) => serverSockets.push(s));
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    port = (http.address() as AddressInfo).port;
  }, 60_000);

  afterAll(async () => {
    http?.closeAllConnections();
    await new Promise<void>((r) => (http ? http.close(() => r()) : r()));
    await server?.close();
    await inner?.close();
    await upstream?.mock.stop();
  });

  /** Closes a client socket; resolves once the server side of that connection has seen it. */
  const hangUp = async (client: Socket): Promise<void> => {
    const s = serverSockets.find((x) => x.remotePort === client.localPort);
    if (!s) throw new Error("the server has not accepted this connection");
    const closed = s.destroyed ? Promise.resolve() : new Promise<void>((r) => s.once("close", () => r()));
    client.destroy();
    await closed;
  };

  it("a never-reading client on a long thread: the server stops reading the log for it; its close frees everything", async () => {
    const threadId = `long-${backend}`;
    const total = await longThread(server.store, threadId, gated.agent.id);
    const totalPages = Math.ceil(total / server.store.logPageSize);
    const pagesBefore = await metric(server, "threadline_stream_log_pages_total");
    const framesBefore = await metric(server, "threadline_sse_frames_total");

    // A cursor at seq 1: the replay sends every delta, one frame each.
    const client = rawRequest(port, "POST", `/api/agents/${gated.agent.id}/connect`, { threadId }, { "Last-Event-ID": "1" });
    await until("the stream waits for its client to read", async () => (await metric(server, "threadline_sse_blocked_streams")) === 1);

    const buffered = await metric(server, "threadline_sse_buffered_frames");
    const pages = (await metric(server, "threadline_stream_log_pages_total")) - pagesBefore;
    const frames = (await metric(server, "threadline_sse_frames_total")) - framesBefore;
    // What the process holds for it: under the socket's high-water mark, not the thread.
    expect(buffered).toBeGreaterThan(0);
    expect(buffered).toBeLessThanOrEqual(MAX_BUFFERED_FRAMES);
    // It read at most one page beyond what it wrote, and not the whole thread.
    expect(pages).toBeLessThanOrEqual(Math.floor(frames / server.store.logPageSize) + 2);
    expect(pages).toBeLessThan(totalPages);
    expect(frames).toBeLessThan(DELTAS);

    // Still blocked, nothing more read: the read loop waits for the drain, it does not poll.
    expect(await metric(server, "threadline_stream_log_pages_total")).toBe(pagesBefore + pages);

    await hangUp(client);
    await expectFreed(server, 0);
  }, 120_000);

  it("a client gone before the first byte of a connect (the handler awaits the thread row): nothing opened, nothing followed", async () => {
    const threadId = `gone-early-connect-${backend}`;
    await longThread(server.store, threadId, gated.agent.id);
    const held = holder.hold(threadId);
    const client = rawRequest(port, "POST", `/api/agents/${gated.agent.id}/connect`, { threadId });
    await held.reached;
    await hangUp(client);
    const pagesBefore = await metric(server, "threadline_stream_log_pages_total");
    held.release.open();
    await expectFreed(server, 0);
    expect(await metric(server, "threadline_stream_log_pages_total")).toBe(pagesBefore); // no replay for nobody
  });

  it("a client gone while the run is being started: noticed, so cancel-on-disconnect cancels the run", async () => {
    const threadId = `gone-early-run-${backend}`;
    const held = holder.hold(threadId);
    const client = rawRequest(
      port,
      "POST",
      `/api/agents/${gated.agent.id}/run`,
      { threadId, runId: `${threadId}-r1`, messages: [{ id: "u1", role: "user", content: "one step" }] },
      { "X-Threadline-On-Disconnect": "cancel" },
    );
    await held.reached;
    await hangUp(client);
    held.release.open();
    // The disconnect was noticed: the run route asked for the cancel.
    const cancelling = await untilEvent(server.store, threadId, (e) => e.type === "workflow.cancelling");
    expect(cancelling.data).toMatchObject({ reason: expect.stringContaining("disconnected") });
    // Whenever the cancel landed (before the tool, or while it waits), the run settles CANCELLED
    // without the tool's gate being opened: a tool never starts after the cancel was heard.
    await untilEvent(server.store, threadId, (e) => e.type === "workflow.cancelled");
    await expectFreed(server, 0);
  });

  it("clients gone in the live tail (connect, and the raw /events feed): the gauge and the followers come back", async () => {
    const threadId = `gone-live-${backend}`;
    const runner = rawRequest(port, "POST", `/api/agents/${live.agent.id}/run`, {
      threadId, runId: `${threadId}-r1`, messages: [{ id: "u1", role: "user", content: "one step" }],
    });
    await live.started.next(); // the run waits in its tool: everything below is live
    await readUntil(runner, "slow_step"); // and its own stream follows the log
    const followers = server.store.followerCount();
    const streams = await metric(server, "threadline_sse_streams");

    const tail = rawRequest(port, "POST", `/api/agents/${live.agent.id}/connect`, { threadId });
    await readUntil(tail, "TOOL_CALL_START");
    await until("the connect follows the live tail", () => server.store.followerCount() === followers + 1);
    expect(await metric(server, "threadline_sse_streams")).toBe(streams + 1);
    await hangUp(tail);
    await until("the connect stream is gone", async () => (await metric(server, "threadline_sse_streams")) === streams);
    await until("its follower is gone", () => server.store.followerCount() === followers);

    const feed = rawRequest(port, "GET", `/api/threads/${threadId}/events`, undefined);
    await readUntil(feed, "workflow.started");
    await until("the feed follows the log", () => server.store.followerCount() === followers + 1);
    await hangUp(feed);
    await until("the feed is gone", async () => (await metric(server, "threadline_sse_streams")) === streams);
    await until("its follower is gone", () => server.store.followerCount() === followers);

    await hangUp(runner); // the run goes on without its client (onDisconnect: continue)...
    await fetch(`${server.url}/api/threads/${threadId}/cancel`, { method: "POST" }); // ...until cancelled
    await expectFreed(server, 0);
  });
});
