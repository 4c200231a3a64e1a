/**
 * defineTool's inputSchema: a zod schema or a plain JSON Schema object. Valid arguments run the
 * tool; invalid ones give the model a tool error it can read (and the tool does not run); a tool
 * with both spellings or with no schema is refused when it is defined.
 */
import { LLMock, type ChatCompletionRequest } from "@copilotkit/aimock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentDefinitionError, defineAgent, defineTool } from "../../server/agents/define.ts";
import { toolJsonSchema } from "../../server/agents/tool-json-schema.ts";
import { runClient } from "../support/agui-clients.ts";
import { lastUserText } from "../server/support.ts";
import { startLibraryApp, type LibraryApp } from "./support.ts";

const ran: { tool: string; args: unknown }[] = [];

const zodWeather = defineTool({
  name: "zod_weather",
  description: "The weather in a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    ran.push({ tool: "zod_weather", args: { city } });
    return { city, forecast: "sunny" };
  },
});

const CITY_SCHEMA = { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false };
const jsonWeather = defineTool({
  name: "json_weather",
  description: "The weather in a city",
  inputSchema: CITY_SCHEMA,
  execute: async (args) => {
    ran.push({ tool: "json_weather", args });
    return { city: args.city, forecast: "rain" };
  },
});

function lastToolText(req: ChatCompletionRequest): string {
  const m = req.messages.at(-1)!;
  return typeof m.content === "string" ? m.content : JSON.stringify(m.content);
}

/** "<tool> <json args>" from the user -> that call; a tool result -> "tool said: <its content>". */
async function startToolUpstream(): Promise<{ mock: LLMock; url: string }> {
  const mock = new LLMock({ port: 0, host: "127.0.0.1", latency: 0, logLevel: "silent" });
  mock.addFixtures([
    { match: { predicate: (req) => req.messages.at(-1)?.role === "tool" }, response: (req) => ({ content: `tool said: ${lastToolText(req)}` }) },
    {
      match: { predicate: (req) => /^\w+ \{/.test(lastUserText(req)) },
      response: (req) => {
        const text = lastUserText(req);
        const space = text.indexOf(" ");
        return { toolCalls: [{ name: text.slice(0, space), arguments: text.slice(space + 1), id: `call-${Math.random().toString(36).slice(2)}` }] };
      },
    },
    { match: { predicate: () => true }, response: { content: "ok" } },
  ]);
  const base = await mock.start();
  return { mock, url: `${base.replace(/\/$/, "")}/v1` };
}

describe("defineTool", () => {
  it("keeps a zod inputSchema and sends its JSON Schema to the model", () => {
    expect(zodWeather.jsonSchema).toBeUndefined();
    expect(toolJsonSchema(zodWeather)).toMatchObject({ type: "object", properties: { city: { type: "string" } }, required: ["city"] });
  });

  it("hands every request a schema of its own, so an adapter that changes one changes no other", () => {
    const first = toolJsonSchema(zodWeather);
    first["x-changed-by-an-adapter"] = true;
    (first.properties as Record<string, unknown>).city = "changed";
    const second = toolJsonSchema(zodWeather);
    expect(second).not.toBe(first);
    expect(second).not.toHaveProperty("x-changed-by-an-adapter");
    expect(second).toMatchObject({ type: "object", properties: { city: { type: "string" } }, required: ["city"] });
  });

  it("sends a JSON Schema inputSchema to the model as given", () => {
    expect(toolJsonSchema(jsonWeather)).toEqual(CITY_SCHEMA);
  });

  it("accepts parameters as the older name of inputSchema", () => {
    const t = defineTool({ name: "legacy", description: "d", parameters: z.object({ n: z.number() }), execute: ({ n }) => n });
    expect(t.inputSchema.safeParse({ n: 1 }).success).toBe(true);
  });

  it("refuses both inputSchema and parameters, and neither, saying which to keep", () => {
    const both = { name: "both", description: "d", inputSchema: z.object({}), parameters: z.object({}), execute: () => 1 };
    expect(() => defineTool(both as never)).toThrow(AgentDefinitionError);
    expect(() => defineTool(both as never)).toThrow(/both inputSchema and parameters: keep inputSchema/);
    const neither = { name: "neither", description: "d", execute: () => 1 };
    expect(() => defineTool(neither as never)).toThrow(/has no inputSchema: give a zod schema or a JSON Schema object/);
    expect(() => defineTool({ name: "bad", description: "d", inputSchema: "object" as never, execute: () => 1 })).toThrow(/not string/);
  });
});

describe("tools with a zod and a JSON Schema inputSchema in a run", () => {
  let upstream: Awaited<ReturnType<typeof startToolUpstream>>;
  let app: LibraryApp;
  beforeAll(async () => {
    upstream = await startToolUpstream();
    const agent = defineAgent({ id: "tools", instructions: "Use the tools.", tools: [zodWeather, jsonWeather] });
    app = await startLibraryApp({ llmUrl: upstream.url, mount: "/ai", agents: [agent] });
  });
  afterAll(async () => {
    await app?.close();
    await upstream?.mock.stop();
  });

  async function answer(threadId: string, text: string): Promise<string> {
    const out = await runClient("1.0.0", {
      url: `${app.url}/ai/agents/tools/run`,
      input: { threadId, messages: [{ id: `u-${threadId}`, role: "user", content: text }] },
    });
    expect(out.error?.message).toBeUndefined();
    expect(out.events.at(-1)?.type).toBe("RUN_FINISHED");
    const last = out.messages.at(-1) as { role: string; content?: unknown };
    expect(last.role).toBe("assistant");
    return String(last.content);
  }

  it.each([
    ["zod_weather", "sunny"],
    ["json_weather", "rain"],
  ])("runs %s with valid arguments", async (tool, forecast) => {
    const reply = await answer(`valid-${tool}`, `${tool} {"city":"Paris"}`);
    expect(reply).toContain(forecast);
    expect(ran).toContainEqual({ tool, args: { city: "Paris" } });
  });

  it.each(["zod_weather", "json_weather"])("gives the model a readable error for invalid arguments to %s, and does not run it", async (tool) => {
    const before = ran.length;
    const reply = await answer(`invalid-${tool}`, `${tool} {"city":5}`);
    expect(reply).toMatch(/tool said: .*do not match its schema/);
    expect(reply).toContain("city");
    expect(reply).toMatch(/expected string/);
    expect(ran.length).toBe(before);
  });

  it("refuses arguments a JSON Schema forbids (additionalProperties: false)", async () => {
    const before = ran.length;
    const reply = await answer("invalid-extra", `json_weather {"city":"Oslo","units":"F"}`);
    expect(reply).toMatch(/do not match its schema/);
    expect(ran.length).toBe(before);
  });
});
