/**
 * Series of the event store: how long a group commit takes, and the Postgres connection pools
 * (connections, clients waiting now, and how long a client waited for one).
 */
import { Gauge, Histogram, type Registry } from "prom-client";
import type { MetricSources } from "./sources.ts";

export interface StoreMetrics {
  commitDuration: Histogram<"outcome">;
  poolConnections: Gauge<"pool" | "state">;
  poolWaiting: Gauge<"pool">;
  poolWait: Histogram<"pool">;
}

export function storeMetrics(registry: Registry, sources: MetricSources): StoreMetrics {
  const registers = [registry];
  return {
    commitDuration: new Histogram({
      name: "threadline_store_commit_seconds",
      help: "Group commits of the event log from BEGIN to COMMIT, retries included, by outcome (ok, failed)",
      labelNames: ["outcome"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
      registers,
    }),
    poolConnections: new Gauge({
      name: "threadline_db_pool_connections",
      help: "Connections of each Postgres pool (main, lease, writer; app: a pool you passed), by state (idle, busy)",
      labelNames: ["pool", "state"],
      registers,
      collect() {
        for (const p of sources.pools?.() ?? []) {
          this.set({ pool: p.pool, state: "idle" }, p.idle);
          this.set({ pool: p.pool, state: "busy" }, p.total - p.idle);
        }
      },
    }),
    poolWaiting: new Gauge({
      name: "threadline_db_pool_waiting_clients",
      help: "Statements waiting for a free connection of each Postgres pool now",
      labelNames: ["pool"],
      registers,
      collect() {
        for (const p of sources.pools?.() ?? []) this.set({ pool: p.pool }, p.waiting);
      },
    }),
    poolWait: new Histogram({
      name: "threadline_db_pool_wait_seconds",
      help: "Time a statement or transaction waited for a connection of each Postgres pool (DB_CONNECT_TIMEOUT_MS bounds it)",
      labelNames: ["pool"],
      buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      registers,
    }),
  };
}
