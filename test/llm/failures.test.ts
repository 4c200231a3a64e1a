/**
 * Failures staged by a hand-driven upstream, where the test decides exactly when bytes flow and
 * can watch the connection from the server's side: cut streams, silence, abort, bad endings.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ModelError } from "../../server/models/errors.ts";
import { createOpenAIClient } from "../../server/models/openai/client.ts";
import { OpenAIModel } from "../../server/models/openai/model.ts";
import { ModelResolver } from "../../server/models/resolve.ts";
import { loadConfig } from "../../server/config.ts";
import { collect, collectError, sseChunk, sseHead, startRawUpstream, textOf, userText, type RawUpstream } from "./support.ts";

let upstream: RawUpstream | undefined;

afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

function modelFor(url: string, timeouts: { connectTimeoutMs?: number; readTimeoutMs?: number } = {}) {
  return new OpenAIModel({
    client: createOpenAIClient({ baseURL: url, apiKey: "test", maxRetries: 0, ...timeouts }),
    model: "test-model",
  });
}

function ask(model: OpenAIModel, signal = new AbortController().signal) {
  return model.stream({ messages: userText("hi"), tools: [], signal });
}

describe("OpenAIModel failure modes", () => {
  it("turns a socket destroyed mid-stream into UPSTREAM_STREAM_BROKEN", async () => {
    upstream = await startRawUpstream((_req, res) => {
      sseHead(res);
      res.write(sseChunk({ role: "assistant", content: "Partial " }));
      res.write(sseChunk({ content: "answer" }), () => res.destroy());
    });
    const { error, deltas } = await collectError(ask(modelFor(upstream.url)));
    expect(error.code).toBe("UPSTREAM_STREAM_BROKEN");
    expect(textOf(deltas)).toBe("Partial answer");
  });

  it("treats a stream that ends cleanly without a finish_reason as broken", async () => {
    upstream = await startRawUpstream((_req, res) => {
      sseHead(res);
      res.end(`${sseChunk({ content: "No ending" })}data: [DONE]\n\n`);
    });
    const { error, deltas } = await collectError(ask(modelFor(upstream.url)));
    expect(error.code).toBe("UPSTREAM_STREAM_BROKEN");
    expect(error.message).toContain("finish reason");
    expect(textOf(deltas)).toBe("No ending");
  });

  it("fires the read timeout when the body goes silent, and closes the connection", async () => {
    upstream = await startRawUpstream((_req, res) => {
      sseHead(res);
      res.write(sseChunk({ content: "Hello" })); // then nothing, forever
    });
    const { error, deltas } = await collectError(ask(modelFor(upstream.url, { readTimeoutMs: 150 })));
    expect(error.code).toBe("UPSTREAM_TIMEOUT");
    expect(error.message).toContain("150 ms");
    expect(textOf(deltas)).toBe("Hello");
    await upstream.closed(0);
  });

  it("lets SSE keep-alive comments hold a slow stream open past the read timeout", async () => {
    upstream = await startRawUpstream((_req, res) => {
      sseHead(res);
      let pings = 0;
      const timer = setInterval(() => {
        if (++pings <= 6) return void res.write(": keep-alive\n\n");
        clearInterval(timer);
        res.end(`${sseChunk({ content: "Worth the wait" }, "stop")}data: [DONE]\n\n`);
      }, 60);
    });
    const deltas = await collect(ask(modelFor(upstream.url, { readTimeoutMs: 200 })));
    expect(textOf(deltas)).toBe("Worth the wait");
  });

  it("does not mistake a slow consumer for a silent upstream", async () => {
    upstream = await startRawUpstream((_req, res) => {
      sseHead(res);
      // Separate writes, so each chunk is its own read on the client side.
      const parts = [sseChunk({ content: "a" }), sseChunk({ content: "b" }), sseChunk({ content: "c" }, "stop")];
      const next = () => {
        const part = parts.shift();
        if (part === undefined) return void res.end("data: [DONE]\n\n");
        res.write(part);
        setTimeout(next, 30);
      };
      next();
    });
    const seen: string[] = [];
    for await (const d of ask(modelFor(upstream.url, { readTimeoutMs: 100 }))) {
      if (d.type === "text-delta") seen.push(d.delta);
      // A consumer busy for longer than the read timeout (say, writing to Postgres): the
      // timer only runs while a read waits on the network, so this must not trip it.
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(seen).toEqual(["a", "b", "c"]);
  });

  it("fires the connect timeout when the headers never come", async () => {
    upstream = await startRawUpstream(() => {}); // accepts, never answers
    const { error } = await collectError(ask(modelFor(upstream.url, { connectTimeoutMs: 150 })));
    expect(error.code).toBe("UPSTREAM_CONNECT_TIMEOUT");
    await upstream.closed(0);
  });

  it("aborting mid-stream ends with ABORTED and the upstream sees its connection close", async () => {
    upstream = await startRawUpstream((_req, res) => {
      sseHead(res);
      res.write(sseChunk({ role: "assistant", content: "Streaming" })); // and keeps the stream open
    });
    const controller = new AbortController();
    const deltas: unknown[] = [];
    let caught: unknown;
    try {
      for await (const d of ask(modelFor(upstream.url), controller.signal)) {
        deltas.push(d);
        controller.abort();
      }
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ModelError);
    expect((caught as ModelError).code).toBe("ABORTED");
    expect(deltas).toEqual([{ type: "text-delta", delta: "Streaming" }]);
    await upstream.closed(0);
  });

  it("aborting before the headers ends with ABORTED and closes the connection", async () => {
    upstream = await startRawUpstream(() => {});
    const controller = new AbortController();
    const pending = collectError(ask(modelFor(upstream.url), controller.signal));
    await upstream.arrived(0);
    controller.abort();
    const { error } = await pending;
    expect(error.code).toBe("ABORTED");
    await upstream.closed(0);
  });

  it("a consumer that stops iterating closes the upstream connection", async () => {
    upstream = await startRawUpstream((_req, res) => {
      sseHead(res);
      res.write(sseChunk({ role: "assistant", content: "More to come" }));
    });
    for await (const d of ask(modelFor(upstream.url))) {
      expect(d).toEqual({ type: "text-delta", delta: "More to come" });
      break;
    }
    await upstream.closed(0);
  });

  it("turns an error event inside a 200 stream into UPSTREAM_ERROR", async () => {
    upstream = await startRawUpstream((_req, res) => {
      sseHead(res);
      res.end(`${sseChunk({ content: "Start" })}data: ${JSON.stringify({ error: { message: "overloaded" } })}\n\n`);
    });
    const { error } = await collectError(ask(modelFor(upstream.url)));
    expect(error.code).toBe("UPSTREAM_ERROR");
    expect(error.message).toContain("overloaded");
  });

  it("turns a refused connection into UPSTREAM_UNREACHABLE", async () => {
    upstream = await startRawUpstream(() => {});
    const { url } = upstream;
    await upstream.close();
    upstream = undefined;
    const { error } = await collectError(ask(modelFor(url)));
    expect(error.code).toBe("UPSTREAM_UNREACHABLE");
    expect(error.message).toMatch(/\. Check the client's base URL and the network\.$/);
    // Built from the configuration, the sentence names the setting that gave the address, or
    // says none did: "Check OPENAI_BASE_URL" told users who never set it, or run Ollama, to.
    const resolver = new ModelResolver(loadConfig({ OPENAI_BASE_URL: url, OPENAI_API_KEY: "k", LLM_MAX_RETRIES: "0" }));
    const viaOpenAI = await collectError(ask(resolver.resolve("openai:gpt-4o-mini") as OpenAIModel));
    expect(viaOpenAI.error.message).toContain(`Check OPENAI_BASE_URL (${url}) and that its server runs.`);
    const viaOllama = await collectError(ask(new ModelResolver(loadConfig({ OLLAMA_BASE_URL: url, LLM_MAX_RETRIES: "0" })).resolve("ollama:llama3.2") as OpenAIModel));
    expect(viaOllama.error.message).toContain(`Check that Ollama runs at ${url} (OLLAMA_BASE_URL).`);
    await Promise.all([resolver.close()]);
  });

  it("assembles a tool call whose name arrives after some arguments, and mints no id", async () => {
    upstream = await startRawUpstream((_req, res) => {
      sseHead(res);
      res.write(sseChunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] }));
      res.write(sseChunk({ tool_calls: [{ index: 0, function: { name: "late_name", arguments: "1}" } }] }));
      res.end(`${sseChunk({}, "tool_calls")}data: [DONE]\n\n`);
    });
    const deltas = await collect(ask(modelFor(upstream.url)));
    expect(deltas).toEqual([
      { type: "tool-call-start", index: 0, id: "", name: "late_name" },
      { type: "tool-call-args-delta", index: 0, delta: '{"a":' },
      { type: "tool-call-args-delta", index: 0, delta: "1}" },
      { type: "tool-call-end", index: 0 },
      { type: "finish", reason: "tool-calls", raw: "tool_calls" },
    ]);
  });

  it("reads `reasoning` (OpenRouter's field) as well as `reasoning_content`", async () => {
    upstream = await startRawUpstream((_req, res) => {
      sseHead(res);
      res.write(sseChunk({ reasoning: "Hmm. " }));
      res.write(sseChunk({ reasoning_content: "Right." }));
      res.end(`${sseChunk({ content: "Yes." }, "stop")}data: [DONE]\n\n`);
    });
    const deltas = await collect(ask(modelFor(upstream.url)));
    expect(textOf(deltas, "reasoning")).toBe("Hmm. Right.");
    expect(textOf(deltas)).toBe("Yes.");
  });
});
