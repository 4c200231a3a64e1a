/**
 * Attachments: an image sent as 1.0's image part (`@ag-ui/client` 1.0.0) or as the older
 * `binary` part (0.0.59, what CopilotKit 1.74/1.75 sends) reaches the model as an image, and the
 * log keeps it in one shape, the 1.0 one.
 */
import { randomUUID } from "node:crypto";
import type { Fixture } from "@copilotkit/aimock";
import type { Message } from "@ag-ui/core";
import request from "supertest";
import { expect, it } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool } from "../../server/agents/define.ts";
import { runClient, type ClientVersion } from "../support/agui-clients.ts";
import { expectAccepted } from "./support/expect.ts";
import { conformanceSuite, local, newThreadId } from "./support/kit.ts";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const fixtures: Fixture[] = [
  { match: { userMessage: "[image]" }, response: { content: "A one-pixel image." } },
  { match: { userMessage: "[snap]", hasToolResult: true }, response: { content: "The screenshot is one pixel." } },
  { match: { userMessage: "[snap]" }, response: { toolCalls: [{ name: "screenshot", arguments: "{}" }] } },
];

/** A tool that returns an image the MCP way. */
const cameraAgent = () =>
  defineAgent({
    id: "camera",
    instructions: "Take screenshots when asked.",
    tools: [
      defineTool({
        name: "screenshot",
        description: "Takes a screenshot",
        inputSchema: z.object({}),
        execute: () => ({ content: [{ type: "text", text: "Here it is." }, { type: "image", data: PNG, mimeType: "image/png" }] }),
      }),
    ],
  });

const parts: Record<ClientVersion, unknown[]> = {
  "1.0.0": [{ type: "image", source: { type: "data", value: PNG, mimeType: "image/png" } }],
  "0.0.59": [{ type: "binary", mimeType: "image/png", data: PNG, filename: "dot.png" }],
};

conformanceSuite("multimodal", { fixtures, agents: () => [cameraAgent()] }, (target) => {
  it.each(["1.0.0", "0.0.59"] as const)("an image reaches the model as image_url, and the log keeps the 1.0 part (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const threadId = newThreadId(`image-${version}`);
    const marker = `[${threadId}]`;
    const message = { id: `u-${randomUUID()}`, role: "user", content: [{ type: "text", text: `[image] ${marker} what is this?` }, ...parts[version]] } as Message;
    const run = await runClient(version, { url: t.runUrl(), input: { threadId, messages: [message] } });
    expectAccepted(run);

    const [req] = kit.llmRequests(marker);
    const user = req!.messages.find((m) => m.role === "user")!;
    expect(user.content).toEqual([
      { type: "text", text: `[image] ${marker} what is this?` },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
    ]);
    const view = (await request(kit.server.url).get(`/api/threads/${threadId}`)).body as { messages: Message[] };
    expect(view.messages[0]!.content).toEqual([
      { type: "text", text: `[image] ${marker} what is this?` },
      expect.objectContaining({ type: "image", source: { type: "data", value: PNG, mimeType: "image/png" } }),
    ]);
  });

  it("a binary part with nothing to send is refused with its reasons, and nothing is written", async () => {
    const t = target();
    const kit = local(t);
    const threadId = newThreadId("image-empty");
    const res = await request(kit.server.url)
      .post("/api/agents/default/run")
      .send({ threadId, runId: "r1", state: {}, tools: [], context: [], forwardedProps: {}, messages: [{ id: "u1", role: "user", content: [{ type: "binary", mimeType: "image/png" }] }] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("INVALID_RUN_INPUT");
    expect(JSON.stringify(res.body.error.issues)).toContain("messages");
    expect(await kit.server.store.getThread(threadId)).toBeNull();
  });

  it("an image a tool returns is kept in the log, and the model is shown it on its next turn", async () => {
    const t = target();
    const kit = local(t);
    const threadId = newThreadId("snap");
    const marker = `[${threadId}]`;
    const run = await runClient("1.0.0", { url: t.runUrl("camera"), input: { threadId, messages: [{ id: "u1", role: "user", content: `[snap] ${marker} take one` }] } });
    expectAccepted(run);
    const requests = kit.llmRequests(marker);
    expect(requests).toHaveLength(2);
    const after = requests[1]!.messages;
    const toolAt = after.findIndex((m) => m.role === "tool");
    expect(after[toolAt]!.content).toContain("Here it is.");
    expect(after[toolAt + 1]).toMatchObject({
      role: "user",
      content: [{ type: "text", text: expect.stringContaining("screenshot") }, { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } }],
    });
    // The log keeps the image part; a 1.0 client (it declares protocolVersion "1.0") gets the
    // parts (test/server/protocol-versions.test.ts: 0.0.59 gets the text).
    const toolMessage = (await kit.log(threadId)).map((e) => (e.type === "message.appended" ? (e.data.message as Message) : undefined)).find((m) => m?.role === "tool");
    expect(toolMessage!.content).toEqual([{ type: "text", text: "Here it is." }, { type: "image", source: { type: "data", value: PNG, mimeType: "image/png" } }]);
    const result = run.events.find((e) => e.type === "TOOL_CALL_RESULT") as unknown as { content: unknown };
    expect(result.content).toEqual(toolMessage!.content);
  });
});
