/**
 * Series of the HTTP edge: requests by route pattern and status, their duration, and the lag
 * of live frames from the commit of their event to the socket.
 */
import { Counter, Histogram, type Registry } from "prom-client";

export interface HttpMetrics {
  httpRequests: Counter<"method" | "route" | "status">;
  httpDuration: Histogram<"method" | "route">;
  streamLag: Histogram<"source">;
}

export function httpMetrics(registry: Registry): HttpMetrics {
  const registers = [registry];
  return {
    httpRequests: new Counter({
      name: "threadline_http_requests_total",
      help: "HTTP requests by method, route pattern (mount path included; \"<mount>/*\" when no route matched) and status",
      labelNames: ["method", "route", "status"],
      registers,
    }),
    httpDuration: new Histogram({
      name: "threadline_http_request_duration_seconds",
      help: "HTTP requests from arrival to the end of the response, by method and route pattern (a stream: its whole length)",
      labelNames: ["method", "route"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
      registers,
    }),
    streamLag: new Histogram({
      name: "threadline_stream_lag_seconds",
      help: "Live frames from the commit of their event to the socket, by source: handover (committed here, this process's clock) or log (read from the log: another instance's commit, or a stream that fell behind; the database's clock at the commit's start)",
      labelNames: ["source"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
      registers,
    }),
  };
}
