/**
 * A foreign run's pen: the run's writer, counting what goes through it against runBytes
 * (bounds.ts). The event that would cross the bound is not written; its RUN_ERROR is thrown
 * instead. What ingestion writes after that, to close the spans it opened (answer.ts closeAll,
 * each bounded by messageBytes), goes through uncounted, so clients see every span closed.
 */
import type { WorkflowEvent } from "../../../protocol/events.ts";
import type { RunPen } from "../run-writer.ts";
import { attribute } from "../attributed-pen.ts";
import { type ForeignBounds, runTooLarge } from "./bounds.ts";
import type { ForeignCodes } from "./ingest.ts";

/** What ingestion writes through: one event at a time. */
export interface ForeignLog {
  emit(event: WorkflowEvent): void;
}

export class RunBudget implements ForeignLog {
  #used = 0;
  #over = false;
  /**
   * The foreign agent's own subagent run the event being taken belongs to (its `subagentRunId`),
   * set by ingest.ts per event: what that event makes the log hold is attributed to it.
   */
  attribution: string | undefined = undefined;

  constructor(
    private readonly writer: Pick<RunPen, "emit">,
    private readonly bounds: ForeignBounds,
    private readonly codes: ForeignCodes,
  ) {}

  /** Bytes written so far, as JSON of each event's data. */
  get used(): number {
    return this.#used;
  }

  emit(event: WorkflowEvent): void {
    if (!this.#over) this.charge(Buffer.byteLength(JSON.stringify(event.data)));
    this.writer.emit(this.attribution === undefined ? event : attribute(event, this.attribution));
  }

  /** Counts `bytes` the run made the log hold (besides an event's JSON: what a copy duplicates). */
  charge(bytes: number): void {
    if (this.#over) return;
    this.#used += bytes;
    if (this.#used > this.bounds.runBytes) {
      this.#over = true;
      throw runTooLarge(this.codes, this.bounds);
    }
  }
}
