/**
 * The kit's lifecycle rule on hand-written streams: what it must accept (chunks, reasoning,
 * RUN_ERROR cutting open blocks) as much as what it must refuse. The real clients are the
 * reference: every stream accepted here is one both accept, and the refusals name the frame.
 */
import { describe, expect, it } from "vitest";
import { lifecycleBreak } from "../../conformance/rules/lifecycle.ts";
import { eventFrames, splitBlocks } from "../../conformance/sse-reader.ts";
import { assertAcceptedByBoth, checkWithBothClients } from "../support/agui-clients.ts";

const RS = { type: "RUN_STARTED", threadId: "t", runId: "r" };
const RF = { type: "RUN_FINISHED", threadId: "t", runId: "r" };
const sse = (events: object[]) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");
const check = (events: object[]) => lifecycleBreak(eventFrames(splitBlocks(sse(events))));

describe("the lifecycle rule", () => {
  it.each([
    {
      name: "text, reasoning and a tool call, each closed",
      events: [
        RS,
        { type: "REASONING_START", messageId: "r1" },
        { type: "REASONING_MESSAGE_START", messageId: "r1", role: "reasoning" },
        { type: "REASONING_MESSAGE_CONTENT", messageId: "r1", delta: "hm" },
        { type: "REASONING_MESSAGE_END", messageId: "r1" },
        { type: "REASONING_END", messageId: "r1" },
        { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" },
        { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "hi" },
        { type: "TEXT_MESSAGE_END", messageId: "m1" },
        { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "x", parentMessageId: "m1" },
        { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: "{}" },
        { type: "TOOL_CALL_END", toolCallId: "c1" },
        RF,
      ],
    },
    {
      name: "chunk events, which open and close themselves",
      events: [RS, { type: "TEXT_MESSAGE_CHUNK", messageId: "m1", delta: "a" }, { type: "TEXT_MESSAGE_CHUNK", delta: "b" }, RF],
    },
    {
      name: "RUN_ERROR while a message is open",
      events: [RS, { type: "TEXT_MESSAGE_START", messageId: "m1" }, { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "a" }, { type: "RUN_ERROR", message: "upstream" }],
    },
  ])("accepts $name, as both clients do", async ({ events }) => {
    expect(check(events)).toBeUndefined();
    assertAcceptedByBoth(await checkWithBothClients(sse(events), { threadId: "t" }));
  });

  it.each([
    { name: "a first event other than RUN_STARTED", events: [{ type: "TEXT_MESSAGE_START", messageId: "m" }, RF], detail: "the first event is TEXT_MESSAGE_START, not RUN_STARTED", frame: "TEXT_MESSAGE_START" },
    { name: "a second run after the first finished", events: [RS, RF, RS, RF], detail: "RUN_STARTED after the terminal RUN_FINISHED: nothing may follow it", frame: "RUN_STARTED" },
    { name: "a second RUN_STARTED inside the run", events: [RS, RS, RF], detail: "a second RUN_STARTED in one run's response", frame: "RUN_STARTED" },
    { name: "args before the tool call starts", events: [RS, { type: "TOOL_CALL_ARGS", toolCallId: "c", delta: "{}" }, RF], detail: "TOOL_CALL_ARGS for toolCallId c before its TOOL_CALL_START (or after its TOOL_CALL_END)", frame: "TOOL_CALL_ARGS" },
    { name: "a reasoning span left open", events: [RS, { type: "REASONING_START", messageId: "r" }, RF], detail: "RUN_FINISHED while a reasoning span is still open: r (no REASONING_END)", frame: "RUN_FINISHED" },
    { name: "a message started twice", events: [RS, { type: "TEXT_MESSAGE_START", messageId: "m" }, { type: "TEXT_MESSAGE_START", messageId: "m" }], detail: "TEXT_MESSAGE_START for messageId m, which is already open", frame: "TEXT_MESSAGE_START" },
    { name: "an END for a chunked message", events: [RS, { type: "TEXT_MESSAGE_CHUNK", messageId: "m", delta: "a" }, { type: "TEXT_MESSAGE_END", messageId: "m" }, RF], detail: "TEXT_MESSAGE_END for messageId m before its TEXT_MESSAGE_START (or after its TEXT_MESSAGE_END)", frame: "TEXT_MESSAGE_END" },
    { name: "two terminal events", events: [RS, RF, { type: "RUN_ERROR", message: "x" }], detail: "RUN_ERROR after the terminal RUN_FINISHED: nothing may follow it", frame: "RUN_ERROR" },
  ])("refuses $name, naming the frame", ({ events, detail, frame }) => {
    const broken = check(events);
    expect(broken?.detail).toBe(detail);
    expect(JSON.parse(broken!.frame.replace(/^data: /, "")).type).toBe(frame);
  });
});
