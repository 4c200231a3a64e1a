/**
 * Series of runs and leases: how runs end, how many run here now, what recovery did, and the
 * queue behind busy threads. Counted by the engine observer (telemetry/engine-observer.ts) and
 * read from the engine and the store at scrape time (MetricSources).
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { MetricSources } from "./sources.ts";

export interface RunMetrics {
  runsFinished: Counter<"agent" | "outcome">;
  runsFailed: Counter<"agent" | "code">;
  runDuration: Histogram<"agent" | "outcome">;
  runsInFlight: Gauge<"agent">;
  runsLeft: Counter<"reason">;
  runRecoveries: Counter<"agent" | "outcome">;
  runsQueued: Counter<"agent">;
  queuedRuns: Gauge;
  leasesHeld: Gauge;
  heartbeatFailures: Counter;
}

/**
 * How long a scrape waits for the queue count before it reports the last value it had: a
 * database that does not answer must not hold /metrics (which is how an operator sees that).
 */
export const QUEUED_RUNS_WAIT_MS = 1_000;

export function runMetrics(registry: Registry, sources: MetricSources): RunMetrics {
  const registers = [registry];
  return {
    runsFinished: new Counter({
      name: "threadline_runs_finished_total",
      help: "Runs whose terminal event this instance committed, by agent and outcome (completed, waiting, failed, cancelled)",
      labelNames: ["agent", "outcome"],
      registers,
    }),
    runsFailed: new Counter({
      name: "threadline_runs_failed_total",
      help: "Runs that ended failed (RUN_ERROR), by agent and error code",
      labelNames: ["agent", "code"],
      registers,
    }),
    runDuration: new Histogram({
      name: "threadline_run_duration_seconds",
      help: "Time a run executed on this instance until its terminal event committed, by agent and outcome (a recovered run: since it was taken over)",
      labelNames: ["agent", "outcome"],
      buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900],
      registers,
    }),
    runsInFlight: new Gauge({
      name: "threadline_runs_in_flight",
      help: "Runs executing on this instance now, by agent",
      labelNames: ["agent"],
      registers,
    }),
    runsLeft: new Counter({
      name: "threadline_runs_left_total",
      help: "Runs this instance stopped without ending them, left for recovery, by reason (lease_lost, shutdown, store_lost)",
      labelNames: ["reason"],
      registers,
    }),
    runRecoveries: new Counter({
      name: "threadline_run_recoveries_total",
      help: "Runs this instance took over after their lease expired, by agent and outcome (resumed, failed, cancelled)",
      labelNames: ["agent", "outcome"],
      registers,
    }),
    runsQueued: new Counter({
      name: "threadline_runs_queued_total",
      help: "Runs that waited behind their thread's active run (double texting enqueue or interrupt), by agent",
      labelNames: ["agent"],
      registers,
    }),
    queuedRuns: new Gauge({
      name: "threadline_runs_queued",
      help: "Runs waiting behind their thread's active run now, over every instance (one count in the database per scrape)",
      registers,
      async collect() {
        const n = await withinWait(sources.queuedRuns?.(), QUEUED_RUNS_WAIT_MS);
        if (n !== undefined) this.set(n);
      },
    }),
    leasesHeld: new Gauge({
      name: "threadline_leases_held",
      help: "Thread leases this instance holds and heartbeats now (one per run executing here)",
      registers,
      collect() {
        const n = sources.leasesHeld?.();
        if (n !== undefined) this.set(n);
      },
    }),
    heartbeatFailures: new Counter({
      name: "threadline_lease_heartbeat_failures_total",
      help: "Lease heartbeats that failed (a lease survives two missed beats; then its runs are left for recovery)",
      registers,
    }),
  };
}

/** The value, or undefined when it failed or took longer than `ms`. */
async function withinWait(value: Promise<number> | undefined, ms: number): Promise<number | undefined> {
  if (!value) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([value.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}
