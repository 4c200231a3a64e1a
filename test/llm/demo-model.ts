/**
 * The built-in demo model as the demo tests drive it: its upstream on loopback (startDemoUpstream)
 * for the file's tests, reached through the real openai SDK and the wrapper, one turn at a time.
 * Shared so that the general demo test and the coding-agent one stage the model the same way.
 */
import type { Message } from "@ag-ui/core";
import { afterAll, beforeAll } from "vitest";
import { startDemoUpstream, type DemoUpstream } from "../../server/demo/upstream.ts";
import { toModelMessages } from "../../server/models/from-agui.ts";
import type { ModelTool } from "../../server/models/model.ts";
import { createOpenAIClient } from "../../server/models/openai/client.ts";
import { OpenAIModel } from "../../server/models/openai/model.ts";
import { callsOf, collect, textOf } from "./support.ts";

/**
 * Starts the demo upstream before the file's tests and stops it after them (call at the top
 * level of a test file). Returns one turn: the model's parts for `messages` under the system
 * prompt `system`, with the text, the reasoning and the tool calls (arguments parsed) read out.
 */
export function withDemoModel(system: string) {
  let demo: DemoUpstream;
  let model: OpenAIModel;

  beforeAll(async () => {
    demo = await startDemoUpstream({ latencyMs: 0 });
    model = new OpenAIModel({ client: createOpenAIClient({ baseURL: demo.url, apiKey: "demo", maxRetries: 0 }), model: "gpt-4o-mini" });
  });

  afterAll(async () => {
    await demo.stop();
  });

  return async function turn(messages: Message[], tools: ModelTool[]) {
    const signal = new AbortController().signal;
    const deltas = await collect(model.stream({ messages: toModelMessages(messages, system), tools, signal }));
    const calls = callsOf(deltas).map((c) => ({ ...c, args: JSON.parse(c.args) as Record<string, unknown> }));
    return { deltas, text: textOf(deltas), reasoning: textOf(deltas, "reasoning"), calls, finish: deltas.at(-1) };
  };
}
