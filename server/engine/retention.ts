/**
 * Retention: stream-level events (deltas) of finished runs are deleted once they are older than
 * the retention period. The whole messages are already in the log as message.appended, so a
 * replay after compaction yields the same conversation (protocol/project.ts sends a message in
 * full when its stream is gone). Every instance runs this; the DELETE is idempotent, so two
 * instances compacting at once only do the same work twice.
 */
import type { Logger } from "pino";
import type { EventStore } from "../store/types.ts";

export function startRetention(store: EventStore, retentionMs: number, logger: Logger): () => void {
  // Often enough that nothing outlives its period by more than a quarter of it; at most hourly.
  const every = Math.max(1_000, Math.min(60 * 60_000, Math.floor(retentionMs / 4)));
  const timer = setInterval(() => {
    store
      .compact(retentionMs)
      .then((n) => n > 0 && logger.info({ deleted: n }, "compacted stream events of finished runs"))
      .catch((err: unknown) => logger.warn({ err }, "compaction failed; the next round tries again"));
  }, every);
  timer.unref();
  return () => clearInterval(timer);
}
