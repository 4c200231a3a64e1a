/**
 * Whether this instance serves runs: the one owner of "started". Threadline.start() moves it to
 * serving once the store is migrated and recovery, heartbeats and the engine run; close() moves
 * it to draining at once. The router's guard, the CopilotKit runners and /readyz all read it
 * here, so that readiness never says 200 while a run would be refused NOT_STARTED (issue 29:
 * /readyz only pinged the store, and answered 200 for up to 6.8 s of a start on a loaded machine
 * while every run got 503). Rejected: a `started` boolean in threadline.ts handed around as
 * closures, which readiness did not get, and a second flag for draining next to it.
 */
import { EngineClosingError } from "./engine/errors.ts";
import { ServiceUnavailableError } from "./errors.ts";

export type ServingPhase = "starting" | "serving" | "draining";

/** Retry-After of NOT_STARTED: a start is seconds long, and the probe or client asks again. */
export const NOT_STARTED_RETRY_AFTER_S = 1;

/** What a request gets before start() has finished (or when the application never called it). */
export function notStartedError(): ServiceUnavailableError {
  return new ServiceUnavailableError(
    "NOT_STARTED",
    "Threadline is starting (or was never started: the application must `await threadline.start()`). Try again in a moment.",
    NOT_STARTED_RETRY_AFTER_S,
  );
}

export class Serving {
  #started = false;
  #draining = false;

  get phase(): ServingPhase {
    return this.#draining ? "draining" : this.#started ? "serving" : "starting";
  }

  /** start() has finished: the API's routes pass (also while draining: streams, reads and stops still serve). */
  get started(): boolean {
    return this.#started;
  }

  /** Set by start() once everything it starts runs. */
  markStarted(): void {
    this.#started = true;
  }

  /** Set when close() begins, for good: new runs are refused (the engine's SERVER_CLOSING) and readiness says so. */
  markDraining(): void {
    this.#draining = true;
  }

  /**
   * Why a new run would be refused now for this instance's life cycle (SERVER_CLOSING once
   * close() began, NOT_STARTED before the start finished), or undefined when it would be
   * accepted. What /readyz answers before it asks the database.
   */
  refusal(): ServiceUnavailableError | undefined {
    if (this.#draining) return new EngineClosingError();
    if (!this.#started) return notStartedError();
    return undefined;
  }
}
