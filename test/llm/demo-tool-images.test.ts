/**
 * The offline demo model after a tool that returns an image (issue 33 deliver 4). Chat Completions
 * takes no image in a tool message, so the openai path sends a tool's images as a user message
 * right after it; the demo script once read that message as the user's next turn: a follow-up
 * went unanswered (the greeting instead), and a script that calls its tool on every user turn
 * called it again until MAX_TURNS_EXCEEDED. Through the real server and @ag-ui/client: the tool
 * runs once, the run finishes, and the answer is the tool's follow-up; the same with two images.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool } from "../../server/agents/define.ts";
import { DEMO_PROMPTS } from "../../server/demo/fixtures.ts";
import { DemoModel } from "../../server/models/demo/demo-model.ts";
import { runClient } from "../support/agui-clients.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";

/** A 1x1 PNG. */
const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

describe.each(backends())("the demo model after a tool's image (%s)", (backend) => {
  let server: TestServer;
  let calls = 0;
  beforeAll(async () => {
    const getWeather = defineTool({
      name: "get_weather",
      description: "The weather of a city, with its radar picture.",
      inputSchema: z.object({ location: z.string() }),
      execute: ({ location }) => {
        calls++;
        const pictures = location === "Tokyo" ? 2 : 1;
        return {
          content: [
            { type: "text", text: JSON.stringify({ location, temperature: 18, conditions: "Cloudy" }) },
            ...Array.from({ length: pictures }, () => ({ type: "image" as const, data: PIXEL, mimeType: "image/png" })),
          ],
        };
      },
    });
    server = await startTestServer({
      backend,
      model: new DemoModel({ latencyMs: 0 }),
      agents: [defineAgent({ id: "weather", instructions: "Answer about the weather.", tools: [getWeather] })],
    });
  });
  afterAll(() => server?.close());

  it.each([
    ["one image", DEMO_PROMPTS.weather, "Paris"],
    ["two images", "What's the weather in Tokyo?", "Tokyo"],
  ])("%s: the tool runs once, the run finishes, the answer reads the result", async (_label, prompt, place) => {
    calls = 0;
    const out = await runClient("1.0.0", {
      url: `${server.url}/api/agents/weather/run`,
      input: { threadId: randomUUID(), messages: [{ id: randomUUID(), role: "user", content: prompt }] },
    });
    expect(out.error).toBeUndefined();
    expect(out.events.at(-1), JSON.stringify(out.events.at(-1))).toMatchObject({ type: "RUN_FINISHED" });
    expect(calls).toBe(1);
    const answer = out.messages.filter((m) => m.role === "assistant" && typeof m.content === "string" && m.content).at(-1);
    // The follow-up to the weather call (its result's text carries the image's note, so it is quoted), not the greeting.
    expect(answer?.content).toMatch(new RegExp(`^The weather service said about ${place}: .*"temperature":18`));
  });
});
