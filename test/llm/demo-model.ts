/**
 * The built-in demo model as the demo tests drive it, one turn at a time, two ways at once: the
 * DemoModel (in process, as servers run it) and the same script served by aimock on loopback
 * (test/support/demo-upstream.ts) read through the real openai SDK and the openai adapter. Every
 * turn asserts that both yield the same parts (tool call ids minted per answer aside), so the
 * in-process demo keeps the adapter's streaming exactly: slices, reasoning, calls, usage, finish.
 * Shared so that the general demo test and the coding-agent one stage the model the same way.
 */
import type { Message } from "@ag-ui/core";
import { afterAll, beforeAll, expect } from "vitest";
import { DemoModel } from "../../server/models/demo/demo-model.ts";
import { toModelMessages } from "../../server/models/from-agui.ts";
import type { ModelPart, ModelTool } from "../../server/models/model.ts";
import { createOpenAIClient } from "../../server/models/openai/client.ts";
import { OpenAIModel } from "../../server/models/openai/model.ts";
import { type DemoUpstream, startDemoUpstream } from "../support/demo-upstream.ts";
import { callsOf, collect, textOf } from "./support.ts";

/** The ids the scripts derive from the request (request.ts); any other was minted for one answer. */
const SCRIPTED_ID = /^call_[0-9a-f]{24}$/;

function sameIds(parts: ModelPart[]): ModelPart[] {
  return parts.map((p) => (p.type === "tool-call-start" && !SCRIPTED_ID.test(p.id) ? { ...p, id: "(minted)" } : p));
}

/**
 * Starts the demo upstream before the file's tests and stops it after them (call at the top
 * level of a test file). Returns one turn: the model's parts for `messages` under the system
 * prompt `system`, with the text, the reasoning and the tool calls (arguments parsed) read out.
 */
export function withDemoModel(system: string) {
  let demo: DemoUpstream;
  let viaUpstream: OpenAIModel;
  const model = new DemoModel({ latencyMs: 0 });

  beforeAll(async () => {
    demo = await startDemoUpstream({ latencyMs: 0 });
    viaUpstream = new OpenAIModel({ client: createOpenAIClient({ baseURL: demo.url, apiKey: "demo", maxRetries: 0 }), model: "gpt-4o-mini" });
  });

  afterAll(async () => {
    await demo.stop();
  });

  return async function turn(messages: Message[], tools: ModelTool[]) {
    const request = () => ({ messages: toModelMessages(messages, system), tools, signal: new AbortController().signal });
    const [deltas, upstream] = await Promise.all([collect(model.stream(request())), collect(viaUpstream.stream(request()))]);
    expect(sameIds(deltas), "the in-process demo model and the demo script through aimock and the openai adapter").toEqual(sameIds(upstream));
    const calls = callsOf(deltas).map((c) => ({ ...c, args: JSON.parse(c.args) as Record<string, unknown> }));
    return { deltas, text: textOf(deltas), reasoning: textOf(deltas, "reasoning"), calls, finish: deltas.at(-1) };
  };
}
