/**
 * A scripted OpenAI-compatible upstream (node:http on loopback) for multi-process tests: the
 * test decides, request by request, what the "model" streams, how fast, and where the stream
 * stops and waits (a hold) until the test releases it or the client goes away. Every request is
 * recorded with its body, how many pieces it was sent, and how its connection ended: a close
 * before the response finished is an abort by the client (a cancel, or a killed process).
 *
 * Rejected: aimock for these tests. Its latency is per chunk for every request, and it cannot
 * hold one stream at a chosen token until the test has killed the process that reads it.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { sseChunk } from "../llm/support.ts";

export interface ChatRequestMessage {
  role: string;
  content?: unknown;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

export interface ChatRequestBody {
  model: string;
  messages: ChatRequestMessage[];
  tools?: { type: string; function: { name: string } }[];
  stream?: boolean;
}

export interface ScriptedReply {
  /** Text, one streamed chunk per piece. */
  text?: string[];
  /** Tool calls, streamed after the text: one chunk opening each call, then one per piece of its arguments. */
  toolCalls?: { id: string; name: string; arguments: string | string[] }[];
  /** Pause before each text piece. */
  chunkDelayMs?: number;
  /** After this many text pieces (each of these counts), wait until `release()` or the client leaves. */
  holdAfter?: number | number[];
  /**
   * After `text` (and its holds), one more piece every chunkDelayMs, `piece(0)`, `piece(1)`...,
   * until `until` settles: a stream as long as something else takes (a shard rebalance).
   * `UpstreamRequest.pieces` says what was sent.
   */
  more?: { piece: (i: number) => string; until: Promise<unknown> };
}

export interface UpstreamRequest {
  /** 0-based, in arrival order, over the upstream's life. */
  n: number;
  body: ChatRequestBody;
  /** Text pieces written so far. */
  piecesSent: number;
  /** The text pieces written so far, `more`'s included. */
  pieces: string[];
  /** Resolves once `count` text pieces have been written (rejects if the connection closes first). */
  sent(count: number): Promise<void>;
  /** Resolves once the stream is held at its first hold. */
  held: Promise<void>;
  /** Resolves once the stream is held after `count` pieces (one of its holdAfter). */
  heldAt(count: number): Promise<void>;
  /** Lets the stream go on from its current hold (or lets it pass the next one). */
  release(): void;
  /** Resolves when the connection closed; `aborted` when that was before the response ended. */
  closed: Promise<{ aborted: boolean; at: number }>;
}

export type Script = (body: ChatRequestBody, n: number) => ScriptedReply;

export interface ScriptedUpstream {
  /** The /v1 base URL. */
  url: string;
  requests: UpstreamRequest[];
  /** Replaced by each test: answers every later request. */
  script: Script;
  /** Resolves with the n-th request (0-based) when it has arrived. */
  request(n: number): Promise<UpstreamRequest>;
  close(): Promise<void>;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(v: T): void;
  reject(err: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {}); // a rejection nobody awaits is not a crash
  return { promise, resolve, reject };
}

const usageChunk = (pieces: number) =>
  `data: ${JSON.stringify({
    id: "chatcmpl-scripted",
    object: "chat.completion.chunk",
    created: 0,
    model: "scripted",
    choices: [],
    usage: { prompt_tokens: 10, completion_tokens: pieces, total_tokens: 10 + pieces },
  })}\n\n`;

/** The last user message's text: what scripts key on. */
export function lastUserText(body: ChatRequestBody): string {
  for (let i = body.messages.length - 1; i >= 0; i--) {
    const m = body.messages[i]!;
    if (m.role === "user") return typeof m.content === "string" ? m.content : JSON.stringify(m.content);
  }
  return "";
}

export async function startScriptedUpstream(script: Script = () => ({ text: ["ok"] })): Promise<ScriptedUpstream> {
  const requests: UpstreamRequest[] = [];
  const arrivals: Deferred<UpstreamRequest>[] = [];
  const slot = (n: number) => (arrivals[n] ??= deferred<UpstreamRequest>());
  const sockets = new Set<import("node:net").Socket>();

  const upstream: ScriptedUpstream = {
    url: "",
    requests,
    script,
    request: (n) => slot(n).promise,
    async close() {
      for (const r of requests) r.release();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };

  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => {
      let body: ChatRequestBody;
      try {
        body = JSON.parse(Buffer.concat(parts).toString("utf8")) as ChatRequestBody;
      } catch {
        res.writeHead(400, { "content-type": "application/json" }).end('{"error":{"message":"bad json"}}');
        return;
      }
      void serve(body, res);
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });

  async function serve(body: ChatRequestBody, res: ServerResponse): Promise<void> {
    const n = requests.length;
    const reply = upstream.script(body, n);
    const closed = deferred<{ aborted: boolean; at: number }>();
    const holds = new Map<number, Deferred<void>>(
      [reply.holdAfter ?? []].flat().map((k) => [k, deferred<void>()] as const),
    );
    let released = deferred<void>();
    const progress: { count: number; d: Deferred<void> }[] = [];
    let gone = false;
    const record: UpstreamRequest = {
      n,
      body,
      piecesSent: 0,
      pieces: [],
      sent(count) {
        if (record.piecesSent >= count) return Promise.resolve();
        if (gone) return Promise.reject(new Error(`upstream request ${n} closed after ${record.piecesSent} pieces`));
        const d = deferred<void>();
        progress.push({ count, d });
        return d.promise;
      },
      held: holds.size > 0 ? holds.get(Math.min(...holds.keys()))!.promise : new Promise<void>(() => {}),
      heldAt(count) {
        const d = holds.get(count);
        if (!d) throw new Error(`request ${n} has no hold after ${count} pieces`);
        return d.promise;
      },
      release: () => released.resolve(),
      closed: closed.promise,
    };
    res.on("close", () => {
      gone = true;
      closed.resolve({ aborted: !res.writableFinished, at: Date.now() });
      released.resolve();
      for (const p of progress) p.d.reject(new Error(`upstream request ${n} closed after ${record.piecesSent} pieces`));
    });
    requests.push(record);
    slot(n).resolve(record);

    const write = (piece: string) => {
      res.write(sseChunk({ content: piece }));
      record.pieces.push(piece);
      record.piecesSent = record.pieces.length;
      for (const p of progress.filter((q) => q.count <= record.piecesSent)) {
        progress.splice(progress.indexOf(p), 1);
        p.d.resolve();
      }
    };
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.write(sseChunk({ role: "assistant", content: "" }));
    const text = reply.text ?? [];
    for (let i = 0; i <= text.length; i++) {
      const hold = holds.get(i);
      if (hold) {
        hold.resolve();
        await released.promise;
        if (!gone) released = deferred<void>();
      }
      if (gone || i === text.length) break;
      if (reply.chunkDelayMs) await new Promise((r) => setTimeout(r, reply.chunkDelayMs));
      if (gone) break;
      write(text[i]!);
    }
    if (reply.more && !gone) {
      let over = false;
      const end = () => {
        over = true;
      };
      reply.more.until.then(end, end);
      for (let i = 0; !over && !gone; i++) {
        await new Promise((r) => setTimeout(r, reply.chunkDelayMs ?? 0));
        if (!over && !gone) write(reply.more.piece(i));
      }
    }
    if (gone) return;
    const calls = reply.toolCalls ?? [];
    for (const [index, call] of calls.entries()) {
      res.write(sseChunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
      for (const piece of [call.arguments].flat()) res.write(sseChunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
    res.write(sseChunk({}, calls.length > 0 ? "tool_calls" : "stop"));
    res.write(usageChunk(record.pieces.length));
    res.end("data: [DONE]\n\n");
  }

  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  upstream.url = `http://127.0.0.1:${port}/v1`;
  return upstream;
}
