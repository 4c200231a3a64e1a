/**
 * Tool-call ids are unique per thread. An upstream that says "call_0" for every call (some
 * OpenAI-compatible servers do) still gets each call run and each result back: the engine mints
 * its own id for the repeated one, which is what the log, the frames, the clients and a reload
 * carry, while the model is sent the ids it generated.
 */
import { LLMock, type ChatCompletionRequest } from "@copilotkit/aimock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool } from "../../server/agents/define.ts";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";

interface ChatMessage {
  role: string;
  content?: unknown;
  tool_call_id?: string;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
}

const toolResults = (req: ChatCompletionRequest) => (req.messages as ChatMessage[]).filter((m) => m.role === "tool").length;

describe.each(backends())("an upstream that repeats a tool-call id, on %s", (backend) => {
  let mock: LLMock;
  let server: TestServer;
  const ran: number[] = [];

  beforeAll(async () => {
    mock = new LLMock({ port: 0, host: "127.0.0.1", latency: 0, logLevel: "silent" });
    // Turn 1 and turn 2 both call `lookup` under the id "call_0"; turn 3 answers.
    mock.addFixtures([
      { match: { predicate: (req) => toolResults(req) === 0 }, response: { toolCalls: [{ name: "lookup", arguments: '{"n":1}', id: "call_0" }] } },
      { match: { predicate: (req) => toolResults(req) === 1 }, response: { toolCalls: [{ name: "lookup", arguments: '{"n":2}', id: "call_0" }] } },
      { match: { predicate: () => true }, response: { content: "both looked up" } },
    ]);
    const base = await mock.start();
    const lookup = defineTool({
      name: "lookup",
      description: "Looks a number up.",
      inputSchema: z.object({ n: z.number() }),
      execute: async ({ n }) => {
        ran.push(n);
        return { looked: n };
      },
    });
    const agent = defineAgent({ id: "ids", instructions: "Test agent.", tools: [lookup] });
    server = await startTestServer({ backend, llmUrl: `${base.replace(/\/$/, "")}/v1`, agents: [agent] });
  });
  afterAll(async () => {
    await server?.close();
    await mock?.stop();
  });

  it.each(CLIENT_VERSIONS)("runs both calls, sends the model its own ids, and shows distinct ids everywhere (@ag-ui/client %s)", async (version) => {
    const threadId = `ids-${version}-${backend}`;
    mock.clearRequests();
    ran.length = 0;
    const out = await runClient(version, {
      url: `${server.url}/api/agents/ids/run`,
      input: { threadId, messages: [{ id: "u1", role: "user", content: "look two numbers up" }] },
    });
    expect(out.error?.message).toBeUndefined();
    expect(ran).toEqual([1, 2]);

    // What the model received: its own id on both calls and both results, each result its own.
    const requests = mock.getRequests().filter((e) => e.path.includes("/chat/completions")).map((e) => e.body as ChatCompletionRequest);
    expect(requests).toHaveLength(3);
    const last = (requests[2]!.messages as ChatMessage[]).filter((m) => m.role === "assistant" || m.role === "tool");
    expect(last.map((m) => [m.role, m.tool_calls?.map((c) => c.id) ?? m.tool_call_id, m.content ?? null])).toEqual([
      ["assistant", ["call_0"], null],
      ["tool", "call_0", JSON.stringify({ looked: 1 })],
      ["assistant", ["call_0"], null],
      ["tool", "call_0", JSON.stringify({ looked: 2 })],
    ]);

    // The frames the client saw: two calls, two results, distinct ids, each result under its call.
    const starts = out.events.filter((e) => e.type === "TOOL_CALL_START").map((e) => e.toolCallId as string);
    const results = out.events.filter((e) => e.type === "TOOL_CALL_RESULT").map((e) => [e.toolCallId, e.content]);
    expect(new Set(starts).size).toBe(2);
    expect(starts[0]).toBe("call_0");
    expect(results).toEqual([[starts[0], JSON.stringify({ looked: 1 })], [starts[1], JSON.stringify({ looked: 2 })]]);
    const clientTools = out.messages.filter((m) => m.role === "tool").map((m) => (m as { toolCallId: string }).toolCallId);
    expect(clientTools).toEqual(starts);

    // The log: the minted call keeps the upstream's id beside its own.
    const log = await server.store.read(threadId);
    const started = log.filter((e) => e.type === "toolcall.started").map((e) => e.data);
    expect(started.map((d) => [d.toolCallId, d.providerToolCallId])).toEqual([["call_0", undefined], [starts[1], "call_0"]]);

    // A reload: both calls, each with its own result.
    const thread = (await (await fetch(`${server.url}/api/threads/${threadId}`)).json()) as {
      toolCalls: Record<string, { name: string; status: string; result?: unknown }>;
      messages: { role: string; toolCallId?: string; toolCalls?: { id: string }[] }[];
    };
    expect(thread.toolCalls).toEqual({
      [starts[0]!]: { name: "lookup", status: "complete", result: JSON.stringify({ looked: 1 }) },
      [starts[1]!]: { name: "lookup", status: "complete", result: JSON.stringify({ looked: 2 }) },
    });
    const calls = thread.messages.flatMap((m) => (m.toolCalls ?? []).map((c) => c.id));
    const answered = thread.messages.filter((m) => m.role === "tool").map((m) => m.toolCallId);
    expect(calls).toEqual(starts);
    expect(answered).toEqual(starts);
  });
});
