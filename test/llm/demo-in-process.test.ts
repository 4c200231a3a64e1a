/**
 * The demo model in process (server/models/demo/demo-model.ts) where demo.test.ts's turns do not
 * reach: its failure phrase fails as the openai adapter reports the same answer from aimock, an
 * abort ends its stream between two chunks, and a closed demo model refuses new requests. (Its
 * every answer is compared with the aimock path in demo-model.ts, turn by turn.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_FAILURE_PROMPT, DEMO_PROMPTS } from "../../server/demo/fixtures.ts";
import { DemoModel } from "../../server/models/demo/demo-model.ts";
import type { ModelPart } from "../../server/models/model.ts";
import { createOpenAIClient } from "../../server/models/openai/client.ts";
import { OpenAIModel } from "../../server/models/openai/model.ts";
import { type DemoUpstream, startDemoUpstream } from "../support/demo-upstream.ts";
import { collectError, userText } from "./support.ts";

describe("the demo model, in process", () => {
  let demo: DemoUpstream;
  beforeAll(async () => {
    demo = await startDemoUpstream({ latencyMs: 0 });
  });
  afterAll(async () => {
    await demo.stop();
  });

  it("fails on its failure phrase as the openai adapter reports aimock's 503: same code, message, retryable", async () => {
    const viaUpstream = new OpenAIModel({ client: createOpenAIClient({ baseURL: demo.url, apiKey: "demo", maxRetries: 0 }), model: "demo" });
    const request = () => ({ messages: userText(DEMO_FAILURE_PROMPT), tools: [], signal: new AbortController().signal });
    const [local, upstream] = await Promise.all([collectError(new DemoModel({ latencyMs: 0 }).stream(request())), collectError(viaUpstream.stream(request()))]);
    expect(local.deltas).toEqual([]);
    expect(local.error.code).toBe("UPSTREAM_HTTP_503");
    expect({ code: local.error.code, message: local.error.message, retryable: local.error.retryable, status: local.error.status }).toEqual({
      code: upstream.error.code,
      message: upstream.error.message,
      retryable: upstream.error.retryable,
      status: upstream.error.status,
    });
  });

  it("ends with ABORTED when the signal aborts between two chunks, and yields nothing after", async () => {
    const model = new DemoModel({ latencyMs: 5 });
    const abort = new AbortController();
    const parts: ModelPart[] = [];
    const stream = model.stream({ messages: userText("Hello there"), tools: [], signal: abort.signal });
    const ended = collectError(
      (async function* () {
        for await (const p of stream) {
          parts.push(p);
          if (p.type === "text-delta") abort.abort();
          yield p;
        }
      })(),
    );
    const { error } = await ended;
    expect(error.code).toBe("ABORTED");
    expect(parts.filter((p) => p.type === "text-delta")).toHaveLength(1);
    expect(parts.some((p) => p.type === "finish")).toBe(false);
  });

  it("refuses a request after close()", async () => {
    const model = new DemoModel({ latencyMs: 0 });
    await model.close();
    await expect(model.stream({ messages: userText(DEMO_PROMPTS.weather), tools: [], signal: new AbortController().signal }).next()).rejects.toThrow(/closed/);
  });
});
