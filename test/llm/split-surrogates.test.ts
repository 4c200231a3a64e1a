/**
 * Model output never fails a run: a real server on each backend, its default model adapter (the
 * real `openai` SDK) reading a scripted upstream whose chunks end between the two halves of
 * emoji, in text and in tool-call arguments, with NUL and a half pair that never completes; then
 * the built-in demo model with an emoji at every offset of the user's words.
 */
import { randomUUID } from "node:crypto";
import type { Message } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool } from "../../server/agents/define.ts";
import { demoAgents } from "../../server/agents/demos/index.ts";
import { DemoModel } from "../../server/models/demo/demo-model.ts";
import { UNSTORABLE_TEXT } from "../../server/store/storable-text.ts";
import { runClient } from "../support/agui-clients.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../support/scripted-upstream.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";

/** Cuts `s` right after every high surrogate: each piece but the last ends in half a pair. */
function splitInsidePairs(s: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      pieces.push(s.slice(start, i + 1));
      start = i + 1;
    }
  }
  pieces.push(s.slice(start));
  return pieces;
}

const NUL_SIGN = "\u2400";

// The first answer: text with two emoji and a NUL, then a call whose arguments split two emoji
// and hold a raw NUL inside the string (JSON that only parses once the NUL is replaced) and an
// escaped one (`\u0000`, which parses to a NUL the tool would otherwise receive).
const TEXT = "Hi 😀 there 🎉, x\u0000y";
const ARGS_VALUE_RAW = "mood 😀 and 🎉 a\u0000b";
const ARGS = `{"text":"${ARGS_VALUE_RAW}\\u0000 end"}`;
// The answer after the tool's result ends in a high surrogate whose low half never comes.
const FINAL = "Got it 👍 bye\ud83d";

interface ThreadView {
  status: string;
  messages: Array<Message & { toolCalls?: { function: { arguments: string } }[] }>;
}

describe.each(backends())("model output that splits surrogate pairs, on %s", (backend) => {
  let upstream: ScriptedUpstream;
  let server: TestServer;
  const received: string[] = [];

  beforeAll(async () => {
    upstream = await startScriptedUpstream((body) => {
      const afterTools = body.messages.at(-1)?.role === "tool";
      if (body.tools?.some((t) => t.function.name === "echo")) {
        return afterTools
          ? { text: splitInsidePairs(FINAL) }
          : { text: splitInsidePairs(TEXT), toolCalls: [{ id: `call-${randomUUID()}`, name: "echo", arguments: splitInsidePairs(ARGS) }] };
      }
      return afterTools ? { text: ["done"] } : { toolCalls: ["raw", "nested", "noisy"].map((name) => ({ id: `call-${randomUUID()}`, name, arguments: "{}" })) };
    });
    const echo = defineTool({
      name: "echo",
      description: "Returns the text it was given.",
      inputSchema: z.object({ text: z.string() }),
      execute: ({ text }) => {
        received.push(text);
        return { received: text };
      },
    });
    // Tools whose output holds what the log cannot store: a string, a JSON result (values and
    // keys), terminal output, an artifact's diff and an error message.
    const noArgs = z.object({});
    const raw = defineTool({ name: "raw", description: "raw", inputSchema: noArgs, execute: () => "x\u0000y\uD83D" });
    const nested = defineTool({ name: "nested", description: "nested", inputSchema: noArgs, execute: () => ({ "k\u0000": "\uDE00", list: ["a\u0000", "😀"] }) });
    const noisy = defineTool({
      name: "noisy",
      description: "noisy",
      inputSchema: noArgs,
      async execute(_args, ctx) {
        await ctx.terminal("out\u0000put \uD83D");
        await ctx.artifact({ path: "a.txt", action: "edited", fileType: "txt", size: 2, diff: "-a\u0000\n+b\n" });
        throw new Error("bad \u0000 \uDC00");
      },
    });
    server = await startTestServer({
      backend,
      llmUrl: upstream.url,
      agents: [
        defineAgent({ id: "echoer", description: "echoes", instructions: "Echo.", tools: [echo], maxTurns: 3 }),
        defineAgent({ id: "dumper", description: "dumps", instructions: "Dump.", tools: [raw, nested, noisy], maxTurns: 3 }),
      ],
    });
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.close();
  });

  it("through the openai SDK: the run finishes, and text, arguments and result keep their emoji", async () => {
    const threadId = `split-${randomUUID()}`;
    const out = await runClient("1.0.0", {
      url: `${server.url}/api/agents/echoer/run`,
      input: { threadId, messages: [{ id: "u1", role: "user", content: "echo something" }] },
    });
    expect(out.events.find((e) => e.type === "RUN_ERROR")?.message).toBeUndefined();
    expect(out.events.at(-1)?.type).toBe("RUN_FINISHED");

    const thread = (await (await fetch(`${server.url}/api/threads/${threadId}`)).json()) as ThreadView;
    // Settled, not FAILED: a run that ends in an answer leaves its thread waiting for input
    // (COMPLETED is for an agent that declares its work done, ctx.complete()).
    expect(thread.status).toBe("WAITING");
    const [, first, result, last] = thread.messages;
    expect(first?.content).toBe(`Hi 😀 there 🎉, x${NUL_SIGN}y`);
    // The arguments as streamed, pairs whole again; the raw NUL shown, the escaped one kept as text.
    const args = first?.toolCalls?.[0]?.function.arguments ?? "";
    expect(args).toBe(`{"text":"mood 😀 and 🎉 a${NUL_SIGN}b\\u0000 end"}`);
    // The tool got well-formed text: the escaped NUL became the same sign.
    expect(received.at(-1)).toBe(`mood 😀 and 🎉 a${NUL_SIGN}b${NUL_SIGN} end`);
    expect(JSON.parse(String(result?.content))).toEqual({ received: received.at(-1) });
    expect(last?.content).toBe("Got it 👍 bye\uFFFD");
    // What a client saw streamed is what was stored.
    const streamed = out.events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("");
    expect(streamed).toBe(`${first?.content}${last?.content}`);
  });

  it("tool results, nested JSON, terminal output, a diff and a tool's error: stored by the same rule", async () => {
    const threadId = `dump-${randomUUID()}`;
    const out = await runClient("1.0.0", {
      url: `${server.url}/api/agents/dumper/run`,
      input: { threadId, messages: [{ id: "u1", role: "user", content: "dump" }] },
    });
    expect(out.events.find((e) => e.type === "RUN_ERROR")?.message).toBeUndefined();
    expect(out.events.at(-1)?.type).toBe("RUN_FINISHED");

    const thread = (await (await fetch(`${server.url}/api/threads/${threadId}`)).json()) as ThreadView;
    expect(thread.status).toBe("WAITING");
    const results = thread.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
    expect(results[0]).toBe(`x${NUL_SIGN}y\uFFFD`);
    expect(JSON.parse(results[1]!)).toEqual({ [`k${NUL_SIGN}`]: "\uFFFD", list: [`a${NUL_SIGN}`, "😀"] });
    expect(JSON.parse(results[2]!)).toEqual({ error: `noisy failed: bad ${NUL_SIGN} \uFFFD` });
    const { events } = (await (await fetch(`${server.url}/api/threads/${threadId}/events`)).json()) as { events: { type: string; data: Record<string, unknown> }[] };
    expect(events.filter((e) => e.type === "terminal.output").map((e) => e.data.data)).toEqual([`out${NUL_SIGN}put \uFFFD`]);
    expect(events.find((e) => e.type === "artifact.written")?.data).toMatchObject({ path: "a.txt", diff: `-a${NUL_SIGN}\n+b\n` });
  });
});

describe.each(backends())("the demo model with an emoji at every offset of the user's words, on %s", (backend) => {
  let server: TestServer;
  let model: DemoModel;
  beforeAll(async () => {
    model = new DemoModel({ latencyMs: 0 });
    server = await startTestServer({ backend, model, agents: demoAgents({ planStepDelayMs: 5 }) });
  });
  afterAll(async () => {
    await server?.close();
    await model?.close();
  });

  const run = async (agentId: string, input: { messages: Message[]; tools?: { name: string; description: string; parameters: unknown }[]; context?: { description: string; value: string }[]; state?: unknown }) => {
    const threadId = `${agentId}-${randomUUID()}`;
    const out = await runClient("1.0.0", { url: `${server.url}/api/agents/${agentId}/run`, input: { threadId, ...input } });
    expect(out.events.find((e) => e.type === "RUN_ERROR")).toBeUndefined();
    expect(out.events.at(-1)?.type).toBe("RUN_FINISHED");
    return out;
  };

  it("human_in_the_loop: confirm_action carries the user's words, emoji whole, at offsets 0..8", async () => {
    const tools = [{ name: "confirm_action", description: "confirm", parameters: { type: "object", properties: {} } }];
    for (let k = 0; k <= 8; k++) {
      const words = `Delete ${"x".repeat(k)}😀 drafts 🎉`;
      const out = await run("human_in_the_loop", { messages: [{ id: randomUUID(), role: "user", content: words }], tools });
      const call = out.messages.findLast((m) => m.role === "assistant" && (m.toolCalls?.length ?? 0) > 0);
      const args = call?.role === "assistant" ? call.toolCalls?.[0]?.function.arguments : undefined;
      expect(JSON.parse(args ?? "null")).toMatchObject({ action: words });
    }
  });

  it("shared_state: a user's ingredient with an emoji at offsets 0..8 comes back whole", async () => {
    for (let k = 0; k <= 8; k++) {
      const recipe = {
        title: "Soup",
        skill_level: "Beginner",
        cooking_time: "10 min",
        ingredients: [{ icon: "🍄", name: `${"x".repeat(k)}🍄 mushrooms`, amount: "1" }],
        instructions: ["Cook."],
      };
      const out = await run("shared_state", {
        messages: [{ id: randomUUID(), role: "user", content: `Improve it ${"y".repeat(k)}😀` }],
        state: { recipe },
        context: [{ description: "The current recipe (state.recipe)", value: JSON.stringify(recipe) }],
      });
      const names = (out.state as { recipe: typeof recipe }).recipe.ingredients.map((i) => i.name);
      expect(names[0]).toBe(recipe.ingredients[0]!.name);
    }
  });
});

describe("the demo model's own stream", () => {
  let model: DemoModel;
  beforeAll(() => {
    model = new DemoModel({ latencyMs: 0 });
  });
  afterAll(async () => {
    await model?.close();
  });

  it("never cuts inside a surrogate pair, in text or in arguments, whatever the offset", async () => {
    const tools = [{ name: "confirm_action", description: "confirm", inputSchema: { type: "object", properties: {} } }];
    // The demo calls run_plan only for an agent that has it (it never calls a tool the agent lacks).
    const planTools = [{ name: "run_plan", description: "plan", inputSchema: { type: "object", properties: { goal: { type: "string" }, steps: { type: "array", items: { type: "string" } } }, required: ["goal", "steps"] } }];
    for (let k = 0; k <= 8; k++) {
      const words = `Delete ${"x".repeat(k)}😀 drafts ${"y".repeat(k)}🎉`;
      const requests = [
        [{ role: "user" as const, content: [{ type: "text" as const, text: words }] }],
        // A plan: the demo quotes the goal in its text and in run_plan's arguments.
        [{ role: "user" as const, content: [{ type: "text" as const, text: `plan to go ${"x".repeat(k)}😀 out ${"y".repeat(k)}🎉` }] }],
      ];
      for (const [i, messages] of requests.entries()) {
        const deltas: string[] = [];
        for await (const part of model.stream({ messages, tools: i === 0 ? tools : planTools, signal: new AbortController().signal })) {
          if (part.type === "text-delta" || part.type === "reasoning-delta" || part.type === "tool-call-args-delta") deltas.push(part.delta);
        }
        expect(deltas.length).toBeGreaterThan(1);
        for (const d of deltas) expect(UNSTORABLE_TEXT.test(d), JSON.stringify(d)).toBe(false);
        expect(deltas.join("")).toContain(i === 0 ? words : `go ${"x".repeat(k)}😀 out ${"y".repeat(k)}🎉`);
      }
    }
  });
});
