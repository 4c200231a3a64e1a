/**
 * 4. A backend tool: TOOL_CALL_START/ARGS/END, then TOOL_CALL_RESULT with its own messageId (the
 *    call's parentMessageId is the assistant message that carries it), then the follow-up answer
 *    in the same run.
 * 5. Parallel tool calls: two calls in one LLM turn, both executed, both results, one answer.
 */
import { randomUUID } from "node:crypto";
import type { Fixture } from "@copilotkit/aimock";
import type { Message } from "@ag-ui/core";
import { expect, it } from "vitest";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import {
  expectAccepted,
  expectBracketed,
  expectLifecyclesClosed,
  ofType,
  shape,
  streamedText,
  type Ev,
} from "./support/expect.ts";
import { conformanceSuite, local, newThreadId, TEST_AGENT_ID } from "./support/kit.ts";
import { lookupOrderResult } from "./support/test-agent.ts";

const ONE = "Order A-1 ships tomorrow.";
const BOTH = "A-1 has shipped; A-2 is being packed.";
const call = (orderId: string) => ({ name: "lookup_order", arguments: JSON.stringify({ orderId }) });
const fixtures: Fixture[] = [
  { match: { userMessage: "[backend]", hasToolResult: true }, response: { content: ONE } },
  { match: { userMessage: "[backend]" }, response: { toolCalls: [call("A-1")] } },
  { match: { userMessage: "[parallel]", hasToolResult: true }, response: { content: BOTH } },
  { match: { userMessage: "[parallel]" }, response: { toolCalls: [call("A-1"), call("A-2")] } },
];

/** Checks one executed call: START..END, then its RESULT with a fresh messageId. */
function expectExecuted(events: Ev[], toolCallId: string, orderId: string): Ev {
  const start = events.find((e) => e.type === "TOOL_CALL_START" && e.toolCallId === toolCallId)!;
  expect(start).toMatchObject({ toolCallName: "lookup_order" });
  const args = ofType(events, "TOOL_CALL_ARGS").filter((e) => e.toolCallId === toolCallId).map((e) => e.delta).join("");
  expect(JSON.parse(args)).toEqual({ orderId });
  const results = ofType(events, "TOOL_CALL_RESULT").filter((e) => e.toolCallId === toolCallId);
  expect(results).toHaveLength(1);
  const result = results[0]!;
  expect(result.content).toBe(lookupOrderResult(orderId));
  expect(typeof result.messageId).toBe("string");
  expect(result.messageId).not.toBe(toolCallId);
  expect(result.messageId).not.toBe(start.parentMessageId);
  const end = events.findIndex((e) => e.type === "TOOL_CALL_END" && e.toolCallId === toolCallId);
  expect(events.indexOf(result)).toBeGreaterThan(end);
  return result;
}

conformanceSuite("backend tools", { fixtures }, (target) => {
  it.each(CLIENT_VERSIONS)("runs a backend tool, reports its result and answers (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const threadId = newThreadId(`backend-${version}`);
    const marker = `[${threadId}]`;
    const user: Message = { id: `u-${randomUUID()}`, role: "user", content: `[backend] ${marker} where is order A-1?` };
    const out = await runClient(version, { url: t.runUrl(TEST_AGENT_ID), input: { threadId, messages: [user] } });
    expectAccepted(out);
    expectBracketed(out.events, { threadId, terminal: "RUN_FINISHED" });
    expectLifecyclesClosed(out.events);

    const starts = ofType(out.events, "TOOL_CALL_START");
    expect(starts).toHaveLength(1);
    const toolCallId = starts[0]!.toolCallId as string;
    const assistantId = starts[0]!.parentMessageId as string;
    expect(typeof assistantId).toBe("string");
    const result = expectExecuted(out.events, toolCallId, "A-1");
    // The answer: a new text message after the result.
    const text = ofType(out.events, "TEXT_MESSAGE_START");
    expect(text).toHaveLength(1);
    expect(out.events.indexOf(text[0]!)).toBeGreaterThan(out.events.indexOf(result));
    expect(text[0]!.messageId).not.toBe(assistantId);
    expect(streamedText(out.events)).toBe(ONE);

    // Client and server agree on the conversation: the call sits on the assistant message named by
    // parentMessageId, the result is a tool message with the RESULT's messageId.
    expect(out.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(out.messages[1]).toMatchObject({ id: assistantId, toolCalls: [{ id: toolCallId }] });
    expect(out.messages[2]).toMatchObject({ id: result.messageId, toolCallId, content: lookupOrderResult("A-1") });
    const thread = await kit.thread(threadId);
    expect(thread.messages.map(shape)).toEqual(out.messages.map(shape));

    // The follow-up request carried the result, tied to its call.
    const [, followUp] = kit.llmRequests(marker);
    expect(followUp!.messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: toolCallId, content: lookupOrderResult("A-1") });
  });

  it.each(CLIENT_VERSIONS)("runs two tool calls of one turn and reports both results (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const threadId = newThreadId(`parallel-${version}`);
    const marker = `[${threadId}]`;
    const user: Message = { id: `u-${randomUUID()}`, role: "user", content: `[parallel] ${marker} check A-1 and A-2` };
    const out = await runClient(version, { url: t.runUrl(TEST_AGENT_ID), input: { threadId, messages: [user] } });
    expectAccepted(out);
    expectBracketed(out.events, { threadId, terminal: "RUN_FINISHED" });
    expectLifecyclesClosed(out.events);

    const starts = ofType(out.events, "TOOL_CALL_START");
    expect(starts).toHaveLength(2);
    const [a, b] = starts.map((s) => s.toolCallId as string);
    expect(a).not.toBe(b);
    // One LLM turn: both calls belong to the same assistant message.
    expect(starts[0]!.parentMessageId).toBe(starts[1]!.parentMessageId);
    const ra = expectExecuted(out.events, a!, "A-1");
    const rb = expectExecuted(out.events, b!, "A-2");
    expect(ra.messageId).not.toBe(rb.messageId);
    expect(streamedText(out.events)).toBe(BOTH);

    expect(out.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool", "assistant"]);
    expect(out.messages[1]!).toMatchObject({ toolCalls: [{ id: a }, { id: b }] });
    const thread = await kit.thread(threadId);
    expect(thread.messages.map(shape)).toEqual(out.messages.map(shape));

    // One request for the calls, one with both results.
    const requests = kit.llmRequests(marker);
    expect(requests).toHaveLength(2);
    const results = requests[1]!.messages.filter((m) => m.role === "tool");
    expect(results.map((m) => m.tool_call_id)).toEqual([a, b]);
  });
});
