/**
 * Every adapter against aimock through its real SDK: text, parallel tool calls, reasoning (where
 * the provider has it, with the provider data that must go back), typed errors, retries, and a
 * cancel or a silence that closes the upstream connection.
 */
import { LLMock } from "@copilotkit/aimock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAnthropic } from "@ai-sdk/anthropic";
import { aiSdkModel } from "../../server/models/ai-sdk/model.ts";
import { ModelError } from "../../server/models/errors.ts";
import { ModelPartSchema, type ModelMessage, type ModelTool } from "../../server/models/model.ts";
import { callsOf, collect, collectError, sseChunk, sseHead, startRawUpstream, textOf, userText } from "../llm/support.ts";
import { ADAPTERS, anthropicHead } from "./support.ts";

const tools: ModelTool[] = ["get_weather", "get_time"].map((name) => ({ name, description: name, inputSchema: { type: "object", properties: {} } }));
const ask = (messages: ModelMessage[], signal = new AbortController().signal) => ({ messages, tools, signal });

let mock: LLMock;

beforeAll(async () => {
  mock = new LLMock({ port: 0, host: "127.0.0.1", chunkSize: 5, logLevel: "silent" });
  mock.onMessage("say hello", { content: "Hello there, streamed in small pieces!", usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } });
  mock.onMessage("two at once", {
    toolCalls: [
      { id: "call_a", name: "get_weather", arguments: '{"location":"Paris"}' },
      { id: "call_b", name: "get_time", arguments: '{"timezone":"Asia/Tokyo"}' },
    ],
  });
  mock.onMessage("ponder", { reasoning: "First, consider the question carefully.", content: "The answer is 42.", reasoningSignature: "sig-42" });
  mock.onMessage("and then", { content: "Then nothing more." });
  mock.onMessage("retry me", { content: "Second time lucky." });
  mock.onMessage("refuse me", { content: "never served" });
  await mock.start();
});

afterAll(async () => {
  await mock.stop();
});

describe.each(ADAPTERS)("$name against aimock", (adapter) => {
  it("streams text in several deltas, then usage and finish", async () => {
    const parts = await collect(adapter.build(mock.url).stream(ask(userText("say hello"))));
    for (const p of parts) ModelPartSchema.parse(p);
    expect(parts.filter((p) => p.type === "text-delta").length).toBeGreaterThan(3);
    expect(textOf(parts)).toBe("Hello there, streamed in small pieces!");
    expect(parts.at(-1)).toMatchObject({ type: "finish", reason: "stop" });
    expect(parts.at(-2)).toMatchObject({ type: "usage" });
  });

  it("streams parallel tool calls with their own indexes, ids and arguments, each ended", async () => {
    const parts = await collect(adapter.build(mock.url).stream(ask(userText("two at once"))));
    expect(callsOf(parts)).toEqual([
      { index: 0, id: "call_a", name: "get_weather", args: '{"location":"Paris"}' },
      { index: 1, id: "call_b", name: "get_time", args: '{"timezone":"Asia/Tokyo"}' },
    ]);
    const ends = parts.flatMap((p) => (p.type === "tool-call-end" ? [p.index] : []));
    expect(ends.sort()).toEqual([0, 1]);
    expect(parts.at(-1)).toMatchObject({ type: "finish", reason: "tool-calls" });
  });

  it("sends tool results back with the calls they answer", async () => {
    const messages: ModelMessage[] = [
      ...userText("two at once"),
      {
        role: "assistant",
        content: [
          { type: "tool-call", id: "call_a", name: "get_weather", args: '{"location":"Paris"}' },
          { type: "tool-call", id: "call_b", name: "get_time", args: '{"timezone":"Asia/Tokyo"}' },
        ],
      },
      { role: "tool", toolCallId: "call_a", toolName: "get_weather", content: [{ type: "text", text: '{"sky":"clear"}' }] },
      { role: "tool", toolCallId: "call_b", toolName: "get_time", content: [{ type: "text", text: "09:00" }] },
      ...userText("and then"),
    ];
    const parts = await collect(adapter.build(mock.url).stream(ask(messages)));
    expect(textOf(parts)).toBe("Then nothing more.");
    const sent = JSON.stringify(mock.getLastRequest()!.body);
    expect(sent).toContain("call_a");
    expect(sent).toContain("call_b");
    expect(sent).toContain("09:00");
  });

  it.runIf(adapter.reasoning)("streams reasoning before the text, with provider data that goes back on the next turn", async () => {
    const model = adapter.build(mock.url);
    const parts = await collect(model.stream(ask(userText("ponder"))));
    expect(textOf(parts, "reasoning")).toBe("First, consider the question carefully.");
    expect(textOf(parts)).toBe("The answer is 42.");
    expect(parts.findLastIndex((p) => p.type === "reasoning-delta" && p.delta !== "")).toBeLessThan(parts.findIndex((p) => p.type === "text-delta"));
    const providerData = parts.flatMap((p) => (p.type === "reasoning-delta" ? (p.providerData ?? []) : []));
    if (adapter.name.includes("anthropic")) {
      // The thinking block's signature: Anthropic refuses a thinking block sent back without it.
      expect(JSON.stringify(providerData)).toContain("sig-42");
      // aimock journals Claude requests converted to its own shape, so the wire body is read
      // from the SDK's fetch instead.
      const bodies: string[] = [];
      const recording: typeof fetch = async (input, init) => {
        bodies.push(String(init?.body));
        return fetch(input, init);
      };
      const replaying = aiSdkModel(createAnthropic({ baseURL: `${mock.url}/v1`, apiKey: "test", fetch: recording })("claude-sonnet-4-5"), { maxRetries: 0 });
      const next: ModelMessage[] = [
        ...userText("ponder"),
        { role: "assistant", content: [{ type: "reasoning", text: textOf(parts, "reasoning"), providerData }, { type: "text", text: textOf(parts) }] },
        ...userText("and then"),
      ];
      await collect(replaying.stream(ask(next)));
      const body = JSON.parse(bodies.at(-1)!) as { messages: { role: string; content: unknown }[] };
      const assistant = body.messages.find((m) => m.role === "assistant")!;
      expect(assistant.content).toEqual(expect.arrayContaining([{ type: "thinking", thinking: "First, consider the question carefully.", signature: "sig-42" }]));
    }
  });

  it("types a 400 as not retryable, and does not retry it", async () => {
    const before = mock.getRequests().length;
    mock.nextRequestError(400, { message: "bad request", type: "invalid_request_error" });
    const { error } = await collectError(adapter.build(mock.url, { maxRetries: 2 }).stream(ask(userText("refuse me"))));
    expect(error).toBeInstanceOf(ModelError);
    expect(error.code).toBe("UPSTREAM_HTTP_400");
    expect(error.status).toBe(400);
    expect(error.retryable).toBe(false);
    expect(error.cause).toBeInstanceOf(Error);
    expect(mock.getRequests().length - before).toBe(1);
  });

  it.each([503, 429])("types a %i as retryable", async (status) => {
    mock.nextRequestError(status, { message: "try later", type: "overloaded_error" });
    const { error, deltas } = await collectError(adapter.build(mock.url).stream(ask(userText("refuse me"))));
    expect(deltas).toEqual([]);
    expect(error.code).toBe(`UPSTREAM_HTTP_${status}`);
    expect(error.retryable).toBe(true);
  });

  it("retries a 503 before the first part, when retries are allowed", async () => {
    mock.nextRequestError(503, { message: "try later" });
    const parts = await collect(adapter.build(mock.url, { maxRetries: 1 }).stream(ask(userText("retry me"))));
    expect(textOf(parts)).toBe("Second time lucky.");
  });
});

/** A held response in the adapter's wire format: one text delta, then the stream stays open. */
function heldHead(adapterName: string, text: string): string {
  return adapterName.includes("anthropic") ? anthropicHead(text) : sseChunk({ role: "assistant", content: text });
}

describe.each(ADAPTERS)("$name on a held upstream", (adapter) => {
  it("aborting mid-stream ends with ABORTED and the upstream sees its connection close", async () => {
    const upstream = await startRawUpstream((_req, res) => {
      sseHead(res);
      res.write(heldHead(adapter.name, "Streaming"));
    });
    try {
      const controller = new AbortController();
      const seen: string[] = [];
      let caught: unknown;
      try {
        for await (const p of adapter.build(upstream.url.replace(/\/v1$/, "")).stream(ask(userText("hi"), controller.signal))) {
          if (p.type === "text-delta") {
            seen.push(p.delta);
            controller.abort();
          }
        }
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(ModelError);
      expect((caught as ModelError).code).toBe("ABORTED");
      expect((caught as ModelError).retryable).toBe(false);
      expect(seen).toEqual(["Streaming"]);
      await upstream.closed(0);
    } finally {
      await upstream.close();
    }
  });

  it("a silent upstream trips the read timeout, typed retryable, and its connection is closed", async () => {
    const upstream = await startRawUpstream((_req, res) => {
      sseHead(res);
      res.write(heldHead(adapter.name, "Hello"));
    });
    try {
      const { error, deltas } = await collectError(adapter.build(upstream.url.replace(/\/v1$/, ""), { readTimeoutMs: 150 }).stream(ask(userText("hi"))));
      expect(error.code).toBe("UPSTREAM_TIMEOUT");
      expect(error.retryable).toBe(true);
      expect(textOf(deltas)).toBe("Hello");
      await upstream.closed(0);
    } finally {
      await upstream.close();
    }
  });
});
