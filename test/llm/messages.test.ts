/**
 * toOpenAIMessages: AG-UI messages to Chat Completions messages, including the repairs that
 * keep a thread's history acceptable to the API.
 */
import type { Message } from "@ag-ui/core";
import { describe, expect, it } from "vitest";
import { MISSING_TOOL_RESULT } from "../../server/models/from-agui.ts";
import { openaiMessagesOf as toOpenAIMessages } from "./support.ts";

const call = (id: string, name: string, args = "{}") => ({ id, type: "function" as const, function: { name, arguments: args } });

describe("toOpenAIMessages", () => {
  it("puts the system prompt first and keeps system and developer messages as system", () => {
    const out = toOpenAIMessages(
      [
        { id: "s", role: "system", content: "Client rules." },
        { id: "d", role: "developer", content: "Developer rules." },
        { id: "u", role: "user", content: "Hi" },
      ],
      "You are helpful.",
    );
    expect(out).toEqual([
      { role: "system", content: "You are helpful." },
      { role: "system", content: "Client rules." },
      { role: "system", content: "Developer rules." },
      { role: "user", content: "Hi" },
    ]);
    expect(toOpenAIMessages([{ id: "u", role: "user", content: "Hi" }], "  ")).toEqual([{ role: "user", content: "Hi" }]);
  });

  it("converts user content parts: text, images by data or URL, audio, documents, and says what it cannot pass", () => {
    const out = toOpenAIMessages(
      [
        {
          id: "u",
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image", source: { type: "data", value: "AAAA", mimeType: "image/png" } },
            { type: "image", source: { type: "url", value: "https://example.com/cat.jpg" } },
            { type: "audio", source: { type: "data", value: "UklG", mimeType: "audio/wav" } },
            { type: "document", source: { type: "data", value: "JVBE", mimeType: "application/pdf" }, metadata: { filename: "a.pdf" } },
            { type: "video", source: { type: "url", value: "https://example.com/v.mp4", mimeType: "video/mp4" } },
          ],
        },
      ],
      "",
    );
    expect(out).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "What is this?" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
          { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
          { type: "input_audio", input_audio: { data: "UklG", format: "wav" } },
          { type: "file", file: { file_data: "data:application/pdf;base64,JVBE", filename: "a.pdf" } },
          { type: "text", text: "[video attachment (video/mp4) omitted: it cannot be passed to the model]" },
        ],
      },
    ]);
  });

  it("converts assistant tool calls and places each result right after its call", () => {
    const out = toOpenAIMessages(
      [
        { id: "u", role: "user", content: "Weather and time?" },
        { id: "a", role: "assistant", content: "Checking.", toolCalls: [call("c1", "get_weather", '{"location":"Paris"}'), call("c2", "get_time", "")] },
        { id: "t2", role: "tool", toolCallId: "c2", content: "12:00" },
        { id: "t1", role: "tool", toolCallId: "c1", content: [{ type: "text", text: '{"temperature":18}' }] },
        { id: "a2", role: "assistant", content: "18°C at noon." },
      ],
      "",
    );
    expect(out).toEqual([
      { role: "user", content: "Weather and time?" },
      {
        role: "assistant",
        content: "Checking.",
        tool_calls: [
          { id: "c1", type: "function", function: { name: "get_weather", arguments: '{"location":"Paris"}' } },
          // A call that streamed no arguments is sent as "{}": providers reject "".
          { id: "c2", type: "function", function: { name: "get_time", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: '{"temperature":18}' },
      { role: "tool", tool_call_id: "c2", content: "12:00" },
      { role: "assistant", content: "18°C at noon." },
    ]);
  });

  it("sends null content for an assistant message that only calls tools", () => {
    const out = toOpenAIMessages([{ id: "a", role: "assistant", toolCalls: [call("c1", "x")] }, { id: "t", role: "tool", toolCallId: "c1", content: "ok" }], "");
    expect(out[0]).toEqual({ role: "assistant", content: null, tool_calls: [call("c1", "x")] });
  });

  it("moves a late result back to its call, states a missing one, and drops an orphan", () => {
    const messages: Message[] = [
      { id: "a", role: "assistant", toolCalls: [call("late", "change_background"), call("never", "confirm_action")] },
      { id: "u", role: "user", content: "Never mind." },
      { id: "t1", role: "tool", toolCallId: "late", content: "done" },
      { id: "t2", role: "tool", toolCallId: "ghost", content: "who am I?" },
    ];
    expect(toOpenAIMessages(messages, "")).toEqual([
      { role: "assistant", content: null, tool_calls: [call("late", "change_background"), call("never", "confirm_action")] },
      { role: "tool", tool_call_id: "late", content: "done" },
      { role: "tool", tool_call_id: "never", content: MISSING_TOOL_RESULT },
      { role: "user", content: "Never mind." },
    ]);
  });

  it("tells the model about a tool error", () => {
    const out = toOpenAIMessages(
      [
        { id: "a", role: "assistant", toolCalls: [call("c1", "get_weather"), call("c2", "get_weather")] },
        { id: "t1", role: "tool", toolCallId: "c1", content: "", error: "city not found" },
        { id: "t2", role: "tool", toolCallId: "c2", content: '{"partial":true}', error: "timeout" },
      ],
      "",
    );
    expect(out.slice(1)).toEqual([
      { role: "tool", tool_call_id: "c1", content: "Error: city not found" },
      { role: "tool", tool_call_id: "c2", content: 'Error: timeout\n{"partial":true}' },
    ]);
  });

  it("drops activity and reasoning messages and empty assistant messages", () => {
    const out = toOpenAIMessages(
      [
        { id: "u", role: "user", content: "Go" },
        { id: "r", role: "reasoning", content: "thinking" },
        { id: "act", role: "activity", activityType: "progress", content: { step: 1 } },
        { id: "a0", role: "assistant", content: "" },
        { id: "a", role: "assistant", content: "Went." },
      ],
      "",
    );
    expect(out).toEqual([
      { role: "user", content: "Go" },
      { role: "assistant", content: "Went." },
    ]);
  });
});

describe("toOpenAIMessages: tool-call ids the engine minted", () => {
  it("sends each call and its result under the upstream's own id, kept in the call's metadata", () => {
    const origin = (id: string) => ({ metadata: { providerToolCallId: id } });
    const call = (id: string, extra = {}) => ({ id, type: "function" as const, function: { name: "lookup", arguments: "{}" }, ...extra });
    const out = toOpenAIMessages(
      [
        { id: "a1", role: "assistant", toolCalls: [call("call_0")] },
        { id: "t1", role: "tool", toolCallId: "call_0", content: "one" },
        // a later turn that repeated "call_0", and an answer that said it twice
        { id: "a2", role: "assistant", toolCalls: [call("call-m2", origin("call_0")), call("call-m3", origin("call_0"))] },
        { id: "t2", role: "tool", toolCallId: "call-m2", content: "two" },
        { id: "t3", role: "tool", toolCallId: "call-m3", content: "three" },
      ],
      "",
    );
    expect(out.map((m) => [m.role, "tool_calls" in m ? m.tool_calls?.map((c) => c.id) : "tool_call_id" in m ? m.tool_call_id : null, m.content ?? null])).toEqual([
      ["assistant", ["call_0"], null],
      ["tool", "call_0", "one"],
      // the second "call_0" of one message keeps the log's id: the upstream could not pair two
      ["assistant", ["call_0", "call-m3"], null],
      ["tool", "call_0", "two"],
      ["tool", "call-m3", "three"],
    ]);
  });
});
