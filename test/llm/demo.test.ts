/**
 * The built-in demo model: every trigger through startDemoUpstream, the real openai SDK and the
 * wrapper (demo-model.ts), including the follow-up turns after tool results.
 */
import type { Message } from "@ag-ui/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ChangeBackgroundArgsSchema,
  ConfirmActionArgsSchema,
  DEMO_PROMPTS,
  DEMO_TOOLS,
  DEMO_TRIGGER_ORDER,
  GetWeatherArgsSchema,
  RunPlanArgsSchema,
  UpdateTasksArgsSchema,
} from "../../server/demo/fixtures.ts";
import type { ModelTool } from "../../server/models/model.ts";
import { withDemoModel } from "./demo-model.ts";

const schemas: Record<string, z.ZodType> = {
  [DEMO_TOOLS.getWeather]: GetWeatherArgsSchema,
  [DEMO_TOOLS.updateTasks]: UpdateTasksArgsSchema,
  [DEMO_TOOLS.runPlan]: RunPlanArgsSchema,
  [DEMO_TOOLS.changeBackground]: ChangeBackgroundArgsSchema,
  [DEMO_TOOLS.confirmAction]: ConfirmActionArgsSchema,
};
const allTools: ModelTool[] = Object.entries(schemas).map(([name, schema]) => ({
  name,
  description: name,
  inputSchema: z.toJSONSchema(schema) as Record<string, unknown>,
}));
const backendTools = allTools.filter((t) => t.name !== DEMO_TOOLS.changeBackground && t.name !== DEMO_TOOLS.confirmAction);

const demoTurn = withDemoModel("You are Threadline.");

async function turn(messages: Message[], tools = allTools) {
  const answer = await demoTurn(messages, tools);
  for (const c of answer.calls) schemas[c.name]!.parse(c.args); // the fixtures honour the tools' schemas
  return answer;
}

const user = (content: string): Message => ({ id: `u-${content}`, role: "user", content });

/** The conversation after a tool-calling turn and the results the tools gave (`error`: the tool failed, as the engine records it). */
function answered(first: Message, calls: { id: string; name: string; args: object }[], results: (string | { content: string; error: string })[]): Message[] {
  return [
    first,
    {
      id: "a1",
      role: "assistant",
      toolCalls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.args) } })),
    },
    ...calls.map((c, i): Message => {
      const r = results[i]!;
      return typeof r === "string" ? { id: `t${i}`, role: "tool", toolCallId: c.id, content: r } : { id: `t${i}`, role: "tool", toolCallId: c.id, ...r };
    }),
  ];
}

describe("demo model", () => {
  it("weather: calls get_weather for the city, then answers from the tool's result", async () => {
    const first = user(DEMO_PROMPTS.weather);
    const { calls, finish } = await turn([first]);
    expect(calls).toMatchObject([{ name: DEMO_TOOLS.getWeather, args: { location: "Paris" } }]);
    expect(calls[0]!.id).toMatch(/^call_/);
    expect(finish).toEqual({ type: "finish", reason: "tool-calls", raw: "tool_calls" });

    const result = { location: "Paris", temperature: 18, feelsLike: 17, conditions: "Sunny", humidity: 60, windSpeed: 12 };
    const { text, calls: none } = await turn(answered(first, calls, [JSON.stringify(result)]));
    expect(none).toEqual([]);
    expect(text).toBe("In Paris it is 18°C (feels like 17°C), sunny, humidity 60%, wind 12 km/h.");
  });

  it("parallel: two get_weather calls in one turn, then one answer covering both", async () => {
    const first = user(DEMO_PROMPTS.parallel);
    const { calls } = await turn([first]);
    expect(calls.map((c) => [c.index, c.name, c.args.location])).toEqual([
      [0, DEMO_TOOLS.getWeather, "Paris"],
      [1, DEMO_TOOLS.getWeather, "Tokyo"],
    ]);
    expect(calls[0]!.id).not.toBe(calls[1]!.id);
    const results = [
      JSON.stringify({ location: "Paris", temperature: 18, conditions: "Sunny" }),
      JSON.stringify({ location: "Tokyo", temperature: 24, conditions: "Cloudy" }),
    ];
    const { text } = await turn(answered(first, calls, results));
    // A markdown table, one row a place, so the offline demo shows the renderer's tables.
    expect(text).toBe(
      ["Here is the weather in each place:", "", "| Place | Temperature | Conditions |", "| --- | --- | --- |", "| Paris | 18°C | Sunny |", "| Tokyo | 24°C | Cloudy |"].join("\n"),
    );
  });

  it("a failed tool: the answer says which and what it said, not the success follow-up", async () => {
    const plan = user(DEMO_PROMPTS.plan);
    const { calls } = await turn([plan]);
    // What the engine records for a tool that threw (server/engine/tool-task.ts): the error, and the content the model reads after it.
    const error = "run_plan failed: step 3 could not reach the build server";
    const failed = { content: JSON.stringify({ error }), error };
    const { text } = await turn(answered(plan, calls, [failed]));
    expect(text).toBe(
      "That did not work: `run_plan` failed: step 3 could not reach the build server.\n\nI have not finished what you asked: try again, or ask for something else.",
    );
    expect(text).not.toContain("are done");

    const both = user(DEMO_PROMPTS.parallel);
    const { calls: two } = await turn([both]);
    const { text: partly } = await turn(answered(both, two, [JSON.stringify({ location: "Paris", temperature: 18, conditions: "Sunny" }), { content: JSON.stringify({ error: "get_weather failed: no such city" }), error: "get_weather failed: no such city" }]));
    expect(partly).toBe("That did not work: `get_weather` failed: no such city.\n\nThe other call worked, but I have not finished what you asked: try again, or ask for something else.");

    const no = "The user did not approve run_plan.";
    const denied = await turn(answered(plan, calls, [{ content: JSON.stringify({ approval: "denied", error: no }), error: no }]));
    expect(denied.text).toMatch(/^That did not work: `run_plan` was not approved, so it did not run\./);
  });

  it("tasks: update_tasks with the whole list, the new task included, then a summary", async () => {
    const first = user(DEMO_PROMPTS.tasks);
    const { calls } = await turn([first]);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.name).toBe(DEMO_TOOLS.updateTasks);
    expect(calls[0]!.args.tasks).toContainEqual({ id: "task-3", title: "water the plants", done: false });
    const { text } = await turn(answered(first, calls, [JSON.stringify({ ok: true })]));
    expect(text).toBe("Your task list is updated: 3 tasks, 1 done.");
  });

  it("plan: a sentence, then run_plan with the goal and its steps, then a wrap-up", async () => {
    const first = user(DEMO_PROMPTS.plan);
    const { text, calls, deltas } = await turn([first]);
    expect(text).toContain("launch the website");
    expect(deltas.findIndex((d) => d.type === "text-delta")).toBeLessThan(deltas.findIndex((d) => d.type === "tool-call-start"));
    expect(calls).toMatchObject([{ name: DEMO_TOOLS.runPlan, args: { goal: "launch the website" } }]);
    expect((calls[0]!.args.steps as string[]).length).toBe(4);
    const { text: wrapUp } = await turn(answered(first, calls, ['{"completed":4}']));
    // A numbered list of the steps: markdown, as a real model's answer would be.
    expect(wrapUp).toBe(
      "All 4 steps of the plan to launch the website are done:\n\n1. Understand the goal\n2. Break it into steps\n3. Do the work\n4. Check the result",
    );
  });

  it("think/reason: reasoning first, then the answer", async () => {
    for (const prompt of [DEMO_PROMPTS.reasoning, "Can you reason about this?"]) {
      const { deltas, reasoning, text } = await turn([user(prompt)]);
      expect(reasoning.length).toBeGreaterThan(20);
      expect(text).toContain("Scripted demo reasoning");
      expect(deltas.findLastIndex((d) => d.type === "reasoning-delta")).toBeLessThan(deltas.findIndex((d) => d.type === "text-delta"));
    }
  });

  it("background: calls the client's change_background, or says the client did not offer it", async () => {
    const first = user(DEMO_PROMPTS.background);
    const { calls } = await turn([first]);
    expect(calls).toMatchObject([{ name: DEMO_TOOLS.changeBackground, args: { background: "blue" } }]);
    const { text } = await turn(answered(first, calls, ["Background changed."]));
    expect(text).toBe("Done! I've completed that for you.");

    const without = await turn([first], backendTools);
    expect(without.calls).toEqual([]);
    expect(without.text).toContain("`change_background`");
  });

  it("approve/delete: asks for approval with confirm_action, then acts on the answer", async () => {
    const first = user(DEMO_PROMPTS.approval);
    const { calls } = await turn([first]);
    expect(calls).toMatchObject([{ name: DEMO_TOOLS.confirmAction, args: { action: "Delete the old drafts" } }]);
    const yes = await turn(answered(first, calls, ['{"approved":true}']));
    expect(yes.text).toMatch(/^Approved/);
    const no = await turn(answered(first, calls, ['{"approved":false}']));
    expect(no.text).toBe('Cancelled: I did not do "Delete the old drafts".');
    const approve = await turn([user("Please approve the release")]);
    expect(approve.calls[0]?.name).toBe(DEMO_TOOLS.confirmAction);
  });

  it("answers any other message as the offline demo model, with how to set a real one", async () => {
    const { text, calls, finish } = await turn([user("Hello!")]);
    expect(calls).toEqual([]);
    expect(text).toContain("demo model");
    expect(text).toContain("OPENAI_API_KEY");
    expect(text).toContain("OPENAI_BASE_URL");
    // Markdown: a list of the prompts, the settings as inline code, the command as a code block.
    expect(text).toContain(`\n- ${DEMO_PROMPTS.weather}\n`);
    expect(text).toContain("`OPENAI_API_KEY`");
    expect(text).toContain("```sh\nOPENAI_API_KEY=sk-... npm start\n```");
    expect(finish).toEqual({ type: "finish", reason: "stop", raw: "stop" });
  });

  it("answers the result of any other tool with the catch-all", async () => {
    const first = user("Hello!");
    const { text } = await turn(answered(first, [{ id: "call_x", name: "some_frontend_tool", args: {} }], ["ok"]));
    expect(text).toBe("Done! I've completed that for you.");
  });

  it("is deterministic: the same conversation gets the same calls, ids included", async () => {
    for (const trigger of DEMO_TRIGGER_ORDER) {
      const a = await turn([user(DEMO_PROMPTS[trigger])]);
      const b = await turn([user(DEMO_PROMPTS[trigger])]);
      expect(b.calls, trigger).toEqual(a.calls);
      expect(b.text, trigger).toBe(a.text);
    }
  });

  it("reports usage for every answer", async () => {
    const { deltas } = await turn([user("Hello!")]);
    const usage = deltas.find((d) => d.type === "usage");
    expect(usage).toMatchObject({ type: "usage" });
    expect(usage && usage.type === "usage" && usage.totalTokens).toBeGreaterThan(0);
  });
});

describe("demo model, with an application's own tool schemas", () => {
  const tool = (name: string, schema: z.ZodType): ModelTool => ({ name, description: name, inputSchema: z.toJSONSchema(schema) as Record<string, unknown> });

  it("fills get_weather's arguments from the schema offered: { city } gets the city asked about", async () => {
    const CitySchema = z.object({ city: z.string() });
    const { calls } = await demoTurn([user("What is the weather in Paris?")], [tool(DEMO_TOOLS.getWeather, CitySchema)]);
    expect(calls).toMatchObject([{ name: DEMO_TOOLS.getWeather, args: { city: "Paris" } }]);
    expect(CitySchema.safeParse(calls[0]!.args).success).toBe(true);
  });

  it("gives every required field a value of its type, and leaves optional ones out", async () => {
    const Schema = z.object({
      place: z.string().min(2),
      units: z.enum(["celsius", "fahrenheit"]),
      days: z.number().int().min(1).max(7),
      hourly: z.boolean(),
      tags: z.array(z.string()).min(1),
      note: z.string().optional(),
    });
    const { calls } = await demoTurn([user("Weather in Tokyo, please")], [tool(DEMO_TOOLS.getWeather, Schema)]);
    expect(calls[0]!.args).toEqual({ place: "Tokyo", units: "celsius", days: 1, hourly: false, tags: ["-"] });
    expect(Schema.safeParse(calls[0]!.args).success).toBe(true);
  });

  it("answers the follow-up from the application's result, naming the place from its arguments", async () => {
    const first = user("What is the weather in Paris?");
    const { calls } = await demoTurn([first], [tool(DEMO_TOOLS.getWeather, z.object({ city: z.string() }))]);
    const { text } = await demoTurn(answered(first, calls, [JSON.stringify({ city: "Paris", forecast: "sunny", tempC: 21 })]), []);
    expect(text).toBe('The weather service said about Paris: {"city":"Paris","forecast":"sunny","tempC":21}');
  });

  it("images: the answer says how many arrived and that the demo cannot see them, with no tool call; a plain message after it is read as before", async () => {
    const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
    const image = { type: "image" as const, source: { type: "data" as const, value: pixel, mimeType: "image/png" } };
    const two: Message = { id: "u-img", role: "user", content: [{ type: "text", text: "What is this?" }, image, image] };
    const seen = await turn([two]);
    expect(seen.calls).toEqual([]);
    expect(seen.text).toBe('I see 2 images in your message with your words "What is this?". I am the built-in **demo model**, so I cannot look at what they show; with a real model (set `MODEL` and its API key) the agent would describe them.');
    const one = await turn([{ id: "u-one", role: "user", content: [image] }]);
    expect(one.text).toMatch(/^I see 1 image in your message\. /);
    const next = await turn([two, { id: "a-img", role: "assistant", content: seen.text }, user(DEMO_PROMPTS.weather)]);
    expect(next.calls.map((c) => c.name)).toEqual([DEMO_TOOLS.getWeather]);
  });

  describe("an application's own tools (own-tools.ts)", () => {
    const LookupOrderArgs = z.object({ orderId: z.string() });
    schemas.lookup_order = LookupOrderArgs;
    const supportTools: ModelTool[] = [{ name: "lookup_order", description: "Find an order by its number.", inputSchema: z.toJSONSchema(LookupOrderArgs) as Record<string, unknown> }];

    it("calls the tool a message names, its arguments from the tool's schema, and reads its result back", async () => {
      const first = user("Where is order 1042?");
      const { calls } = await turn([first], supportTools);
      expect(calls).toMatchObject([{ name: "lookup_order", args: { orderId: "1042" } }]);
      const { text, calls: again } = await turn(answered(first, calls, ['{"orderId":"1042","status":"shipped"}']), supportTools);
      expect(again).toEqual([]);
      expect(text).toContain("I asked `lookup_order`, and it answered:");
      expect(text).toContain('"status":"shipped"');
    });

    it("never calls a tool the agent lacks: the weather, the tasks and a plan, asked of an agent without them", async () => {
      for (const prompt of [DEMO_PROMPTS.weather, DEMO_PROMPTS.parallel, DEMO_PROMPTS.tasks, DEMO_PROMPTS.plan]) {
        const { calls, text } = await turn([user(prompt)], supportTools);
        expect(calls, prompt).toEqual([]);
        expect(text, prompt).toContain("demo model");
      }
    });

    it("reads a message's [tag] as no word of it: the conformance kit's greeting calls no tool named like its tag", async () => {
      const kitTool: ModelTool = { name: "conformance_clock", description: "Read the current time.", inputSchema: { type: "object", properties: {} } };
      schemas.conformance_clock = z.object({});
      const greet = await turn([user("[agui-conformance] Please greet me in one short sentence.")], [kitTool]);
      expect(greet.calls).toEqual([]);
      const ask = await turn([user("[agui-conformance] Call the conformance_clock tool now to read the current time, then tell me the time.")], [kitTool]);
      expect(ask.calls).toMatchObject([{ name: "conformance_clock", args: {} }]);
    });
  });
});
