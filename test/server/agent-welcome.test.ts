/**
 * An agent's greeting and suggestions (what an empty chat shows): checked when the agent is
 * defined, served by GET /api/agents and /api/agents/:id.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentDefinitionError, defineAgent } from "../../server/agents/define.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";

describe("defineAgent: greeting and suggestions", () => {
  it("keeps them trimmed; none given is no greeting and no suggestions", () => {
    const a = defineAgent({ id: "a", instructions: "x", greeting: "  Hi!  ", suggestions: [" Plan my day "] });
    expect(a.welcome).toEqual({ greeting: "Hi!", suggestions: ["Plan my day"] });
    expect(defineAgent({ id: "b", instructions: "x" }).welcome).toEqual({ suggestions: [] });
  });

  it.each([
    ["seven suggestions", { suggestions: Array.from({ length: 7 }, (_, i) => `s${i}`) }, /suggestions: .*6/],
    ["an empty suggestion", { suggestions: ["ok", "  "] }, /suggestions\.1/],
    ["a greeting of 501 characters", { greeting: "x".repeat(501) }, /greeting: .*500/],
  ])("refuses %s, naming the field", (_label, extra, message) => {
    expect(() => defineAgent({ id: "a", instructions: "x", ...extra })).toThrow(AgentDefinitionError);
    expect(() => defineAgent({ id: "a", instructions: "x", ...extra })).toThrow(message);
  });
});

describe("GET /api/agents serves the welcome", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      backend: backends()[0]!,
      agents: () => [defineAgent({ id: "greeter", instructions: "x", greeting: "Hello, I plan trips.", suggestions: ["Plan a weekend in Lyon", "Pack for rain"] })],
    });
  });
  afterAll(() => server?.close());

  it("in the list and for one agent", async () => {
    const one = (await (await fetch(`${server.url}/api/agents/greeter`)).json()) as { welcome: unknown };
    expect(one.welcome).toEqual({ greeting: "Hello, I plan trips.", suggestions: ["Plan a weekend in Lyon", "Pack for rain"] });
    const list = (await (await fetch(`${server.url}/api/agents`)).json()) as { agents: { id: string; welcome: unknown }[] };
    expect(list.agents.find((a) => a.id === "greeter")?.welcome).toEqual(one.welcome);
  });
});
