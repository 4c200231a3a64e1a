/**
 * 1. Plain chat: one user message in, TEXT_MESSAGE_START/CONTENT/END inside RUN_STARTED ..
 * RUN_FINISHED out, accepted by both clients, and each client ends with the user message and the
 * assistant's answer. Runs against AGUI_URL too (the fixture-specific checks are then skipped).
 */
import { randomUUID } from "node:crypto";
import type { Fixture } from "@copilotkit/aimock";
import { expect, it } from "vitest";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import {
  expectAccepted,
  expectBracketed,
  expectLifecyclesClosed,
  ofType,
  shape,
  streamedText,
  types,
} from "./support/expect.ts";
import { conformanceSuite, local, newThreadId } from "./support/kit.ts";

const ANSWER = "Hello from the conformance kit, streamed in small chunks.";
const fixtures: Fixture[] = [{ match: { userMessage: "[chat]" }, response: { content: ANSWER } }];

conformanceSuite("plain chat", { fixtures, remote: true }, (target) => {
  it.each(CLIENT_VERSIONS)("streams a text answer that @ag-ui/client %s accepts", async (version) => {
    const t = target();
    const threadId = newThreadId(`chat-${version}`);
    const runId = `run-${randomUUID()}`;
    const user = { id: `u-${randomUUID()}`, role: "user" as const, content: "[chat] Hello! Please answer in one short sentence." };
    const out = await runClient(version, { url: t.runUrl(), headers: t.headers, input: { threadId, runId, messages: [user] } });

    expectAccepted(out);
    expectBracketed(out.events, { threadId, runId, terminal: "RUN_FINISHED" });
    expectLifecyclesClosed(out.events);
    expect(types(out.events)).toContain("TEXT_MESSAGE_CONTENT");
    const starts = ofType(out.events, "TEXT_MESSAGE_START");
    expect(starts.length).toBeGreaterThanOrEqual(1);
    for (const s of starts) expect(s.role ?? "assistant").toBe("assistant");

    // The client's conversation: the user message, then the answer it assembled from the stream.
    expect(out.messages[0]).toMatchObject(user);
    const answers = out.messages.filter((m) => m.role === "assistant" && typeof m.content === "string" && m.content !== "");
    expect(answers.length).toBeGreaterThanOrEqual(1);
    expect(answers.map((m) => m.id)).toEqual(expect.arrayContaining([starts.at(-1)!.messageId]));

    if (t.remote) return;
    const kit = local(t);
    const messageId = starts[0]!.messageId as string;
    expect(streamedText(out.events, messageId)).toBe(ANSWER);
    expect(out.messages.map(shape)).toEqual([shape(user), { id: messageId, role: "assistant", content: ANSWER }]);
    // The server's reconstruction agrees with the client's.
    const thread = await kit.thread(threadId);
    expect(thread.messages.map(shape)).toEqual(out.messages.map(shape));
    expect(thread.status).toBe("WAITING");
  });
});
