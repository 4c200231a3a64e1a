/**
 * OpenTelemetry spans, when the application registers an SDK (here a BasicTracerProvider with an
 * in-memory exporter, as the global provider: the only thing an application does): a run is an
 * `invoke_agent` span with a `chat` span per model request and an `execute_tool` span per tool
 * call under it. Spans do not depend on the backend: PGlite only.
 */
import { trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer } from "../support/server.ts";
import { postSse } from "../support/sse-client.ts";
import { gatedAgent, runBody, startGatedUpstream, user } from "./support.ts";

describe("tracing", () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let upstream: Awaited<ReturnType<typeof startGatedUpstream>>;
  beforeAll(async () => {
    trace.setGlobalTracerProvider(provider);
    upstream = await startGatedUpstream();
  });
  afterAll(async () => {
    await upstream.mock.stop();
    trace.disable();
    await provider.shutdown();
  });

  it("a run with a tool is a span tree: invoke_agent > chat, execute_tool, chat", { timeout: 60_000 }, async () => {
    const gated = gatedAgent();
    gated.release.open(); // the tool returns at once
    const server = await startTestServer({ backend: "pglite", llmUrl: upstream.url, agents: [gated.agent] });
    try {
      const body = runBody("t-traced", [user("one step")]);
      const frames = await (await postSse(`${server.url}/api/agents/gated/run`, body, { "X-Request-Id": "req-traced" })).done;
      expect(frames.at(-1)?.event.type).toBe("RUN_FINISHED");
      await server.threadline.engine.idle(); // the run's span ends after its terminal event commits
    } finally {
      await server.close();
    }

    const spans = exporter.getFinishedSpans();
    const runs = spans.filter((s) => s.name === "invoke_agent gated");
    expect(runs).toHaveLength(1);
    const run = runs[0]!;
    expect(run.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.id": "gated",
      "gen_ai.conversation.id": "t-traced",
      "threadline.request.id": "req-traced",
      "threadline.run.recovered": false,
      "threadline.run.outcome": "waiting",
    });
    const children = spans.filter((s) => parentOf(s) === run.spanContext().spanId);
    // In the order they started: the model asks for the tool, the tool runs, the model answers.
    expect(children.sort((x, y) => compareTime(x.startTime, y.startTime)).map((s) => s.name)).toEqual([
      "chat gpt-4o-mini",
      "execute_tool slow_step",
      "chat gpt-4o-mini",
    ]);
    for (const child of children) expect(child.spanContext().traceId).toBe(run.spanContext().traceId);
    const [chat, tool] = children;
    expect(chat!.attributes).toMatchObject({ "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o-mini", "threadline.outcome": "ok" });
    expect(chat!.events.map((e) => e.name)).toContain("first_token");
    expect(tool!.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "slow_step", "gen_ai.tool.call.id": "call-only", "threadline.outcome": "ok" });
    // Nothing else was traced under the run (a span left open would not be exported at all).
    expect(spans.filter((s) => s !== run && !children.includes(s))).toEqual([]);
  });
});

function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

function compareTime(a: [number, number], b: [number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}
