/**
 * Memory of reloads by clients that never read: a thread whose snapshot is THREAD_MB (default
 * 30) is reloaded by CLIENTS (default 10) raw connects that send their request and never read a
 * byte. Once every stream has written all it will write without a drain, prints what the process
 * holds after a full GC, as the growth from before the connects: heapUsed, arrayBuffers (Buffers,
 * and the copies a socket makes of the strings written to it) and external (which counts the
 * Buffers it is told of, not those copies: neither sum of the three is the process's memory), and per response the bytes Node holds for it (res.writableLength: its own queue and its socket's). Run with `node --expose-gc --import tsx test/bench/reload-memory.bench.ts`
 * (`npm run bench:reload-memory`); DATABASE_URL selects Postgres too. Not a test: nothing asserts.
 */
import { createServer, type ServerResponse } from "node:http";
import { connect as netConnect, type AddressInfo, type Socket } from "node:net";
import type { StoredEvent, WorkflowEvent } from "../../protocol/events.ts";
import { Reconstructor } from "../../protocol/reconstruct.ts";
import type { EventStore } from "../../server/store/types.ts";
import { backends, serverMetric, startTestServer } from "../support/server.ts";

const THREAD_MB = Number(process.env.THREAD_MB ?? 30);
const CLIENTS = Number(process.env.CLIENTS ?? 10);
const MESSAGE_BYTES = 100_000;
/** `copilotkit`: the reloads go through CopilotKit's connect (/api/copilotkit) instead of ours. */
const DOOR = process.env.DOOR === "copilotkit" ? "copilotkit" : "api";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");

/** Finished runs of one long user message and one long answer each; the last run's end carries the checkpoint. */
async function buildThread(store: EventStore, threadId: string): Promise<void> {
  await store.ensureThread(threadId, "default");
  const fold = new Reconstructor();
  const push = async (events: WorkflowEvent[], checkpoint = false) => {
    if (!checkpoint) {
      for (const e of await store.append(threadId, events)) fold.push(e);
      return;
    }
    const seq = fold.lastSeq + 1;
    fold.push({ ...events[0], threadId, runId: (events[0]!.data as { runId: string }).runId, seq, at: Date.now() } as StoredEvent);
    await store.append(threadId, events, { checkpoint: fold.toState() });
  };
  await push([{ type: "thread.created", data: { agentId: "default" } }]);
  const runs = Math.ceil((THREAD_MB * 1_000_000) / (2 * MESSAGE_BYTES));
  for (let r = 0; r < runs; r++) {
    const runId = `r-${r}`;
    await push([
      { type: "run.accepted", data: { runId, tools: [], context: [] } },
      { type: "message.appended", data: { runId, source: "input", message: { id: `u-${r}`, role: "user", content: `q${r} `.repeat(MESSAGE_BYTES / 4) } } },
      { type: "workflow.started", data: { runId } },
      { type: "message.appended", data: { runId, source: "agent", message: { id: `a-${r}`, role: "assistant", content: `a${r} `.repeat(MESSAGE_BYTES / 4) } } },
    ]);
    await push([{ type: "workflow.completed", data: { runId } }], r === runs - 1);
  }
}

function rawConnect(port: number, threadId: string): Socket {
  const path = DOOR === "copilotkit" ? "/api/copilotkit/agent/default/connect" : "/api/agents/default/connect";
  const payload = JSON.stringify(DOOR === "copilotkit" ? { threadId, runId: "reload", state: {}, tools: [], context: [], forwardedProps: {}, messages: [] } : { threadId });
  const socket = netConnect(port, "127.0.0.1");
  socket.on("error", () => {});
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`,
  );
  return socket;
}

function memory(): NodeJS.MemoryUsage {
  gc!();
  gc!();
  return process.memoryUsage();
}

const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

for (const backend of backends()) {
  const server = await startTestServer({ backend, llmUrl: "http://127.0.0.1:9/v1" });
  const http = createServer(server.threadline.app);
  const responses: ServerResponse[] = [];
  http.on("request", (_req, res) => responses.push(res));
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const port = (http.address() as AddressInfo).port;
  try {
    const threadId = `reload-memory-${backend}`;
    await buildThread(server.store, threadId);
    // One reload read to its end: the snapshot's size on the wire.
    const body = await (await fetch(`${server.url}/api/agents/default/connect`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ threadId }),
    })).arrayBuffer();
    const before = memory();
    const clients = Array.from({ length: CLIENTS }, () => rawConnect(port, threadId));
    // Every stream wrote all it will write without a drain: each waits for its client. CopilotKit's
    // door has no such gauge: there, until what Node holds for the responses stops growing.
    const deadline = Date.now() + 600_000;
    const queued = () => responses.reduce((n, r) => n + r.writableLength, 0);
    for (let last = -1, same = 0; same < 5; ) {
      if (Date.now() > deadline) throw new Error("the streams never blocked");
      await new Promise((r) => setTimeout(r, 200));
      if (DOOR === "api") same = (await serverMetric(server, "threadline_sse_blocked_streams")) === CLIENTS ? 5 : 0;
      else if (responses.length === CLIENTS && responses.every((r) => r.writableLength > 0) && queued() === last) same++;
      else {
        last = queued();
        same = 0;
      }
    }
    const after = memory();
    // OutgoingMessage.writableLength counts its own queue plus its socket's.
    const held = responses.map((res) => res.writableLength);
    console.log(`${backend}: snapshot on the wire ${mb(body.byteLength)}; ${CLIENTS} never-reading reloads through ${DOOR}`);
    const grew = (k: "heapUsed" | "arrayBuffers" | "external" | "rss") => `${k} +${mb(after[k] - before[k])}`;
    console.log(`  process: ${grew("heapUsed")}, ${grew("arrayBuffers")}, ${grew("external")}, ${grew("rss")}`);
    console.log(`  per response writableLength: ${held.map(mb).join(", ")}; sum ${mb(held.reduce((a, b) => a + b, 0))}`);
    for (const c of clients) c.destroy();
  } finally {
    http.closeAllConnections();
    await new Promise<void>((r) => http.close(() => r()));
    await server.close();
  }
}
