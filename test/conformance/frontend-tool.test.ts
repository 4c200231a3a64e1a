/**
 * 3. A frontend tool round trip. The tool is listed in the run's `tools`; the LLM calls it; the
 * server streams TOOL_CALL_START/ARGS/END with no result, ends the run (RUN_FINISHED) and the
 * thread WAITS. The next run carries the tool message; the server resumes and the LLM answers,
 * having received the tool result.
 */
import { randomUUID } from "node:crypto";
import type { Fixture } from "@copilotkit/aimock";
import type { Message, Tool } from "@ag-ui/core";
import { expect, it } from "vitest";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import {
  count,
  expectAccepted,
  expectBracketed,
  expectLifecyclesClosed,
  ofType,
  shape,
  streamedText,
} from "./support/expect.ts";
import { conformanceSuite, local, newThreadId, TEST_AGENT_ID } from "./support/kit.ts";

const ARGS = JSON.stringify({ background: "blue" });
const DONE = "The background is blue now.";
const fixtures: Fixture[] = [
  // First-match-wins: the follow-up (a tool result in the current turn) comes first.
  { match: { userMessage: "[frontend]", hasToolResult: true }, response: { content: DONE } },
  { match: { userMessage: "[frontend]" }, response: { toolCalls: [{ name: "change_background", arguments: ARGS }] } },
];

const changeBackground: Tool = {
  name: "change_background",
  description: "Changes the page background (runs in the browser).",
  parameters: { type: "object", properties: { background: { type: "string" } }, required: ["background"] },
};

conformanceSuite("frontend tool round trip", { fixtures }, (target) => {
  it.each(CLIENT_VERSIONS)("suspends on the call and resumes with the result (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const url = t.runUrl(TEST_AGENT_ID);
    const threadId = newThreadId(`frontend-${version}`);
    const marker = `[${threadId}]`;
    const user: Message = { id: `u-${randomUUID()}`, role: "user", content: `[frontend] ${marker} make it blue` };

    const run1 = await runClient(version, { url, input: { threadId, messages: [user], tools: [changeBackground] } });
    expectAccepted(run1);
    expectBracketed(run1.events, { threadId, terminal: "RUN_FINISHED" });
    expectLifecyclesClosed(run1.events);
    const [start] = ofType(run1.events, "TOOL_CALL_START");
    expect(count(run1.events, "TOOL_CALL_START")).toBe(1);
    expect(start).toMatchObject({ toolCallName: "change_background" });
    const toolCallId = start!.toolCallId as string;
    const args = ofType(run1.events, "TOOL_CALL_ARGS").map((e) => e.delta).join("");
    expect(JSON.parse(args)).toEqual({ background: "blue" });
    expect(count(run1.events, "TOOL_CALL_END")).toBe(1);
    expect(count(run1.events, "TOOL_CALL_RESULT")).toBe(0); // the client executes it, not the server
    expect(count(run1.events, "TEXT_MESSAGE_CONTENT")).toBe(0);

    // The client's conversation holds the call, without a result; the thread waits for it.
    const call = run1.messages.find((m) => m.role === "assistant");
    expect(call).toMatchObject({ id: start!.parentMessageId, toolCalls: [{ id: toolCallId, function: { name: "change_background", arguments: ARGS } }] });
    const waiting = await kit.thread(threadId);
    expect(waiting.status).toBe("WAITING");
    expect(waiting.messages.map(shape)).toEqual(run1.messages.map(shape));

    // Run 2: the client executed the tool and sends its result, as CopilotKit does.
    const result: Message = { id: `t-${randomUUID()}`, role: "tool", toolCallId, content: "background set to blue" };
    const run2 = await runClient(version, {
      url,
      input: { threadId, messages: [...run1.messages, result], tools: [changeBackground] },
    });
    expectAccepted(run2);
    expectBracketed(run2.events, { threadId, terminal: "RUN_FINISHED" });
    expect(count(run2.events, "TOOL_CALL_START")).toBe(0);
    expect(streamedText(run2.events)).toBe(DONE);
    expect(run2.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    const after = await kit.thread(threadId);
    expect(after.status).toBe("WAITING");
    expect(after.messages.map(shape)).toEqual(run2.messages.map(shape));

    // The LLM got the tool list on the first request and the result, tied to its call, on the second.
    const [req1, req2] = kit.llmRequests(marker);
    expect(req1!.tools?.map((x) => x.function.name)).toContain("change_background");
    const tail = req2!.messages.slice(-2);
    expect(tail[0]).toMatchObject({ role: "assistant", tool_calls: [{ id: toolCallId, function: { name: "change_background" } }] });
    expect(tail[1]).toMatchObject({ role: "tool", tool_call_id: toolCallId, content: "background set to blue" });
  });
});
