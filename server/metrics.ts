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
  bufferedBytes: Gauge;
  droppedStreams: Counter;
  snapshotCacheBytes: Gauge;
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
    bufferedBytes: new Gauge({
      name: "threadline_sse_buffered_bytes",
      help: "Bytes written to SSE responses and not yet taken by the kernel, over all streams (a snapshot shared by several streams counts once per stream)",
      registers: [registry],
    }),
    droppedStreams: new Counter({
      name: "threadline_sse_dropped_streams_total",
      help: "SSE streams closed because their client took no byte for SSE_DRAIN_TIMEOUT_MS while the socket was full",
      registers: [registry],
    }),
    snapshotCacheBytes: new Gauge({
      name: "threadline_reload_snapshot_bytes",
      help: "Bytes of encoded reload snapshots held for the streams sending them (one copy per thread, position and wire format)",
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
