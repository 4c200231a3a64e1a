/**
 * Prometheus metrics. A registry per server instance (not prom-client's global one), so two
 * servers in one test process never collide.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export interface Metrics {
  registry: Registry;
  runsStarted: Counter<"agent">;
  activeStreams: Gauge;
  framesSent: Counter;
  bufferedFrames: Gauge;
  blockedStreams: Gauge;
  logPagesRead: Counter;
  appendBatch: Histogram;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    runsStarted: new Counter({
      name: "threadline_runs_started_total",
      help: "AG-UI runs accepted",
      labelNames: ["agent"],
      registers: [registry],
    }),
    activeStreams: new Gauge({
      name: "threadline_sse_streams",
      help: "SSE responses open now",
      registers: [registry],
    }),
    framesSent: new Counter({
      name: "threadline_sse_frames_total",
      help: "SSE frames written",
      registers: [registry],
    }),
    bufferedFrames: new Gauge({
      name: "threadline_sse_buffered_frames",
      help: "SSE frames written but not yet flushed to the kernel, over all streams",
      registers: [registry],
    }),
    blockedStreams: new Gauge({
      name: "threadline_sse_blocked_streams",
      help: "SSE streams waiting for their client to read (socket full); they read no log meanwhile",
      registers: [registry],
    }),
    logPagesRead: new Counter({
      name: "threadline_stream_log_pages_total",
      help: "Pages of the event log read for SSE streams and reloads (replay, live tail, thread view)",
      registers: [registry],
    }),
    appendBatch: new Histogram({
      name: "threadline_append_batch_events",
      help: "Events per group-commit flush",
      buckets: [1, 4, 16, 64, 256, 1024],
      registers: [registry],
    }),
  };
}
