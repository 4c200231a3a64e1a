/**
 * W3C Trace Context end to end, through the real HTTP route with an SDK registered as an
 * application does (a BasicTracerProvider with an in-memory exporter, no context manager): a run
 * posted with a `traceparent` is a span under it, its chat and execute_tool spans under that;
 * the model request (aimock, through the openai SDK), a tool and a remote agent are handed the
 * context of their own span; every log line of the run names the trace; run.accepted keeps it,
 * so a run recovered from the log joins the same trace. A malformed traceparent is ignored (the
 * run starts a trace of its own), never a 400. Spans do not depend on the backend: PGlite only.
 */
import { randomBytes } from "node:crypto";
import { trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { pino } from "pino";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineAgent, defineTool } from "../../server/agents/define.ts";
import { remoteAgent } from "../../server/agents/remote-agent.ts";
import type { EventStore } from "../../server/store/types.ts";
import { type RemoteFixture, startNodeRemote } from "../support/remote-agui.ts";
import { startRunnerRuntime } from "../support/runner-runtime.ts";
import { openStore, startTestServer, type TestServer } from "../support/server.ts";
import { postSse } from "../support/sse-client.ts";
import { gatedAgent, runBody, startGatedUpstream, user } from "./support.ts";

type Line = Record<string, unknown> & { msg: string };

const hex = (bytes: number) => randomBytes(bytes).toString("hex");
/** A fresh caller's trace: its id, the caller's span, and the header that names both. */
function callerTrace() {
  const traceId = hex(16);
  const parentId = hex(8);
  return { traceId, parentId, traceparent: `00-${traceId}-${parentId}-01` };
}

describe("trace context", () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const lines: Line[] = [];
  const logger = pino({ level: "debug" }, { write: (s: string) => void lines.push(JSON.parse(s) as Line) });
  /** What the tool was handed by ctx.traceHeaders(), per call. */
  const toolHeaders: Record<string, string>[] = [];
  const traced = defineAgent({
    id: "traced",
    instructions: "Test agent.",
    // aimock's "one step" fixture calls slow_step (test/server/support.ts).
    tools: [defineTool({ name: "slow_step", description: "Records its trace headers.", inputSchema: z.object({ label: z.string() }), execute: async (_args, ctx) => void toolHeaders.push(ctx.traceHeaders()) })],
  });
  const gated = gatedAgent();
  let upstream: Awaited<ReturnType<typeof startGatedUpstream>>;
  let remote: RemoteFixture;
  let server: TestServer;
  beforeAll(async () => {
    trace.setGlobalTracerProvider(provider);
    upstream = await startGatedUpstream();
    remote = await startNodeRemote();
    server = await startTestServer({ backend: "pglite", llmUrl: upstream.url, logger, agents: [traced, gated.agent, remoteAgent({ id: "remote", url: remote.url })] });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await remote?.close();
    await upstream?.mock.stop();
    trace.disable();
    await provider.shutdown();
  });

  /** Posts the run, reads it to its end, and waits for its span to end (after its terminal commit). */
  async function run(agent: string, body: ReturnType<typeof runBody>, headers: Record<string, string> = {}) {
    const stream = await postSse(`${server.url}/api/agents/${agent}/run`, body, headers);
    expect(stream.status).toBe(200);
    const frames = await stream.done;
    expect(frames.at(-1)?.event.type).toBe("RUN_FINISHED");
    await server.threadline.engine.idle();
    return { span: runSpan(exporter, body.runId), accepted: await acceptedTrace(server.store, body.threadId) };
  }

  it("a run posted with a traceparent is a span under it; its chat and tool spans, the model request, the tool and its log lines carry the trace", { timeout: 60_000 }, async () => {
    const caller = callerTrace();
    const body = runBody(`t-${hex(4)}`, [user("one step")]);
    const { span, accepted } = await run("traced", body, { traceparent: caller.traceparent, tracestate: "caller=1,other=two" });

    expect(span.spanContext().traceId).toBe(caller.traceId);
    expect(span.parentSpanContext).toMatchObject({ traceId: caller.traceId, spanId: caller.parentId, isRemote: true });
    const children = exporter.getFinishedSpans().filter((s) => s.parentSpanContext?.spanId === span.spanContext().spanId);
    expect(children.map((s) => s.name).sort()).toEqual(["chat gpt-4o-mini", "chat gpt-4o-mini", "execute_tool slow_step"]);
    for (const child of children) expect(child.spanContext().traceId).toBe(caller.traceId);
    // Nothing else in the trace: the run's part is these four spans.
    expect(exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === caller.traceId)).toHaveLength(4);

    // Each model request is the child of its own chat span, and the caller's tracestate goes on.
    const chats = children.filter((s) => s.name.startsWith("chat ")).map((s) => `00-${caller.traceId}-${s.spanContext().spanId}-01`);
    const sent = upstream.mock.getRequests().filter((r) => r.headers.traceparent?.includes(caller.traceId));
    expect(sent.map((r) => r.headers.traceparent).sort()).toEqual(chats.sort());
    for (const r of sent) expect(r.headers.tracestate).toBe("caller=1,other=two");
    const tool = children.find((s) => s.name.startsWith("execute_tool"))!;
    expect(toolHeaders.at(-1)).toEqual({ traceparent: `00-${caller.traceId}-${tool.spanContext().spanId}-01`, tracestate: "caller=1,other=two" });

    // Every line the run logged names its trace and its span, and the request's own line the trace.
    const ofRun = lines.filter((l) => l.runId === body.runId);
    expect(ofRun.map((l) => l.msg)).toEqual(expect.arrayContaining(["request", "run ended"]));
    for (const l of ofRun) expect(l.trace_id, l.msg).toBe(caller.traceId);
    for (const l of ofRun.filter((l) => l.msg !== "request")) expect(l.span_id, l.msg).toBe(span.spanContext().spanId);

    expect(accepted).toEqual({ traceparent: caller.traceparent, tracestate: "caller=1,other=two" });
  });

  it("a remote agent's POST carries the run's span as its parent", { timeout: 60_000 }, async () => {
    const caller = callerTrace();
    const body = runBody(`t-${hex(4)}`, [user("hello")]);
    const { span } = await run("remote", body, { traceparent: caller.traceparent });
    expect(span.parentSpanContext).toMatchObject({ traceId: caller.traceId, spanId: caller.parentId });
    const received = remote.headers!().at(-1)!;
    expect(received.traceparent).toBe(`00-${caller.traceId}-${span.spanContext().spanId}-01`);
    expect(received.tracestate).toBeUndefined(); // none came, none is made up
  });

  it("an application's runtime on agentRunner(): its HttpAgent's request carries the run's span as its parent", { timeout: 60_000 }, async () => {
    const app = await startRunnerRuntime(server.threadline.agentRunner(), remote.url);
    try {
      // CopilotKit's runtime hands a runner only authorization and x-* headers: the context comes in forwardedProps.
      const caller = callerTrace();
      const body = runBody(`t-${hex(4)}`, [user("hello")], { forwardedProps: { threadline: { traceparent: caller.traceparent } } });
      const frames = await (await postSse(`${app.runtimeUrl}/agent/remote/run`, body)).done;
      expect(frames.at(-1)?.event.type).toBe("RUN_FINISHED");
      await server.threadline.engine.idle();
      const span = runSpan(exporter, body.runId);
      expect(span.parentSpanContext).toMatchObject({ traceId: caller.traceId, spanId: caller.parentId });
      expect(remote.headers!().at(-1)!.traceparent).toBe(`00-${caller.traceId}-${span.spanContext().spanId}-01`);
    } finally {
      await app.close();
    }
  });

  it("a queued run keeps its own trace context until it leaves the queue", { timeout: 60_000 }, async () => {
    const [first, second] = [callerTrace(), callerTrace()];
    const threadId = `t-${hex(4)}`;
    const a = runBody(threadId, [user("one step")]);
    const running = await postSse(`${server.url}/api/agents/gated/run`, a, { traceparent: first.traceparent });
    await gated.started.next(); // the first run holds the thread, in its tool
    const b = runBody(threadId, [...a.messages, user("then this")]);
    const queued = await postSse(`${server.url}/api/agents/gated/run`, b, { traceparent: second.traceparent, "x-threadline-double-texting": "enqueue" });
    gated.release.open();
    await running.done;
    expect((await queued.done).at(-1)?.event.type).toBe("RUN_FINISHED");
    await server.threadline.engine.idle();
    const accepted = (await server.store.read(threadId)).flatMap((e) => (e.type === "run.accepted" ? [[e.data.runId, e.data.traceContext?.traceparent]] : []));
    expect(accepted).toEqual([[a.runId, first.traceparent], [b.runId, second.traceparent]]);
    expect(runSpan(exporter, b.runId).parentSpanContext).toMatchObject({ traceId: second.traceId, spanId: second.parentId });
  });

  it("forwardedProps.threadline.traceparent serves a client without headers; the header wins over it", { timeout: 60_000 }, async () => {
    const inBody = callerTrace();
    const viaBody = runBody(`t-${hex(4)}`, [user("hello")], { forwardedProps: { threadline: { traceparent: inBody.traceparent, tracestate: "k=v" } } });
    const fromBody = await run("traced", viaBody);
    expect(fromBody.span.parentSpanContext).toMatchObject({ traceId: inBody.traceId, spanId: inBody.parentId });
    expect(fromBody.accepted).toEqual({ traceparent: inBody.traceparent, tracestate: "k=v" });

    const header = callerTrace();
    const both = runBody(`t-${hex(4)}`, [user("hello")], { forwardedProps: { threadline: { traceparent: callerTrace().traceparent } } });
    const won = await run("traced", both, { traceparent: header.traceparent });
    expect(won.span.parentSpanContext).toMatchObject({ traceId: header.traceId, spanId: header.parentId });
  });

  it("a malformed traceparent is ignored, with its tracestate: the run is accepted and starts a trace of its own", { timeout: 60_000 }, async () => {
    const { traceId, parentId } = callerTrace();
    const malformed = [
      "garbage",
      `00-${traceId}-${parentId}-01-extra`, // version 00 has four fields
      `ff-${traceId}-${parentId}-01`, // version ff is forbidden
      `00-${"0".repeat(32)}-${parentId}-01`, // an all-zero trace id
      `00-${traceId}-${"0".repeat(16)}-01`, // an all-zero parent id
      `00-${traceId.toUpperCase()}-${parentId}-01`, // hex is lowercase
      `00-${traceId}-${parentId}-1`,
    ];
    for (const traceparent of malformed) {
      const body = runBody(`t-${hex(4)}`, [user("hello")]);
      const { span, accepted } = await run("traced", body, { traceparent, tracestate: "caller=1" });
      expect(span.parentSpanContext, traceparent).toBeUndefined();
      expect(span.spanContext().traceId).not.toBe(traceId);
      expect(span.spanContext().traceState).toBeUndefined();
      expect(accepted, traceparent).toBeUndefined();
      const ofRun = lines.filter((l) => l.runId === body.runId && l.msg !== "request");
      expect(ofRun.length).toBeGreaterThan(0);
      for (const l of ofRun) expect(l.trace_id).toBe(span.spanContext().traceId);
    }
  });

  it("a run recovered from the log joins the trace its run.accepted kept", { timeout: 60_000 }, async () => {
    const caller = callerTrace();
    const store = openStore("pglite");
    const recoveryLines: Line[] = [];
    const recoveryLogger = pino({ level: "debug" }, { write: (s: string) => void recoveryLines.push(JSON.parse(s) as Line) });
    // The log a dead instance left: the run accepted with the caller's trace, its lease expired.
    await store.migrate();
    await store.ensureThread("t-recovered", "default");
    await store.append("t-recovered", [
      { type: "thread.created", data: { agentId: "default" } },
      { type: "run.accepted", data: { runId: "r1", tools: [], context: [], traceContext: { traceparent: caller.traceparent } } },
      { type: "message.appended", data: { runId: "r1", source: "input", message: { id: "u1", role: "user", content: "hello" } } },
      { type: "workflow.started", data: { runId: "r1" } },
    ]);
    expect(await store.acquireLease("t-recovered", "dead-instance", 0)).toBe(true);
    const b = await startTestServer({ backend: "pglite", llmUrl: upstream.url, store, logger: recoveryLogger });
    try {
      const frames = await (await postSse(`${b.url}/api/agents/default/connect`, { threadId: "t-recovered", lastSeenEventId: "0" })).done;
      expect(frames.at(-1)?.event.type).toBe("RUN_FINISHED");
      await b.threadline.engine.idle();
    } finally {
      await b.close();
      await store.close();
    }
    const span = runSpan(exporter, "r1", caller.traceId);
    expect(span.attributes["threadline.run.recovered"]).toBe(true);
    expect(span.parentSpanContext).toMatchObject({ traceId: caller.traceId, spanId: caller.parentId, isRemote: true });
    const chat = exporter.getFinishedSpans().find((s) => s.parentSpanContext?.spanId === span.spanContext().spanId)!;
    expect(upstream.mock.getRequests().map((r) => r.headers.traceparent)).toContain(`00-${caller.traceId}-${chat.spanContext().spanId}-01`);
    const ofRun = recoveryLines.filter((l) => l.runId === "r1");
    expect(ofRun.map((l) => l.msg)).toEqual(expect.arrayContaining(["run ended"]));
    expect(ofRun.some((l) => l.msg.startsWith("recovering a run"))).toBe(true);
    for (const l of ofRun) expect(l.trace_id, l.msg).toBe(caller.traceId);
  });
});

/** The one finished span of run `runId` (in trace `traceId`, when run ids repeat across tests). */
function runSpan(exporter: InMemorySpanExporter, runId: string, traceId?: string): ReadableSpan {
  const spans = exporter
    .getFinishedSpans()
    .filter((s) => s.attributes["threadline.run.id"] === runId && (traceId === undefined || s.spanContext().traceId === traceId));
  expect(spans).toHaveLength(1);
  return spans[0]!;
}

/** What the thread's run.accepted kept of the trace context. */
async function acceptedTrace(store: EventStore, threadId: string): Promise<unknown> {
  const accepted = (await store.read(threadId)).find((e) => e.type === "run.accepted");
  return accepted?.type === "run.accepted" ? accepted.data.traceContext : undefined;
}
