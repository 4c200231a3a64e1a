/**
 * Double texting for agentRunner(): a run sent while the thread's run is active, by its policy.
 *
 *   reject     THREAD_BUSY, nothing written (the admission's own refusal)
 *   enqueue    this process waits for the active run to end, then admits the run and executes it
 *   interrupt  a durable cancel of the active run (from any instance: the log carries it), then
 *              the same wait
 *
 * The process that waits is the one whose runtime handed over the agent object, the only one that
 * can run it. Rejected: the engine's queue (admission.ts enqueueRun), which the instance that ends
 * the active run drains, from its registry, where the runtime's agent (cloned per request, with
 * that request's headers) is not. Nothing of a waiting run is written until it is admitted, as
 * nothing of an engine-queued run is in the log until it starts: if this process dies while the
 * run waits, there is no run to end; its poster's connection, which came through this process,
 * breaks with it.
 *
 * The wait follows the thread's log (store.follow: in process, or Postgres's doorbell from other
 * instances) and looks at the thread's status after each batch; no polling. It is bounded twice:
 * `waitMs` per run (past it: QUEUE_WAIT_EXCEEDED, nothing written), and `max` runs waiting in this
 * runner at once (past it: 503 RUNNER_QUEUE_FULL), since each holds a follower. A run whose client
 * left while it waits is still admitted when its turn comes (as an engine-queued run is): the
 * message was sent. Runs waiting for one thread are admitted in no guaranteed order (each tries
 * when the thread settles; one wins, the others wait again).
 */
import { isActive } from "../../protocol/status.ts";
import type { Logger } from "pino";
import type { DoubleTextingPolicy } from "../agents/define.ts";
import type { Engine } from "../engine/engine.ts";
import { ThreadBusyError } from "../engine/errors.ts";
import { ConflictError, InvalidRequestError, ServiceUnavailableError } from "../errors.ts";
import type { EventStore } from "../store/types.ts";
import type { RunnerQueueOptions } from "./app-runner-types.ts";

export const RUNNER_QUEUE_DEFAULTS: Required<RunnerQueueOptions> = { waitMs: 120_000, max: 100 };

export const INTERRUPT_REASON = 'interrupted by a newer message (double texting "interrupt")';

export class RunnerTurns {
  readonly #store: EventStore;
  readonly #engine: Engine;
  readonly #logger: Logger;
  readonly #waitMs: number;
  readonly #max: number;
  #waiting = 0;

  constructor(deps: { store: EventStore; engine: Engine; logger: Logger }, options: RunnerQueueOptions = {}) {
    this.#store = deps.store;
    this.#engine = deps.engine;
    this.#logger = deps.logger;
    this.#waitMs = bound("waitMs", options.waitMs ?? RUNNER_QUEUE_DEFAULTS.waitMs);
    this.#max = bound("max", options.max ?? RUNNER_QUEUE_DEFAULTS.max);
  }

  /** Runs waiting now (tests, and the bound). */
  get waiting(): number {
    return this.#waiting;
  }

  /**
   * `admit` is an admission that refuses a busy thread (THREAD_BUSY); by `policy`, a refusal is
   * final (reject) or this waits for the thread to settle and tries again until `waitMs`.
   */
  async admit<T>(threadId: string, policy: DoubleTextingPolicy, admit: () => Promise<T>): Promise<T> {
    const first = await attempt(admit);
    if (first.ok || policy === "reject") return unwrap(first);
    if (this.#waiting >= this.#max) {
      throw new ServiceUnavailableError("RUNNER_QUEUE_FULL", `${this.#max} runs are already waiting in this runner for their threads' active runs (agentRunner's queue.max); send your message again once the current answer ends.`, 1);
    }
    this.#waiting++;
    // One line per waiting run: where it waits is where it dies if this process does (see above).
    this.#logger.info({ threadId, policy, activeRunId: first.busy.activeRunId }, "a run waits in this process for the thread's active run to end");
    const deadline = Date.now() + this.#waitMs;
    try {
      for (;;) {
        if (policy === "interrupt") await this.#engine.cancel(threadId, INTERRUPT_REASON);
        if (!(await this.#settled(threadId, deadline))) {
          throw new ConflictError("QUEUE_WAIT_EXCEEDED", `Thread ${threadId}'s active run did not end within ${this.#waitMs} ms (agentRunner's queue.waitMs), so this message was not sent; send it again, or stop the active run.`);
        }
        const next = await attempt(admit);
        if (next.ok) return next.value;
      }
    } finally {
      this.#waiting--;
    }
  }

  /** True once the thread has no active run (or is gone); false when `deadline` passes first. */
  async #settled(threadId: string, deadline: number): Promise<boolean> {
    const thread = await this.#store.getThread(threadId);
    if (!thread || !isActive(thread.status)) return true;
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), Math.max(0, deadline - Date.now()));
    try {
      // The status changes in the commit of the events that end the run: the batch that carries
      // them is followed by a read that sees it.
      for await (const _ of this.#store.follow(threadId, thread.lastSeq, stop.signal)) {
        const now = await this.#store.getThread(threadId);
        if (!now || !isActive(now.status)) return true;
      }
      return false;
    } finally {
      clearTimeout(timer);
      stop.abort();
    }
  }
}

/** A bound of the options: a positive whole number (0 would refuse every run that waits; use "reject"). */
function bound(name: keyof RunnerQueueOptions, value: number): number {
  if (Number.isSafeInteger(value) && value > 0) return value;
  throw new InvalidRequestError("INVALID_RUNNER_OPTIONS", `agentRunner()'s queue.${name} is ${value}: use a whole number above 0.`, [{ path: `/queue/${name}`, message: "a whole number above 0" }]);
}

type Attempt<T> = { ok: true; value: T } | { ok: false; busy: ThreadBusyError };

/** One admission: a busy thread is an outcome to act on, anything else is thrown. */
async function attempt<T>(admit: () => Promise<T>): Promise<Attempt<T>> {
  try {
    return { ok: true, value: await admit() };
  } catch (err) {
    if (err instanceof ThreadBusyError) return { ok: false, busy: err };
    throw err;
  }
}

function unwrap<T>(a: Attempt<T>): T {
  if (a.ok) return a.value;
  throw a.busy;
}
