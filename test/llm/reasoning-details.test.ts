/**
 * Reasoning the provider needs back (OpenRouter's `reasoning_details`: encrypted or signed items):
 * kept on the reasoning message as `encryptedValue`, sent back with the assistant message it
 * preceded on the next turn (also from the log alone, after the first run's process is gone),
 * and never sent to clients.
 */
import type { IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Message } from "@ag-ui/core";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
import { postSse } from "../support/sse-client.ts";
import { sseChunk, sseHead, startRawUpstream, type RawUpstream } from "./support.ts";

const DETAILS = [
  { type: "reasoning.text", text: "Let me think.", signature: "sig-abc", format: "anthropic-claude-v1", index: 0 },
  { type: "reasoning.encrypted", data: "ZW5jcnlwdGVk", format: "anthropic-claude-v1", index: 1 },
];

async function body(req: IncomingMessage): Promise<{ messages: Record<string, unknown>[] }> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return JSON.parse(text) as { messages: Record<string, unknown>[] };
}

describe.each(backends())("encrypted reasoning across turns on %s", (backend) => {
  let upstream: RawUpstream;
  let server: TestServer;
  const requests: { messages: Record<string, unknown>[] }[] = [];
  beforeAll(async () => {
    upstream = await startRawUpstream((req, res) => {
      void body(req).then((b) => {
        requests.push(b);
        sseHead(res);
        res.write(sseChunk({ role: "assistant", reasoning: "Let me think.", reasoning_details: [DETAILS[0]] }));
        res.write(sseChunk({ reasoning_details: [DETAILS[1]] }));
        res.write(sseChunk({ content: `Answer ${requests.length}.` }));
        res.end(`${sseChunk({}, "stop")}data: [DONE]\n\n`);
      });
    });
    server = await startTestServer({ backend, llmUrl: upstream.url });
  });
  afterAll(async () => {
    await server.close();
    await upstream.close();
  });

  it("goes back to the provider with the assistant message it preceded, from the log, and not to clients", async () => {
    const threadId = `rd-${backend}-${Date.now()}`;
    const first = await (await postSse(`${server.url}/api/agents/default/run`, { threadId, runId: "r1", messages: [{ id: "u1", role: "user", content: "think" }] })).done;
    expect(JSON.stringify(first)).not.toContain("ZW5jcnlwdGVk");
    const reasoning = (await server.store.read(threadId))
      .map((e) => (e.type === "message.appended" ? (e.data.message as Message) : undefined))
      .find((m) => m?.role === "reasoning") as { encryptedValue?: string } | undefined;
    expect(JSON.parse(reasoning!.encryptedValue!)).toEqual(DETAILS);

    // What a client holds after the first run (it has no reasoning items), then its next question.
    const answerId = String(first.find((f) => f.event.type === "TEXT_MESSAGE_START")!.event.messageId);
    const history = [
      { id: "u1", role: "user", content: "think" },
      { id: answerId, role: "assistant", content: "Answer 1." },
      { id: "u2", role: "user", content: "and again" },
    ];
    await (await postSse(`${server.url}/api/agents/default/run`, { threadId, runId: "r2", messages: history })).done;
    const assistant = requests.at(-1)!.messages.find((m) => m.role === "assistant")!;
    expect(assistant).toMatchObject({ content: "Answer 1.", reasoning_details: DETAILS });
    // A reload's snapshot carries the reasoning text, not the provider's items.
    const reload = await (await postSse(`${server.url}/api/agents/default/connect`, { threadId })).done;
    expect(JSON.stringify(reload)).toContain("Let me think.");
    expect(JSON.stringify(reload)).not.toContain("ZW5jcnlwdGVk");
  });
});
