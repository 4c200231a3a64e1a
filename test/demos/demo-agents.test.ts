/**
 * Each feature demo agent's scripted offline run, end to end through the real server and the
 * real AG-UI clients (@ag-ui/client 1.0.0 and 0.0.59): the built-in demo model answers, so this
 * is exactly what `npm start` does without an API key. Frontend tools are answered the way the
 * web app answers them: a second run whose last message is the tool's result.
 */
import { randomUUID } from "node:crypto";
import type { Context, Message, Tool } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultAgent } from "../../server/agents/default-agent.ts";
import { demoAgents } from "../../server/agents/demos/index.ts";
import { startDemoUpstream, type DemoUpstream } from "../support/demo-upstream.ts";
import { CLIENT_VERSIONS, runClient, type ClientOutcome, type ClientVersion } from "../support/agui-clients.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

let demo: DemoUpstream;
let server: TestServer;

beforeAll(async () => {
  demo = await startDemoUpstream({ latencyMs: 0 });
  server = await startTestServer({ backend: "pglite", llmUrl: demo.url, agents: [defaultAgent(), ...demoAgents({ planStepDelayMs: 5 })] });
});

afterAll(async () => {
  await server?.close();
  await demo?.stop();
});

const tool = (name: string): Tool => ({ name, description: name, parameters: { type: "object", properties: {} } });

interface Turn {
  messages?: Message[];
  state?: unknown;
  tools?: Tool[];
  context?: Context[];
}

async function run(version: ClientVersion, agentId: string, threadId: string, turn: Turn): Promise<ClientOutcome> {
  const outcome = await runClient(version, {
    url: `${server.url}/api/agents/${agentId}/run`,
    input: { threadId, ...turn },
  });
  expect(outcome.error?.message).toBeUndefined();
  expect(outcome.failed).toBe(false);
  expect(outcome.events.at(-1)?.type).toBe("RUN_FINISHED");
  return outcome;
}

const user = (content: string): Message => ({ id: randomUUID(), role: "user", content });

function lastText(outcome: ClientOutcome): string {
  const m = outcome.messages.findLast((x) => x.role === "assistant" && typeof x.content === "string" && x.content !== "");
  return (m?.content as string | undefined) ?? "";
}

function lastCall(outcome: ClientOutcome) {
  const m = outcome.messages.findLast((x) => x.role === "assistant" && (x.toolCalls?.length ?? 0) > 0);
  const call = m?.role === "assistant" ? m.toolCalls!.at(-1)! : undefined;
  return call && { id: call.id, name: call.function.name, args: JSON.parse(call.function.arguments) as Record<string, unknown> };
}

/** A frontend tool's round trip: the run stops at the call; the answer starts the next run. */
async function answerCall(version: ClientVersion, agentId: string, threadId: string, first: ClientOutcome, result: unknown, tools: Tool[]) {
  const call = lastCall(first)!;
  const answer: Message = { id: randomUUID(), role: "tool", toolCallId: call.id, content: JSON.stringify(result) };
  return run(version, agentId, threadId, { messages: [...first.messages, answer], tools, state: first.state });
}

describe.each(CLIENT_VERSIONS)("demo agents, offline, through @ag-ui/client %s", (version) => {
  it("agentic_chat: the page's change_background tool is called, and its result answered", async () => {
    const threadId = randomUUID();
    const tools = [tool("change_background")];
    const first = await run(version, "agentic_chat", threadId, { messages: [user("Change the background to blue")], tools });
    expect(lastCall(first)).toMatchObject({ name: "change_background", args: { background: "blue" } });
    const second = await answerCall(version, "agentic_chat", threadId, first, { ok: true }, tools);
    expect(lastText(second)).toContain("Done");
  });

  it("backend_tool_rendering: get_weather runs on the server and its result comes back as TOOL_CALL_RESULT", async () => {
    const outcome = await run(version, "backend_tool_rendering", randomUUID(), { messages: [user("What's the weather in Paris?")] });
    expect(lastCall(outcome)).toMatchObject({ name: "get_weather", args: { location: "Paris" } });
    const result = outcome.events.find((e) => e.type === "TOOL_CALL_RESULT");
    expect(JSON.parse(String(result?.content))).toMatchObject({ location: "Paris", temperature: expect.any(Number) });
    expect(lastText(outcome)).toContain("In Paris it is");
  });

  it("human_in_the_loop: confirm_action asks, and the approval is what the agent acts on", async () => {
    const tools = [tool("confirm_action")];
    for (const approved of [true, false]) {
      const threadId = randomUUID();
      const first = await run(version, "human_in_the_loop", threadId, { messages: [user("Delete the old drafts")], tools });
      expect(lastCall(first)).toMatchObject({ name: "confirm_action", args: { action: "Delete the old drafts" } });
      const second = await answerCall(version, "human_in_the_loop", threadId, first, { approved }, tools);
      expect(lastText(second)).toContain(approved ? "Approved, so I went ahead" : "Cancelled");
    }
  });

  it("human_in_the_loop: with the dojo's generate_task_steps on offer, the steps the user keeps are the ones performed", async () => {
    const tools = [tool("generate_task_steps")];
    const threadId = randomUUID();
    const first = await run(version, "human_in_the_loop", threadId, { messages: [user("Clean the garage")], tools });
    const call = lastCall(first)!;
    expect(call.name).toBe("generate_task_steps");
    const steps = call.args.steps as { description: string; status: string }[];
    expect(steps.every((s) => s.status === "enabled")).toBe(true);
    const second = await answerCall(version, "human_in_the_loop", threadId, first, { accepted: true, steps: steps.slice(1) }, tools);
    expect(lastText(second)).toBe(`Performed ${steps.length - 1} steps: ${steps.slice(1).map((s) => s.description).join("; ")}.`);
  });

  it("agentic_generative_ui: generate_task_steps_generative_ui's steps reach the client as state deltas, each step completed", async () => {
    const outcome = await run(version, "agentic_generative_ui", randomUUID(), { messages: [user("Make a plan to launch the website")] });
    expect(lastCall(outcome)?.name).toBe("generate_task_steps_generative_ui");
    expect(outcome.events.filter((e) => e.type === "STATE_DELTA").length).toBeGreaterThanOrEqual(1 + 2 * 4);
    const state = outcome.state as { steps: { description: string; status: string }[] };
    expect(state.steps.map((s) => s.status)).toEqual(["completed", "completed", "completed", "completed"]);
    expect(state.steps[2]!.description).toBe("Carrying out: launch the website");
    expect(lastText(outcome)).toContain("all 4 steps");
  });

  it("tool_based_generative_ui: generate_haiku is called with the haiku as its arguments", async () => {
    const threadId = randomUUID();
    const tools = [tool("generate_haiku")];
    const first = await run(version, "tool_based_generative_ui", threadId, { messages: [user("A haiku about the moon")], tools });
    const call = lastCall(first)!;
    expect(call.name).toBe("generate_haiku");
    expect(call.args).toMatchObject({ japanese: expect.any(Array), english: expect.any(Array), gradient: expect.stringContaining("gradient") });
    expect(call.args.english).toHaveLength(3);
    const second = await answerCall(version, "tool_based_generative_ui", threadId, first, "Haiku shown", tools);
    expect(lastText(second)).toContain("Buson");
  });

  it("shared_state: the agent starts a recipe, then builds on the user's edit of it", async () => {
    const threadId = randomUUID();
    const first = await run(version, "shared_state", threadId, { messages: [user("Suggest a recipe")] });
    const recipe = (first.state as { recipe: { title: string; ingredients: { icon: string; name: string; amount: string }[] } }).recipe;
    expect(recipe.title).toBe("Pasta al pomodoro");

    // The user's edit: an ingredient of their own, in the state and in the context the page sends.
    const edited = { ...recipe, ingredients: [...recipe.ingredients, { icon: "🍄", name: "Mushrooms", amount: "150 g" }] };
    const second = await run(version, "shared_state", threadId, {
      messages: [...first.messages, user("Improve it")],
      state: { recipe: edited },
      context: [{ description: "The current recipe (state.recipe)", value: JSON.stringify(edited) }],
    });
    const names = (second.state as { recipe: typeof recipe }).recipe.ingredients.map((i) => i.name);
    expect(names).toEqual([...recipe.ingredients.map((i) => i.name), "Mushrooms", "Fresh basil"]);
    expect(second.events.some((e) => e.type === "STATE_DELTA")).toBe(true);
    expect(lastText(second)).toContain("kept your changes");
  });

  it("predictive_state_updates: write_document_local's argument becomes state.document", async () => {
    const outcome = await run(version, "predictive_state_updates", randomUUID(), { messages: [user("Write a document about the sea")] });
    expect(lastCall(outcome)?.name).toBe("write_document_local");
    // The arguments stream in many chunks, and predictState follows them: state.document grows
    // through STATE_DELTA frames before the call ends.
    expect(outcome.events.filter((e) => e.type === "TOOL_CALL_ARGS").length).toBeGreaterThan(10);
    const end = outcome.events.findIndex((e) => e.type === "TOOL_CALL_END");
    const predicted = outcome.events.slice(0, end).filter((e) => e.type === "STATE_DELTA");
    expect(predicted.length).toBeGreaterThan(0);
    expect((outcome.state as { document: string }).document).toMatch(/^# The sea\n/);
    expect(lastText(outcome)).toContain("The document is written");
  });

  it("predictive_state_updates: with the page's confirm_changes on offer, the change is proposed and the answer decides", async () => {
    const tools = [tool("confirm_changes")];
    const threadId = randomUUID();
    const first = await run(version, "predictive_state_updates", threadId, { messages: [user("Write a document about the sea")], tools });
    expect(lastCall(first)).toMatchObject({ name: "confirm_changes", args: {} });
    expect((first.state as { document: string }).document).toMatch(/^# The sea\n/);
    const confirmed = await answerCall(version, "predictive_state_updates", threadId, first, { accepted: true }, tools);
    expect(lastText(confirmed)).toContain("Confirmed");
    expect((confirmed.state as { document: string }).document).toMatch(/^# The sea\n/);
  });

  it("subagents: the lead hands the question to its researcher and fact checker at once and answers from both", async () => {
    const outcome = await run(version, "subagents", randomUUID(), { messages: [user("Why is the sky blue?")] });
    const calls = outcome.events.filter((e) => e.type === "TOOL_CALL_START" && !("subagentRunId" in e)).map((e) => e.toolCallName);
    expect(calls).toEqual(["researcher", "fact_checker"]);
    const results = outcome.events.filter((e) => e.type === "TOOL_CALL_RESULT" && !("subagentRunId" in e)).map((e) => e.content as string);
    expect(results[0]).toContain('What the standard explanation of "Why is the sky blue" says');
    expect(results[1]).toContain('The core of "Why is the sky blue" is well established.');
    if (version === "1.0.0") expect(outcome.events.filter((e) => e.type === "SUBAGENT_FINISHED")).toHaveLength(2);
    else expect(outcome.events.filter((e) => e.type === "CUSTOM" && e.name === "threadline:subagent")).toHaveLength(4);
    expect(lastText(outcome)).toContain("My two helpers worked on it at the same time.");
    expect(lastText(outcome)).toContain("**Fact checker**");
  });
});
