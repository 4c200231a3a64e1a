/**
 * Trace context without an OpenTelemetry SDK (none registered: the API's no-op tracer): nothing
 * is recorded, but the caller's context passes through as W3C asks of a hop that does not trace.
 * The model is sent the caller's traceparent and tracestate unchanged, and the run's log lines
 * name the caller's trace and span. PGlite only: the store plays no part.
 */
import { randomBytes } from "node:crypto";
import { trace } from "@opentelemetry/api";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer } from "../support/server.ts";
import { postSse } from "../support/sse-client.ts";
import { runBody, startGatedUpstream, user } from "./support.ts";

type Line = Record<string, unknown> & { msg: string };

describe("trace context without an SDK", () => {
  let upstream: Awaited<ReturnType<typeof startGatedUpstream>>;
  beforeAll(async () => {
    trace.disable(); // whatever another file registered in this worker: the API's no-op tracer
    upstream = await startGatedUpstream();
  });
  afterAll(() => upstream.mock.stop());

  it("the model is sent the caller's traceparent unchanged and the run's log lines name it", { timeout: 60_000 }, async () => {
    const lines: Line[] = [];
    const logger = pino({ level: "debug" }, { write: (s: string) => void lines.push(JSON.parse(s) as Line) });
    const server = await startTestServer({ backend: "pglite", llmUrl: upstream.url, logger });
    const traceId = randomBytes(16).toString("hex");
    const parentId = randomBytes(8).toString("hex");
    const traceparent = `00-${traceId}-${parentId}-01`;
    const body = runBody("t-no-sdk", [user("hello")]);
    try {
      const frames = await (await postSse(`${server.url}/api/agents/default/run`, body, { traceparent, tracestate: "caller=1" })).done;
      expect(frames.at(-1)?.event.type).toBe("RUN_FINISHED");
      await server.threadline.engine.idle();
    } finally {
      await server.close();
    }
    const sent = upstream.mock.getRequests().filter((r) => r.headers.traceparent?.includes(traceId));
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers).toMatchObject({ traceparent, tracestate: "caller=1" });
    const ofRun = lines.filter((l) => l.runId === body.runId && l.msg !== "request");
    expect(ofRun.map((l) => l.msg)).toContain("run ended");
    for (const l of ofRun) expect(l, l.msg).toMatchObject({ trace_id: traceId, span_id: parentId });
  });
});
