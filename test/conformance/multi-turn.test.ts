/**
 * 2. Multi-turn: the second run sends the whole history (as HttpAgent and CopilotKit do). The
 * server upserts by message id, so the thread's log holds each user message once, and the LLM's
 * second request carries the first answer.
 */
import { randomUUID } from "node:crypto";
import type { Fixture } from "@copilotkit/aimock";
import type { Message } from "@ag-ui/core";
import { expect, it } from "vitest";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import { expectAccepted, expectBracketed, ofType, shape, streamedText } from "./support/expect.ts";
import { conformanceSuite, local, newThreadId } from "./support/kit.ts";

const FIRST = "Nice to meet you, Ada.";
const SECOND = "Your name is Ada.";
const fixtures: Fixture[] = [
  { match: { userMessage: "[multi-2]" }, response: { content: SECOND } },
  { match: { userMessage: "[multi-1]" }, response: { content: FIRST } },
];

function textOf(content: unknown): string {
  return typeof content === "string" ? content : JSON.stringify(content);
}

conformanceSuite("multi-turn", { fixtures }, (target) => {
  it.each(CLIENT_VERSIONS)("resends the history; the log keeps each message once (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const threadId = newThreadId(`multi-${version}`);
    const marker = `[${threadId}]`;
    const u1: Message = { id: `u1-${randomUUID()}`, role: "user", content: `[multi-1] ${marker} My name is Ada.` };
    const run1 = await runClient(version, { url: t.runUrl(), input: { threadId, messages: [u1] } });
    expectAccepted(run1);
    expectBracketed(run1.events, { threadId, terminal: "RUN_FINISHED" });
    expect(streamedText(run1.events)).toBe(FIRST);

    // Run 2: what the client holds after run 1, plus the new question.
    const u2: Message = { id: `u2-${randomUUID()}`, role: "user", content: `[multi-2] ${marker} What is my name?` };
    const history = [...run1.messages, u2];
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    const run2 = await runClient(version, { url: t.runUrl(), input: { threadId, messages: history } });
    expectAccepted(run2);
    expectBracketed(run2.events, { threadId, terminal: "RUN_FINISHED" });
    expect(streamedText(run2.events)).toBe(SECOND);
    // The second run streams only its own answer: nothing of the first is re-sent as new text.
    expect(ofType(run2.events, "TEXT_MESSAGE_START")).toHaveLength(1);
    expect(run2.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);

    // The log: each input message appended once, each answer once.
    const appended = (await kit.log(threadId))
      .filter((e) => e.type === "message.appended")
      .map((e) => (e.data as { message: Message }).message);
    expect(appended.map((m) => m.id)).toEqual(run2.messages.map((m) => m.id));
    expect(appended.filter((m) => m.id === u1.id)).toHaveLength(1);
    expect(appended.filter((m) => m.id === u2.id)).toHaveLength(1);

    // The server's view and the client's agree.
    const thread = await kit.thread(threadId);
    expect(thread.messages.map(shape)).toEqual(run2.messages.map(shape));

    // The LLM's second request carried the whole conversation, the first answer included.
    const requests = kit.llmRequests(marker);
    expect(requests).toHaveLength(2);
    const sent = requests[1]!.messages.filter((m) => m.role !== "system").map((m) => [m.role, textOf(m.content)]);
    expect(sent).toEqual([
      ["user", u1.content],
      ["assistant", FIRST],
      ["user", u2.content],
    ]);
  });
});
