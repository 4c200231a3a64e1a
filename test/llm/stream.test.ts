/**
 * The streaming wrapper against a real aimock upstream, through the real openai SDK.
 */
import { LLMock } from "@copilotkit/aimock";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelPartSchema, type ModelTool } from "../../server/models/model.ts";
import { createOpenAIClient } from "../../server/models/openai/client.ts";
import { OpenAIModel } from "../../server/models/openai/model.ts";
import { callsOf, collect, collectError, looseTool, textOf, userText } from "./support.ts";

let mock: LLMock;
let model: OpenAIModel;

const tools: ModelTool[] = ["lookup", "get_weather", "get_time"].map((name) => looseTool(name));

function ask(text: string, opts: { tools?: ModelTool[]; signal?: AbortSignal; using?: OpenAIModel } = {}) {
  return (opts.using ?? model).stream({
    messages: userText(text),
    tools: opts.tools ?? tools,
    signal: opts.signal ?? new AbortController().signal,
  });
}

beforeAll(async () => {
  mock = new LLMock({ port: 0, host: "127.0.0.1", chunkSize: 6 });
  mock.onMessage("say hello", { content: "Hello there, streamed in small pieces!" });
  mock.onMessage("look it up", { toolCalls: [{ id: "call_one", name: "lookup", arguments: '{"query":"threadline","limit":3}' }] });
  mock.onMessage("two at once", {
    toolCalls: [
      { id: "call_a", name: "get_weather", arguments: '{"location":"Paris"}' },
      { id: "call_b", name: "get_time", arguments: '{"timezone":"Asia/Tokyo"}' },
    ],
  });
  mock.onMessage("ponder", { reasoning: "First, consider the question carefully.", content: "The answer is 42." });
  mock.onMessage("count tokens", {
    content: "Counting.",
    usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
  });
  mock.onMessage("fail hard", { error: { message: "upstream exploded", type: "server_error" }, status: 500 });
  // The latency lets the first chunks reach the socket before the truncation destroys it.
  mock.onMessage("cut me off", { content: "This answer will not arrive in full, sorry." }, { truncateAfterChunks: 3, latency: 10 });
  mock.onMessage("take it slow", { content: "one two three four five six seven eight nine ten" }, { streamingProfile: { tps: 25 } });
  mock.onMessage("retry me", { content: "Second time lucky." });
  await mock.start();
  model = new OpenAIModel({
    client: createOpenAIClient({ baseURL: `${mock.url}/v1`, apiKey: "test", maxRetries: 0 }),
    model: "gpt-4o-mini",
  });
});

afterAll(async () => {
  await mock.stop();
});

describe("OpenAIModel against aimock", () => {
  it("takes the SDK's own client as well as createOpenAIClient's (the adapter's client type is structural)", async () => {
    const own = new OpenAIModel({ client: new OpenAI({ baseURL: `${mock.url}/v1`, apiKey: "test", maxRetries: 0 }), model: "gpt-4o-mini" });
    expect(textOf(await collect(ask("say hello", { using: own })))).toBe("Hello there, streamed in small pieces!");
    // An SDK error through the SDK's own client is still recognised (its classes are the ones sdk.ts imports).
    const { error } = await collectError(ask("fail hard", { using: own }));
    expect(error.code).toBe("UPSTREAM_HTTP_500");
  });

  it("streams text in several deltas and finishes with stop", async () => {
    const deltas = await collect(ask("say hello"));
    for (const d of deltas) ModelPartSchema.parse(d);
    const texts = deltas.filter((d) => d.type === "text-delta");
    expect(texts.length).toBeGreaterThan(3);
    expect(textOf(deltas)).toBe("Hello there, streamed in small pieces!");
    expect(deltas.at(-1)).toEqual({ type: "finish", reason: "stop", raw: "stop" });
  });

  it("sends the request the SDK way: model, stream, include_usage, tools", async () => {
    await collect(ask("say hello"));
    const body = mock.getLastRequest()!.body as Record<string, unknown>;
    expect(body).toMatchObject({ model: "gpt-4o-mini", stream: true, stream_options: { include_usage: true } });
    expect((body.tools as unknown[]).length).toBe(3);
    await collect(ask("say hello", { tools: [] }));
    expect(mock.getLastRequest()!.body).not.toHaveProperty("tools");
  });

  it("streams a tool call: id and name first, then the arguments in pieces", async () => {
    const deltas = await collect(ask("look it up"));
    expect(deltas[0]).toEqual({ type: "tool-call-start", index: 0, id: "call_one", name: "lookup" });
    expect(deltas.filter((d) => d.type === "tool-call-args-delta").length).toBeGreaterThan(1);
    expect(callsOf(deltas)).toEqual([{ index: 0, id: "call_one", name: "lookup", args: '{"query":"threadline","limit":3}' }]);
    expect(deltas.at(-1)).toEqual({ type: "finish", reason: "tool-calls", raw: "tool_calls" });
  });

  it("streams parallel tool calls with their own indexes, ids and arguments", async () => {
    const deltas = await collect(ask("two at once"));
    expect(callsOf(deltas)).toEqual([
      { index: 0, id: "call_a", name: "get_weather", args: '{"location":"Paris"}' },
      { index: 1, id: "call_b", name: "get_time", args: '{"timezone":"Asia/Tokyo"}' },
    ]);
  });

  it("streams reasoning_content as reasoning deltas, before the text", async () => {
    const deltas = await collect(ask("ponder"));
    expect(textOf(deltas, "reasoning")).toBe("First, consider the question carefully.");
    expect(textOf(deltas)).toBe("The answer is 42.");
    const lastReasoning = deltas.findLastIndex((d) => d.type === "reasoning-delta");
    expect(lastReasoning).toBeLessThan(deltas.findIndex((d) => d.type === "text-delta"));
  });

  it("reports usage once, just before finish", async () => {
    const deltas = await collect(ask("count tokens"));
    expect(deltas.filter((d) => d.type === "usage")).toEqual([
      { type: "usage", inputTokens: 11, outputTokens: 7, totalTokens: 18 },
    ]);
    expect(deltas.at(-2)?.type).toBe("usage");
  });

  it("turns an upstream 500 into UPSTREAM_HTTP_500 with the SDK error as cause", async () => {
    const { error, deltas } = await collectError(ask("fail hard"));
    expect(deltas).toEqual([]);
    expect(error.code).toBe("UPSTREAM_HTTP_500");
    expect(error.status).toBe(500);
    expect(error.message).toContain("upstream exploded");
    expect((error.cause as { status?: number }).status).toBe(500);
  });

  it("turns an unmatched prompt (aimock's 404) into UPSTREAM_HTTP_404 with a hint", async () => {
    const { error } = await collectError(ask("nothing matches this"));
    expect(error.code).toBe("UPSTREAM_HTTP_404");
    expect(error.message).toContain("OPENAI_MODEL");
  });

  it("retries a failed attempt before any delta, when retries are allowed", async () => {
    const retrying = new OpenAIModel({
      client: createOpenAIClient({ baseURL: `${mock.url}/v1`, apiKey: "test", maxRetries: 1 }),
      model: "gpt-4o-mini",
    });
    mock.nextRequestError(503, { message: "try later" });
    const deltas = await collect(ask("retry me", { using: retrying }));
    expect(textOf(deltas)).toBe("Second time lucky.");
  });

  it("turns a connection cut mid-stream into UPSTREAM_STREAM_BROKEN, after the deltas that made it", async () => {
    const { error, deltas } = await collectError(ask("cut me off"));
    expect(error.code).toBe("UPSTREAM_STREAM_BROKEN");
    expect(error.cause).toBeInstanceOf(Error);
    expect(textOf(deltas).length).toBeGreaterThan(0);
    expect(deltas.some((d) => d.type === "finish")).toBe(false);
  });

  it("delivers the first text delta of a slow stream well before the last one", async () => {
    const arrivals: { delta: string; at: number }[] = [];
    for await (const d of ask("take it slow")) {
      if (d.type === "text-delta") arrivals.push({ delta: d.delta, at: performance.now() });
    }
    expect(arrivals.map((a) => a.delta).join("")).toBe("one two three four five six seven eight nine ten");
    expect(arrivals.length).toBeGreaterThanOrEqual(8);
    for (let i = 1; i < arrivals.length; i++) expect(arrivals[i]!.at).toBeGreaterThanOrEqual(arrivals[i - 1]!.at);
    // aimock paces chunks at 25 per second (40 ms apart): the deltas must be spread out the same
    // way, not buffered and handed over together at the end. Half the nominal spread is enough.
    const spread = arrivals.at(-1)!.at - arrivals[0]!.at;
    expect(spread).toBeGreaterThan(((arrivals.length - 1) * 40) / 2);
  });
});
