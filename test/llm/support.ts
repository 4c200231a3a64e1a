/**
 * Test helpers for the LLM layer: a hand-driven upstream (node:http on loopback) for the
 * failures aimock cannot stage on cue, SSE chunk builders, and collectors for part streams.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Message } from "@ag-ui/core";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { ModelError } from "../../server/models/errors.ts";
import { toModelMessages } from "../../server/models/from-agui.ts";
import type { ModelMessage, ModelPart, ModelTool } from "../../server/models/model.ts";
import { toOpenAIMessages } from "../../server/models/openai/messages.ts";

export interface RawUpstream {
  /** The /v1 base URL. */
  url: string;
  /** Resolves when the connection of the n-th request (0-based) has closed, seen from the server. */
  closed(n?: number): Promise<void>;
  /** Resolves when the n-th request has arrived. */
  arrived(n?: number): Promise<{ req: IncomingMessage; res: ServerResponse }>;
  close(): Promise<void>;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(v: T): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** An upstream whose every request is answered by `handle`; it may leave it hanging. */
export async function startRawUpstream(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<RawUpstream> {
  const arrivals: Deferred<{ req: IncomingMessage; res: ServerResponse }>[] = [];
  const closes: Deferred<void>[] = [];
  const slot = <T>(list: Deferred<T>[], n: number) => (list[n] ??= deferred<T>());
  let count = 0;
  const server = createServer((req, res) => {
    const n = count++;
    // The socket's close, not the response's: it is what an aborted client actually causes.
    req.socket.once("close", () => slot(closes, n).resolve());
    slot(arrivals, n).resolve({ req, res });
    handle(req, res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    closed: (n = 0) => slot(closes, n).promise,
    arrived: (n = 0) => slot(arrivals, n).promise,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export function sseHead(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.flushHeaders();
}

/** One Chat Completions chunk as an SSE event. */
export function sseChunk(delta: Record<string, unknown>, finishReason: string | null = null): string {
  const chunk = {
    id: "chatcmpl-test",
    object: "chat.completion.chunk",
    created: 0,
    model: "test-model",
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

export async function collect(stream: AsyncIterable<ModelPart>): Promise<ModelPart[]> {
  const out: ModelPart[] = [];
  for await (const d of stream) out.push(d);
  return out;
}

/** Consumes the stream and returns the ModelError it ends with, and what came before it. */
export async function collectError(stream: AsyncIterable<ModelPart>): Promise<{ error: ModelError; deltas: ModelPart[] }> {
  const deltas: ModelPart[] = [];
  try {
    for await (const d of stream) deltas.push(d);
  } catch (error) {
    if (error instanceof ModelError) return { error, deltas };
    throw error;
  }
  throw new Error(`expected a ModelError, the stream ended after ${deltas.length} deltas`);
}

export function textOf(deltas: ModelPart[], type: "text" | "reasoning" = "text"): string {
  return deltas.flatMap((d) => (d.type === `${type}-delta` && "delta" in d ? [d.delta] : [])).join("");
}

/** Tool calls reassembled from start/args deltas, in index order. */
export function callsOf(deltas: ModelPart[]): { index: number; id: string; name: string; args: string }[] {
  const calls = new Map<number, { index: number; id: string; name: string; args: string }>();
  for (const d of deltas) {
    if (d.type === "tool-call-start") calls.set(d.index, { index: d.index, id: d.id, name: d.name, args: "" });
    if (d.type === "tool-call-args-delta") calls.get(d.index)!.args += d.delta;
  }
  return [...calls.values()].sort((a, b) => a.index - b.index);
}

/** The one-user-message request most tests send. */
export function userText(text: string): ModelMessage[] {
  return [{ role: "user", content: [{ type: "text", text }] }];
}

/** A function tool with a loose schema. */
export function looseTool(name: string, inputSchema: Record<string, unknown> = { type: "object", properties: {} }): ModelTool {
  return { name, description: name, inputSchema };
}

/** AG-UI history as Chat Completions messages: the two conversions the openai adapter's requests go through. */
export function openaiMessagesOf(messages: Message[], systemPrompt: string): ChatCompletionMessageParam[] {
  return toOpenAIMessages(toModelMessages(messages, systemPrompt));
}
