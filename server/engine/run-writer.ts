/**
 * The engine's pen: appends a run's workflow events in order without awaiting each one.
 *
 * Text deltas arrive per token; awaiting a commit per token would cap a stream at the
 * database's commit rate. Instead every append is handed to the store's group-commit writer at
 * once (it keeps call order, and flushes one at a time, so seqs follow emit order), and the
 * engine awaits `flush()` at the durable boundaries: the end of a task, before a tool runs,
 * before a terminal event. A failed append poisons the writer, so the run fails at the next
 * boundary instead of going on with a hole in its log. Every append is fenced by the lease
 * owner, so an instance that lost its lease (it froze, another took the run over) writes nothing.
 */
import type { StoredEvent, WorkflowEvent } from "../../protocol/events.ts";
import { LeaseLostError } from "../store/errors.ts";
import { isStoreUnavailable } from "../store/retry.ts";
import type { EventStore } from "../store/types.ts";
import { RunAborted } from "./errors.ts";

/** What the engine writes a run with: the RunWriter, or a subagent's view of it (attributed()). */
export interface RunPen {
  emit(...events: WorkflowEvent[]): void;
  flush(): Promise<StoredEvent[]>;
  commit(...events: WorkflowEvent[]): Promise<StoredEvent[]>;
}

const noop = (): void => undefined;

export class RunWriter implements RunPen {
  #pending: Promise<StoredEvent[]>[] = [];
  /** The last append handed to the store: a flush waits for it too (see flush()). */
  #last: Promise<unknown> = Promise.resolve();
  #failure: unknown = undefined;

  constructor(
    private readonly store: EventStore,
    readonly threadId: string,
    /** The lease owner every append is fenced by: the store refuses them once it lost the lease. */
    leaseOwner: string,
    private readonly hooks: {
      /** False once this process may no longer hold the run's lease: nothing more is written. */
      mayWrite?: () => boolean;
      /** The store stopped answering (retries exhausted) or a commit's outcome is unknown. */
      onStoreLost?: (err: unknown) => void;
      /** Each append's events once committed, in emit order (the run's checkpoint fold). */
      onCommitted?: (events: StoredEvent[]) => void;
    } = {},
  ) {
    this.#appendOptions = { leaseOwner };
  }

  emit(...events: WorkflowEvent[]): void {
    if (this.#failure !== undefined) return;
    if (this.hooks.mayWrite && !this.hooks.mayWrite()) {
      this.#failure = new RunAborted("lease_lost");
      return;
    }
    const p = this.store.append(this.threadId, events, this.#appendOptions);
    // Appends of one writer commit in call order, and their promises settle in that order. One
    // reaction with handlers made once per writer: an emit is a token, and a closure and a
    // derived promise each per token showed in the allocation profile (docs/performance.md,
    // "The hops a token takes"). Rejected: .then for the hook and .catch for the failure, two
    // derived promises and three closures per token.
    p.then(this.hooks.onCommitted ? this.#committed : undefined, this.#failed);
    this.#pending.push(p);
    this.#last = p;
  }

  /** The append options of every emit (the same lease owner): built once, not per token. */
  readonly #appendOptions: { leaseOwner: string };

  readonly #committed = (committed: StoredEvent[]): void => {
    try {
      this.hooks.onCommitted?.(committed);
    } catch (err) {
      this.#failure ??= err; // the run cannot vouch for its checkpoint: it fails
    }
  };

  readonly #failed = (err: unknown): void => {
    if (this.#failure !== undefined) return;
    if (err instanceof LeaseLostError) {
      // The database said another instance holds the run now: stop as on a lost heartbeat.
      this.#failure = new RunAborted("lease_lost");
    } else if (isStoreUnavailable(err)) {
      // Not the run's fault, and maybe not even a failed write (an unknown commit outcome):
      // the run stops and is resumed from whatever the log turns out to hold.
      this.#failure = new RunAborted("store_lost");
      this.hooks.onStoreLost?.(err);
    } else {
      this.#failure = err; // the database refused this data: the run fails
    }
  };

  /**
   * Waits for everything emitted so far to be committed; rethrows the first failure. Parallel
   * subagents flush one writer at once: a flush that finds the pending list taken by another
   * still waits for the last append emitted before it (appends settle in call order), so no
   * flush returns before its own events are durable.
   */
  async flush(): Promise<StoredEvent[]> {
    const pending = this.#pending;
    this.#pending = [];
    const last = this.#last;
    const settled = await Promise.allSettled(pending);
    await last.then(noop, noop);
    if (this.#failure !== undefined) throw this.#failure;
    return settled.flatMap((s) => (s.status === "fulfilled" ? s.value : []));
  }

  /** Emits and waits: for events that must be durable before the engine goes on. */
  async commit(...events: WorkflowEvent[]): Promise<StoredEvent[]> {
    this.emit(...events);
    return this.flush();
  }
}
