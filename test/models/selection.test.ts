/**
 * Choosing a model: the spec parser (property-tested), clear refusals for unknown providers and
 * missing keys, the defaults modelsFromConfig picks, and a spec resolved from the environment
 * that really streams from aimock's Claude endpoint through the dynamically imported provider.
 */
import { LLMock } from "@copilotkit/aimock";
import fc from "fast-check";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineAgent } from "../../server/agents/define.ts";
import { ConfigError, loadConfig } from "../../server/config.ts";
import { ModelError } from "../../server/models/errors.ts";
import { modelsFromConfig } from "../../server/models/from-config.ts";
import type { Model } from "../../server/models/model.ts";
import { resolveModel } from "../../server/models/resolve.ts";
import { formatModelSpec, ModelSpecError, parseModelSpec, PROVIDERS } from "../../server/models/spec.ts";
import { StartupError } from "../../server/startup-errors.ts";
import { collect, textOf, userText } from "../llm/support.ts";

const logger = pino({ level: "silent" });
const agent = (model?: string | Model) => defineAgent({ id: "a", instructions: "Help.", ...(model !== undefined && { model }) });

describe("parseModelSpec", () => {
  const providers = PROVIDERS.filter((p) => p !== "demo");
  const name = fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() === s && s !== "");

  it("reads provider:name back for every provider and name, colons in the name included", () => {
    fc.assert(
      fc.property(fc.constantFrom(...providers), name, (provider, n) => {
        const spec = parseModelSpec(`${provider}:${n}`);
        expect(spec).toEqual({ provider, name: n });
        expect(parseModelSpec(formatModelSpec(spec))).toEqual(spec);
      }),
    );
  });

  it("takes a bare name as the default provider, openai", () => {
    fc.assert(
      fc.property(name.filter((s) => !s.includes(":") && s !== "demo"), (n) => {
        expect(parseModelSpec(n)).toEqual({ provider: "openai", name: n });
      }),
    );
  });

  it("refuses any unknown provider, naming the known ones and the openai: escape", () => {
    const unknown = fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/).filter((p) => !(PROVIDERS as readonly string[]).includes(p));
    fc.assert(
      fc.property(unknown, name, (provider, n) => {
        expect(() => parseModelSpec(`${provider}:${n}`)).toThrow(ModelSpecError);
        expect(() => parseModelSpec(`${provider}:${n}`)).toThrow(/Unknown model provider .*openai, anthropic, google, openrouter, ollama, demo.*"openai:/);
      }),
    );
  });

  it("refuses an empty spec and a provider without a name", () => {
    expect(() => parseModelSpec("  ")).toThrow(/empty/);
    expect(() => parseModelSpec("anthropic:")).toThrow(/names no model after "anthropic:"/);
    expect(parseModelSpec("demo")).toEqual({ provider: "demo", name: "" });
  });

  it("makes a bad MODEL a configuration error at startup", () => {
    expect(() => loadConfig({ MODEL: "antropic:claude-sonnet-4-5" })).toThrow(ConfigError);
    expect(() => loadConfig({ MODEL: "antropic:claude-sonnet-4-5" })).toThrow(/MODEL: Unknown model provider "antropic"/);
    expect(loadConfig({ MODEL: "anthropic:claude-sonnet-4-5" }).MODEL).toBe("anthropic:claude-sonnet-4-5");
  });
});

describe("resolveModel and modelsFromConfig", () => {
  let mock: LLMock;
  beforeAll(async () => {
    mock = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent" });
    mock.onMessage("who are you", { content: "Claude, via aimock." });
    await mock.start();
  });
  afterAll(async () => {
    await mock.stop();
  });

  it("says which key a provider needs", () => {
    expect(() => resolveModel("anthropic:claude-sonnet-4-5", {})).toThrow(ModelError);
    expect(() => resolveModel("anthropic:claude-sonnet-4-5", {})).toThrow(/needs ANTHROPIC_API_KEY/);
    expect(() => resolveModel("openrouter:meta-llama/llama-3.3-70b-instruct", {})).toThrow(/needs OPENROUTER_API_KEY/);
    expect(() => resolveModel("google:gemini-2.5-flash", {})).toThrow(/needs GOOGLE_GENERATIVE_AI_API_KEY/);
    expect(() => resolveModel("openai:gpt-4o", {})).toThrow(/needs OPENAI_API_KEY/);
  });

  it("streams from anthropic:<name> with ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL, loading @ai-sdk/anthropic on demand", async () => {
    const model = resolveModel("anthropic:claude-sonnet-4-5", { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: `${mock.url}/v1`, LLM_MAX_RETRIES: 0 });
    expect(model.id).toBe("anthropic:claude-sonnet-4-5");
    const parts = await collect(model.stream({ messages: userText("who are you"), tools: [], signal: new AbortController().signal }));
    expect(textOf(parts)).toBe("Claude, via aimock.");
    expect(mock.getLastRequest()!.path).toBe("/v1/messages");
  });

  it("defaults to the demo with nothing configured, to OPENAI_MODEL with OpenAI configured, to MODEL when set", async () => {
    const demo = modelsFromConfig(loadConfig({}), { logger });
    expect(demo.factory(agent()).id).toBe("demo");
    // A bare agent model name with no OpenAI configured: the demo answers it, as it always has.
    expect(demo.factory(agent("gpt-4o")).id).toBe("demo");
    await demo.close();

    const openai = modelsFromConfig(loadConfig({ OPENAI_API_KEY: "k", OPENAI_MODEL: "gpt-4.1" }), { logger });
    expect(openai.factory(agent()).id).toBe("openai:gpt-4.1");
    expect(openai.factory(agent("gpt-4o")).id).toBe("openai:gpt-4o");

    const claude = modelsFromConfig(loadConfig({ MODEL: "anthropic:claude-sonnet-4-5", ANTHROPIC_API_KEY: "k" }), { logger });
    expect(claude.factory(agent()).id).toBe("anthropic:claude-sonnet-4-5");
    // One Model per spec: agents that share a spec share its clients.
    expect(claude.factory(agent())).toBe(claude.factory(agent()));
  });

  it("refuses, when the server is built, a default that names OpenAI without it and a model without its provider's key", () => {
    const refusal = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return err as StartupError;
      }
      throw new Error("expected a StartupError");
    };
    const bare = refusal(() => modelsFromConfig(loadConfig({ MODEL: "gpt-4o-mini" }), { logger }));
    expect(bare).toBeInstanceOf(StartupError);
    expect(bare).toMatchObject({ code: "MODEL_UNAVAILABLE", setting: "OPENAI_API_KEY" });
    expect(bare.message).toMatch(/^MODEL "gpt-4o-mini" names an OpenAI model, and neither OPENAI_API_KEY nor OPENAI_BASE_URL is set/);
    expect(refusal(() => modelsFromConfig(loadConfig({}), { logger, model: "gpt-4o" })).message).toMatch(/^The `model` option "gpt-4o" names an OpenAI model/);
    // Another provider's model named bare: the sentence says which prefix it needs.
    expect(refusal(() => modelsFromConfig(loadConfig({ MODEL: "claude-sonnet-4-5" }), { logger })).message).toBe(
      'MODEL "claude-sonnet-4-5" has no provider, so it names an OpenAI model: write "anthropic:claude-sonnet-4-5" for anthropic\'s, or set OPENAI_API_KEY (or OPENAI_BASE_URL) if it is OpenAI\'s.',
    );
    expect(refusal(() => modelsFromConfig(loadConfig({}), { logger, model: "gemini-2.5-flash" })).message).toMatch(/^The `model` option "gemini-2.5-flash" has no provider.*"google:gemini-2.5-flash"/);
    // A base URL alone is a configured OpenAI-compatible server (a local one may take no key).
    const keyless = modelsFromConfig(loadConfig({ MODEL: "gpt-4o-mini", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }), { logger });
    expect(keyless.check([agent()])).toEqual({ a: "openai:gpt-4o-mini" });

    const claude = modelsFromConfig(loadConfig({ MODEL: "anthropic:claude-sonnet-4-5" }), { logger });
    const missing = refusal(() => claude.check([agent()]));
    expect(missing).toMatchObject({ code: "MODEL_UNAVAILABLE", setting: "ANTHROPIC_API_KEY" });
    expect(missing.message).toBe('The model "anthropic:claude-sonnet-4-5" (MODEL) needs ANTHROPIC_API_KEY: set ANTHROPIC_API_KEY, or choose another model in MODEL.');
    expect(refusal(() => modelsFromConfig(loadConfig({ OPENAI_MODEL: "gpt-4.1" }), { logger }).check([agent()])).message).toMatch(/^The model "openai:gpt-4.1" \(OPENAI_MODEL\) needs OPENAI_API_KEY/);

    const demo = modelsFromConfig(loadConfig({}), { logger });
    const gemini = defineAgent({ id: "g", instructions: "Help.", model: "google:gemini-2.5-flash" });
    expect(refusal(() => demo.check([agent(), gemini])).message).toBe(
      'Agent "g" has the model "google:gemini-2.5-flash", which needs GOOGLE_GENERATIVE_AI_API_KEY: set GOOGLE_GENERATIVE_AI_API_KEY, or give the agent another model.',
    );
    // An agent's own bare name still runs offline on the demo, and the check says so.
    expect(demo.check([agent("gpt-4o")])).toEqual({ a: "demo" });
    expect(modelsFromConfig(loadConfig({}), { logger, model: () => demo.factory(agent()) }).check([agent()])).toBeUndefined();
  });

  it("lets an agent's own Model or spec win over the default", () => {
    const own: Model = { id: "mine:1", stream: async function* () {} };
    const models = modelsFromConfig(loadConfig({ OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k" }), { logger });
    expect(models.factory(agent(own))).toBe(own);
    expect(models.factory(agent("anthropic:claude-haiku-4-5")).id).toBe("anthropic:claude-haiku-4-5");
    const fixed = modelsFromConfig(loadConfig({}), { logger, model: own });
    expect(fixed.factory(agent()).id).toBe("mine:1");
  });

  it("the demo model starts its upstream on the first request and answers offline", async () => {
    const models = modelsFromConfig(loadConfig({}), { logger, demoLatencyMs: 0 });
    const parts = await collect(models.factory(agent()).stream({ messages: userText("Hello!"), tools: [], signal: new AbortController().signal }));
    expect(textOf(parts).length).toBeGreaterThan(0);
    expect(parts.at(-1)).toMatchObject({ type: "finish" });
    await models.close();
  });
});
