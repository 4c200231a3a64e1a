/**
 * End to end: the real server runs agents whose model is the AI SDK's Anthropic model (a Model
 * object, and an "anthropic:" spec resolved from the environment) against aimock's Claude
 * endpoint, and streams AG-UI frames; a tool call goes round through the engine.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { LLMock } from "@copilotkit/aimock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool } from "../../server/agents/define.ts";
import { aiSdkModel } from "../../server/models/ai-sdk/model.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
import { postSse, type SseFrame } from "../support/sse-client.ts";

const types = (frames: SseFrame[]) => frames.map((f) => f.event.type);
const text = (frames: SseFrame[]) => frames.flatMap((f) => (f.event.type === "TEXT_MESSAGE_CONTENT" ? [String(f.event.delta)] : [])).join("");

describe.each(backends())("an AI SDK Anthropic agent on %s", (backend) => {
  let mock: LLMock;
  let server: TestServer;
  beforeAll(async () => {
    mock = new LLMock({ port: 0, host: "127.0.0.1", chunkSize: 6, logLevel: "silent" });
    // The result first: the follow-up request still ends with the same user message.
    mock.onToolResult("toolu_1", { content: "Sunny in Paris, 21 degrees." });
    mock.onMessage("weather in Paris", { toolCalls: [{ id: "toolu_1", name: "get_weather", arguments: '{"city":"Paris"}' }] });
    mock.onMessage("hello claude", { reasoning: "A greeting.", content: "Hello from Claude on aimock!" });
    await mock.start();
    const weather = defineTool({
      name: "get_weather",
      description: "The weather in a city",
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }: { city: string }) => ({ city, forecast: "sunny", tempC: 21 }),
    });
    const claude = aiSdkModel(createAnthropic({ baseURL: `${mock.url}/v1`, apiKey: "test" })("claude-sonnet-4-5"), { maxRetries: 0 });
    server = await startTestServer({
      backend,
      // The OpenAI default points nowhere useful: only the agents' own models may answer.
      llmUrl: "http://127.0.0.1:9/v1",
      env: { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: `${mock.url}/v1` },
      agents: [
        defineAgent({ id: "claude", instructions: "You help with the weather.", tools: [weather], model: claude }),
        defineAgent({ id: "claude-by-spec", instructions: "You greet.", model: "anthropic:claude-haiku-4-5" }),
      ],
    });
  });
  afterAll(async () => {
    await server.close();
    await mock.stop();
  });

  it("streams AG-UI frames of a tool round trip through /v1/messages", async () => {
    const threadId = `claude-${backend}-${Date.now()}`;
    const frames = await (await postSse(`${server.url}/api/agents/claude/run`, { threadId, runId: "r1", messages: [{ id: "u1", role: "user", content: "weather in Paris" }] })).done;
    const seen = types(frames);
    expect(seen[0]).toBe("RUN_STARTED");
    expect(seen.at(-1)).toBe("RUN_FINISHED");
    const start = frames.find((f) => f.event.type === "TOOL_CALL_START")!;
    expect(start.event).toMatchObject({ toolCallId: "toolu_1", toolCallName: "get_weather" });
    expect(frames.find((f) => f.event.type === "TOOL_CALL_RESULT")!.event.content).toContain("sunny");
    expect(text(frames)).toBe("Sunny in Paris, 21 degrees.");
    expect(seen.indexOf("TOOL_CALL_END")).toBeLessThan(seen.indexOf("TEXT_MESSAGE_START"));
    const claudeRequests = mock.getRequests().filter((r) => r.path === "/v1/messages");
    expect(claudeRequests.length).toBeGreaterThanOrEqual(2);
  });

  it("resolves an agent's anthropic: spec from the environment and streams its reasoning and text", async () => {
    const threadId = `claude-spec-${backend}-${Date.now()}`;
    const frames = await (await postSse(`${server.url}/api/agents/claude-by-spec/run`, { threadId, runId: "r1", messages: [{ id: "u1", role: "user", content: "hello claude" }] })).done;
    expect(types(frames).at(-1)).toBe("RUN_FINISHED");
    expect(text(frames)).toBe("Hello from Claude on aimock!");
    const reasoning = frames.flatMap((f) => (f.event.type === "REASONING_MESSAGE_CONTENT" ? [String(f.event.delta)] : [])).join("");
    expect(reasoning).toBe("A greeting.");
    // The signature is stored for the next turn, never streamed to clients.
    expect(JSON.stringify(frames)).not.toContain("aiSdkReasoning");
    const stored = (await server.store.read(threadId)).find((e) => e.type === "message.appended" && (e.data.message as { role: string }).role === "reasoning");
    expect(JSON.stringify(stored)).toContain("signature");
  });
});
