/**
 * Prometheus metrics. A registry per server instance (not prom-client's global one), so two
 * servers in one test process never collide. The series below (SSE streams, runs accepted,
 * events per commit) came first; the others have a file per area under metrics/ (runs and
 * leases, model and tools, store and pools, HTTP), and the README's "Metrics and logs" lists
 * them all. Node's own (event-loop lag, heap, GC) come from collectDefaultMetrics.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { type HttpMetrics, httpMetrics } from "./metrics/http.ts";
import { type ModelMetrics, modelMetrics } from "./metrics/model.ts";
import { type RunMetrics, runMetrics } from "./metrics/runs.ts";
import type { MetricSources } from "./metrics/sources.ts";
import { type StoreMetrics, storeMetrics } from "./metrics/store.ts";
import { type WebhookMetrics, webhookMetrics } from "./metrics/webhooks.ts";

export type { MetricSources } from "./metrics/sources.ts";

export interface Metrics extends RunMetrics, ModelMetrics, StoreMetrics, HttpMetrics, WebhookMetrics {
  registry: Registry;
  /** Where the gauges read at scrape time find their numbers (the engine's leases, the store's pools and queue). */
  watch(sources: MetricSources): void;
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
  /** Runs handed over at shutdown: by this instance ("out") or to it ("in"). */
  runHandOffs: Counter<"direction" | "cut">;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const sources: MetricSources = {};
  return {
    registry,
    watch(given) {
      Object.assign(sources, given);
    },
    ...runMetrics(registry, sources),
    ...modelMetrics(registry),
    ...storeMetrics(registry, sources),
    ...httpMetrics(registry),
    ...webhookMetrics(registry),
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
    ...handOffMetrics(registry),
  };
}

/**
 * Hand-offs of a rolling restart (server/engine/handoff.ts). `cut="true"`: the drain ended with a
 * step in flight, which the next instance redoes (a model answer asked twice): DRAIN_TIMEOUT_MS
 * is shorter than the steps it cut.
 */
function handOffMetrics(registry: Registry) {
  return {
    runHandOffs: new Counter({
      name: "threadline_run_handoffs_total",
      help: "Runs handed over by a draining instance (direction out) or continued here after such a hand-off (direction in); cut: a step was in flight and is redone",
      labelNames: ["direction", "cut"],
      registers: [registry],
    }),
  };
}
