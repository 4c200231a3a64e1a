/**
 * Hand-offs: an instance that shuts down gives the runs it executes to the others, without
 * waste. While it drains, each run finishes the step in flight (a model request streaming, a
 * tool executing), so that step's result is durable and not asked again, and stops before its
 * next one; a step still in flight when the drain ends (DRAIN_TIMEOUT_MS) is cut. Either way the
 * run is marked handed over in the log (workflow.handed_over) and its lease given back at once,
 * so that any other instance's next sweep claims it (no LEASE_TTL_MS to wait) and continues it
 * from its last durable step, knowing it took over a hand-off, not a crash.
 *
 * Rejected: a mark in the lease row (a column the next holder overwrites, and that no reader of
 * the log sees); letting a draining run start new steps until the deadline (a model request
 * started a second before the end is cut and billed again on the next instance).
 */
import type { Logger } from "pino";
import type { EventStore } from "../store/types.ts";

/** "out": this instance handed a run over; "in": it continued one handed over by another. */
export type HandOffDirection = "out" | "in";

/** Counts hand-offs (the server's metrics); `cut`: a step was in flight and is redone. */
export type OnHandOff = (direction: HandOffDirection, cut: boolean) => void;

export interface HandOver {
  store: EventStore;
  leaseOwner: string;
  threadId: string;
  runId: string;
  /** How many of the run's steps are durable: the next instance goes on after them. */
  step: number;
  cut: boolean;
  log: Logger;
  onHandOff?: OnHandOff;
}

/**
 * The old side: marks the hand-off under the lease it still holds (the append is fenced by it),
 * then gives the lease back. Without the mark (the lease was lost, the database did not take
 * it), the run is left to recovery as after a crash.
 */
export async function handOver({ store, leaseOwner, threadId, runId, step, cut, log, onHandOff }: HandOver): Promise<void> {
  try {
    await store.append(threadId, [{ type: "workflow.handed_over", data: { runId, owner: leaseOwner, step, cut } }], { leaseOwner });
  } catch (err) {
    log.warn({ err }, "could not mark the hand-off in the log: the run is left for recovery, which resumes it once the lease expires");
    return;
  }
  await store.releaseLease(threadId, leaseOwner).catch((err: unknown) => {
    log.warn({ err }, "could not release the lease; it expires by itself and another instance continues the run then");
  });
  log.info(
    { step, cut },
    cut
      ? `handing over run ${runId} at step ${step}: the step in flight did not finish within the drain (DRAIN_TIMEOUT_MS); the next instance redoes it`
      : `handing over run ${runId} at step ${step}`,
  );
  onHandOff?.("out", cut);
}

/** What recovery reads of a run's last hand-off: set by workflow.handed_over, cleared by the next workflow.resumed. */
export interface HandedOver {
  from: string;
  step: number;
  cut: boolean;
}

/** The new side's log line and count, once it resumed a run handed over to it. */
export function continued(handed: HandedOver, log: Logger, onHandOff: OnHandOff | undefined): void {
  log.info({ from: handed.from, step: handed.step, cut: handed.cut }, `continuing a run handed over by ${handed.from} at step ${handed.step}`);
  onHandOff?.("in", handed.cut);
}
