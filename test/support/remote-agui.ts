/**
 * Remote AG-UI agents for the remoteAgent tests, with the same behaviours (test/fixtures/remote-agent/app.py
 * describes them): a Node one built on @ag-ui/encoder in this process, and the Python FastAPI one
 * run by uvicorn in a child process. Both keep nothing between runs and record what they received.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { EventEncoder } from "@ag-ui/encoder";
import type { BaseEvent, RunAgentInput } from "@ag-ui/core";
import { pythonWithFastApi } from "./python.ts";
import { unusedPort } from "./ports.ts";

export interface RemoteFixture {
  /** The agent's AG-UI endpoint. */
  url: string;
  /** The bodies it received, in order. */
  received(): Promise<RunAgentInput[]>;
  /** The runs whose client went away mid-stream. */
  disconnects(): Promise<string[]>;
  /** The headers of each request, in order (the Node remote only). */
  headers?(): IncomingHttpHeaders[];
  close(): Promise<void>;
}

export type RemoteKind = "node" | "python";

const APP = fileURLToPath(new URL("../fixtures/remote-agent/app.py", import.meta.url));

/** Why the Python fixture cannot run here, or undefined when it can. */
export function pythonUnavailable(): string | undefined {
  const { missing } = pythonWithFastApi();
  return missing === undefined ? undefined : `${missing}: the Python remote's tests are skipped`;
}

export function startRemote(kind: RemoteKind): Promise<RemoteFixture> {
  return kind === "node" ? startNodeRemote() : startPythonRemote();
}

function lastUserText(body: RunAgentInput): string {
  for (let i = body.messages.length - 1; i >= 0; i--) {
    const m = body.messages[i]!;
    if (m.role === "user") return typeof m.content === "string" ? m.content : "";
  }
  return "";
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    }, { once: true });
  });

export async function startNodeRemote(): Promise<RemoteFixture> {
  const received: RunAgentInput[] = [];
  const disconnects: string[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const encoder = new EventEncoder();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    headers.push(req.headers);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => void answer(JSON.parse(Buffer.concat(chunks).toString("utf8")) as RunAgentInput, res));
  });
  async function answer(body: RunAgentInput, res: ServerResponse): Promise<void> {
    received.push(body);
    const text = lastUserText(body);
    const { threadId, runId } = body;
    if (text === "http500") {
      res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ detail: "the agent is down for maintenance" }));
      return;
    }
    const gone = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) {
        disconnects.push(runId);
        gone.abort();
      }
    });
    res.writeHead(200, { "content-type": encoder.getContentType(), "cache-control": "no-cache" });
    const send = (e: Record<string, unknown>) => res.write(encoder.encodeSSE(e as unknown as BaseEvent));
    send({ type: "RUN_STARTED", threadId, runId });
    if (text === "fail") {
      send({ type: "RUN_ERROR", message: "the model quota is exhausted", code: "QUOTA" });
      return void res.end();
    }
    if (text === "garbage") {
      res.write(`data: ${JSON.stringify({ type: "TEXT_MESSAGE_CONTENT", content: "no id, no delta" })}\n\n`);
      return void res.end();
    }
    if (text === "silent") return; // holds the connection open, says nothing
    if (text === "ask" && !body.resume) {
      send({ type: "RUN_FINISHED", threadId, runId, outcome: { type: "interrupt", interrupts: [{ id: `ask-${runId}`, reason: "input_required", message: "Which city?" }] } });
      return void res.end();
    }
    if (text === "custom") {
      // An application's own events, a type AG-UI does not define, and a CUSTOM over the bound.
      send({ type: "CUSTOM", name: "progress", value: { step: 1, of: 2 } });
      send({ type: "RAW", event: { vendor: "acme", kind: "trace" }, source: "acme-sdk" });
      send({ type: "VENDOR_THING", payload: { n: 1 } });
      send({ type: "CUSTOM", name: "too-big", value: "x".repeat(70 * 1024) });
    }
    if (text.startsWith("hold")) {
      // Streams until its reader goes, bounded at 60 s: a test that kills the reader must not
      // race a reply short enough to be wholly sent (and the response finished) before the kill.
      send({ type: "TEXT_MESSAGE_START", messageId: "msg-1", role: "assistant" });
      for (let i = 0; i < 400 && !gone.signal.aborted; i++) {
        send({ type: "TEXT_MESSAGE_CONTENT", messageId: "msg-1", delta: `word ${i} ` });
        await sleep(150, gone.signal);
      }
      if (!gone.signal.aborted) res.end();
      return;
    }
    const turns = body.messages.filter((m) => m.role === "user").length;
    const reply = body.resume
      ? `You chose ${JSON.stringify(body.resume[0]?.payload)}.`
      : `You said: ${text}. This is turn ${turns}. ${text.startsWith("slow") ? "More words follow here. ".repeat(20) : ""}`;
    send({ type: "TEXT_MESSAGE_START", messageId: "msg-1", role: "assistant" });
    for (let i = 0; i < reply.length; i += 50) {
      if (text.startsWith("slow")) await sleep(150, gone.signal);
      if (gone.signal.aborted) return;
      send({ type: "TEXT_MESSAGE_CONTENT", messageId: "msg-1", delta: reply.slice(i, i + 50) });
    }
    send({ type: "TEXT_MESSAGE_END", messageId: "msg-1" });
    const state = { ...((body.state as Record<string, unknown>) ?? {}) };
    state.turns = ((state.turns as number | undefined) ?? 0) + 1;
    state.last = text;
    send({ type: "STATE_SNAPSHOT", snapshot: state });
    send({ type: "RUN_FINISHED", threadId, runId });
    send({ type: "TEXT_MESSAGE_CONTENT", messageId: "msg-1", delta: "after the end" });
    res.end();
  }
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/agent`,
    received: async () => structuredClone(received),
    disconnects: async () => [...disconnects],
    headers: () => [...headers],
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export async function startPythonRemote(): Promise<RemoteFixture> {
  const port = await unusedPort();
  const { python, missing } = pythonWithFastApi();
  if (!python) throw new Error(missing);
  const child = spawn(python, [APP, String(port)], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
  const base = `http://127.0.0.1:${port}`;
  const get = async <T>(path: string): Promise<T> => (await (await fetch(`${base}${path}`)).json()) as T;
  // Ready when it answers; bounded: a loaded machine starts Python in seconds, not 30.
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the Python remote exited: ${stderr}`);
    try {
      await get("/received");
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`the Python remote did not start within 30 s: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url: `${base}/agent`,
    received: () => get<RunAgentInput[]>("/received"),
    disconnects: () => get<string[]>("/disconnects"),
    close: async () => {
      child.kill("SIGTERM");
      if (child.exitCode === null) await once(child, "exit");
    },
  };
}
