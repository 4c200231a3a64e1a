/**
 * What some gauges read at scrape time rather than count as things happen: numbers the engine
 * and the store already keep. Given after the parts are built (Metrics.watch), since the
 * metrics are made first and handed to them.
 */
import type { PoolStats } from "../store/types.ts";

export interface MetricSources {
  /** Leases this instance heartbeats now (Engine.leasesHeld). */
  leasesHeld?: () => number;
  /** Runs queued behind an active run, over every instance (EventStore.countQueuedRuns). */
  queuedRuns?: () => Promise<number>;
  /** The connection pools of a Postgres store (EventStore.poolStats); none for PGlite. */
  pools?: () => readonly PoolStats[];
}
