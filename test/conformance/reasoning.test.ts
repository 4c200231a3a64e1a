/**
 * 7. Reasoning: the upstream streams `reasoning_content` before the answer; the server sends
 * REASONING_START, REASONING_MESSAGE_START/CONTENT/END, REASONING_END, then the text. Both clients
 * accept it (1.0 checks the reasoning lifecycle, 0.0.59 does not know every rule).
 */
import { randomUUID } from "node:crypto";
import type { Fixture } from "@copilotkit/aimock";
import type { Message } from "@ag-ui/core";
import { expect, it } from "vitest";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import { expectAccepted, expectBracketed, expectLifecyclesClosed, ofType, streamedText, types } from "./support/expect.ts";
import { conformanceSuite, local, newThreadId } from "./support/kit.ts";

const THOUGHT = "A hot dog has bread on two sides, so maybe; but the bread is joined.";
const ANSWER = "No, a hot dog is not a sandwich.";
const fixtures: Fixture[] = [{ match: { userMessage: "[reasoning]" }, response: { content: ANSWER, reasoning: THOUGHT } }];

conformanceSuite("reasoning", { fixtures }, (target) => {
  it.each(CLIENT_VERSIONS)("streams REASONING_* before the answer (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const threadId = newThreadId(`reasoning-${version}`);
    const user: Message = { id: `u-${randomUUID()}`, role: "user", content: "[reasoning] is a hot dog a sandwich?" };
    const out = await runClient(version, { url: t.runUrl(), input: { threadId, messages: [user] } });
    expectAccepted(out);
    expectBracketed(out.events, { threadId, terminal: "RUN_FINISHED" });
    expectLifecyclesClosed(out.events);

    const seq = types(out.events).filter((x) => x.startsWith("REASONING_") || x.startsWith("TEXT_MESSAGE_"));
    const squeezed = seq.filter((x, i) => !(x.endsWith("_CONTENT") && seq[i - 1] === x));
    expect(squeezed).toEqual([
      "REASONING_START",
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_END",
      "REASONING_END",
      "TEXT_MESSAGE_START",
      "TEXT_MESSAGE_CONTENT",
      "TEXT_MESSAGE_END",
    ]);
    const [span] = ofType(out.events, "REASONING_START");
    const [msg] = ofType(out.events, "REASONING_MESSAGE_START");
    expect(msg).toMatchObject({ role: "reasoning", messageId: span!.messageId });
    const thought = ofType(out.events, "REASONING_MESSAGE_CONTENT").map((e) => e.delta).join("");
    expect(thought).toBe(THOUGHT);
    expect(streamedText(out.events)).toBe(ANSWER);
    expect(ofType(out.events, "TEXT_MESSAGE_START")[0]!.messageId).not.toBe(span!.messageId);

    // The answer reaches the conversation on both; 1.0 also keeps the reasoning as a message.
    const answer = out.messages.find((m) => m.role === "assistant");
    expect(answer?.content).toBe(ANSWER);
    if (version === "1.0.0") {
      expect(out.messages.find((m) => m.role === "reasoning")).toMatchObject({ id: span!.messageId, content: THOUGHT });
    }
    // The server recorded both.
    const thread = await kit.thread(threadId);
    expect(thread.messages.map((m) => m.role)).toEqual(["user", "reasoning", "assistant"]);
    expect(thread.messages[1]).toMatchObject({ id: span!.messageId, content: THOUGHT });
  });
});
