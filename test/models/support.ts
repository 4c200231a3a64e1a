/**
 * The three adapters under test, each built the way an application would build it, against one
 * aimock (OpenAI's /v1/chat/completions, Anthropic's /v1/messages), through the real SDKs.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { aiSdkModel } from "../../server/models/ai-sdk/model.ts";
import type { Model } from "../../server/models/model.ts";
import { createOpenAIClient } from "../../server/models/openai/client.ts";
import { OpenAIModel } from "../../server/models/openai/model.ts";

export interface AdapterCase {
  name: string;
  /** The provider streams reasoning that aimock can script. */
  reasoning: boolean;
  /** `baseUrl` is aimock's root (no /v1). */
  build(baseUrl: string, opts?: { maxRetries?: number; readTimeoutMs?: number }): Model;
}

export const ADAPTERS: AdapterCase[] = [
  {
    name: "openai SDK",
    reasoning: true,
    build: (baseUrl, opts = {}) =>
      new OpenAIModel({
        client: createOpenAIClient({ baseURL: `${baseUrl}/v1`, apiKey: "test", maxRetries: opts.maxRetries ?? 0, ...(opts.readTimeoutMs && { readTimeoutMs: opts.readTimeoutMs }) }),
        model: "gpt-4o-mini",
      }),
  },
  {
    name: "AI SDK @ai-sdk/openai",
    // The AI SDK's OpenAI chat model does not read reasoning_content (OpenAI's API has none).
    reasoning: false,
    build: (baseUrl, opts = {}) => aiSdkModel(createOpenAI({ baseURL: `${baseUrl}/v1`, apiKey: "test" }).chat("gpt-4o-mini"), { maxRetries: opts.maxRetries ?? 0, ...(opts.readTimeoutMs && { readTimeoutMs: opts.readTimeoutMs }) }),
  },
  {
    name: "AI SDK @ai-sdk/anthropic",
    reasoning: true,
    build: (baseUrl, opts = {}) => aiSdkModel(createAnthropic({ baseURL: `${baseUrl}/v1`, apiKey: "test" })("claude-sonnet-4-5"), { maxRetries: opts.maxRetries ?? 0, ...(opts.readTimeoutMs && { readTimeoutMs: opts.readTimeoutMs }) }),
  },
];

/** A held Anthropic Messages stream: a message and one text delta, then nothing. */
export function anthropicHead(text: string): string {
  const ev = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  return (
    ev("message_start", {
      message: { id: "msg_1", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 0 } },
    }) +
    ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } }) +
    ev("content_block_delta", { index: 0, delta: { type: "text_delta", text } })
  );
}
