/**
 * Executes runs in this process: one RunLoop per thread under its lease, a watcher that reads
 * cancel and steering requests from the log (they may come from any instance), the heartbeat
 * that keeps the leases, and the terminal event that settles the thread's status.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { StoredEvent, WorkflowEvent } from "../../protocol/events.ts";
import { INTERRUPT_TOOL_NAME } from "../../protocol/interrupts.ts";
import { COMPACTED_MAX_CHARS_PER_RUN, DeltaMerger } from "../../protocol/merged-deltas.ts";
import { HeartbeatMissedError } from "../store/errors.ts";
import type { EventStore } from "../store/types.ts";
import type { ModelFactory } from "../models/model.ts";
import type { IdSource, RunContext } from "./run-context.ts";
import type { AbortReason } from "./errors.ts";
import { handOver, type OnHandOff } from "./handoff.ts";
import { type EngineObserver, noTokens, type RunEndOutcome, type RunProbe, type TokenTotals } from "./observer.ts";
import { type ExecuteParams, factsOf } from "./execute-params.ts";
import { endOf, reportRunEnd } from "./run-end.ts";
import type { ForeignBounds } from "./foreign/bounds.ts";
import type { RunOutcome } from "./run-loop.ts";
import { runAgentIn } from "./agent-run.ts";
import { RunWriter } from "./run-writer.ts";
import type { Memory } from "../memory/memory.ts";

interface LocalRun {
  runId: string;
  controller: AbortController;
  reason: AbortReason | undefined;
  steered: boolean;
  /** The run's durable steps (task.completed committed): the step a hand-off names. */
  steps: number;
  done: Promise<void>;
  /**
   * performance.now() until which the lease is surely ours: the start of the last heartbeat
   * that kept it, plus the TTL. Past it another instance may have claimed the run.
   */
  leaseUntil: number;
  /** The observer's view of the run; stop() reports it once, whichever way the run stops. */
  probe: RunProbe;
  stopped: boolean;
  /** performance.now() when it began executing here. */
  startedAt: number;
  tokens: TokenTotals;
  /** The run's committed deltas, merged for catch-ups; written with its end. */
  merged: DeltaMerger;
}

const ids: IdSource = {
  message: () => `msg-${randomUUID()}`,
  toolCall: () => `call-${randomUUID()}`,
};

export class RunExecutor {
  readonly #runs = new Map<string, LocalRun>();
  #beating = false;
  /** Set when the instance drains: every run stops before its next step and is handed over. */
  #handingOver = false;

  constructor(
    private readonly deps: {
      store: EventStore;
      models: ModelFactory;
      logger: Logger;
      observer: EngineObserver;
      leaseOwner: string;
      leaseTtlMs: number;
      onSettled: (threadId: string) => void | Promise<void>;
      onHandOff?: OnHandOff;
      /** Memory across threads (docs/memory.md): each run gets its tenant's. */
      memory: Memory;
      /** What a foreign agent's run may write (foreign/bounds.ts). */
      foreignBounds?: ForeignBounds;
    },
  ) {}

  /** Runs executing here now: each holds its thread's lease, which the heartbeat keeps. */
  get size(): number {
    return this.#runs.size;
  }

  isRunningLocally(threadId: string): boolean {
    return this.#runs.has(threadId);
  }

  /** The threads whose runs execute here now (the sweep never claims these, sql/leases.ts). */
  threadsHere(): string[] {
    return [...this.#runs.keys()];
  }

  abortLocal(threadId: string, reason: AbortReason): void {
    const run = this.#runs.get(threadId);
    if (!run || run.reason) return;
    run.reason = reason;
    run.controller.abort(new Error(reason));
  }

  /** A newer message asks the run to stop after its current tool (double texting "interrupt"). */
  steerLocal(threadId: string, runId: string): void {
    const run = this.#runs.get(threadId);
    if (run?.runId === runId) run.steered = true;
  }

  /** The drain: runs finish the step in flight, then stop before the next one to be handed over. */
  handOverAtNextStep(): void {
    this.#handingOver = true;
  }

  /**
   * A thread's next run may start here while the last one is still in its tail (its end
   * committed, which freed the lease, and its promise not yet settled): it takes the thread's
   * entry, and the old run's finally leaves it alone. A second live execution of one run never
   * reaches this: the sweep does not claim a thread executing here (sql/leases.ts
   * claimExpiredLeases). Rejected: refusing a thread that has an entry, which failed follow-ups
   * and resumes under the interrupted run's own id that arrive in that tail.
   */
  execute(p: ExecuteParams): void {
    const controller = new AbortController();
    const local: LocalRun = {
      runId: p.runId,
      controller,
      reason: undefined,
      steered: false,
      steps: p.stepsDone ?? 0,
      done: Promise.resolve(),
      leaseUntil: performance.now() + this.deps.leaseTtlMs,
      probe: this.deps.observer.runExecuting(factsOf(p), { recovered: p.recovered ?? false }),
      stopped: false,
      startedAt: performance.now(),
      tokens: noTokens(),
      merged: new DeltaMerger(COMPACTED_MAX_CHARS_PER_RUN),
    };
    this.#runs.set(p.threadId, local);
    // The thread's queue is handed on once the run is no longer among this process's runs, so
    // the queued run, which executes here too, finds the thread's entry free and the sweep's
    // exclusion list without the old run. Rejected: handing it on from inside the run, which
    // overlapped the two runs' entries.
    local.done = this.#run(p, local)
      .catch((err: unknown) => this.#failUnowned(p, local, err))
      .finally(() => {
        if (this.#runs.get(p.threadId) === local) this.#runs.delete(p.threadId);
      })
      .then((settled) => (settled ? this.deps.onSettled(p.threadId) : undefined))
      .catch((err: unknown) => this.#runLogger(p, local).error({ err }, "could not hand on the thread's queue after the run"));
  }

  /**
   * The owner of whatever escaped a run (its model factory threw, its settle hit a bug): the run
   * ends FAILED with RUN_ERROR, logged with its ids, and the process goes on. Nobody awaits a
   * run's promise, so without this a single bad run was an unhandled rejection that ended the
   * process and every other run in it.
   */
  async #failUnowned(p: ExecuteParams, local: LocalRun, err: unknown): Promise<boolean> {
    const log = this.#runLogger(p, local);
    log.error({ err }, "run failed outside its loop; recording the failure");
    if (!this.#leaseLive(p.threadId, local, log)) {
      this.#stop(local, { left: "lease_lost" }); // whoever holds the lease settles it
      return false;
    }
    const message = `The run failed on an internal error: ${err instanceof Error ? err.message : String(err)}`;
    try {
      await this.deps.store.append(p.threadId, [
        { type: "workflow.failed", data: { runId: p.runId, error: { code: "INTERNAL_ERROR", message } } },
      ], { leaseOwner: this.deps.leaseOwner });
    } catch (appendErr) {
      log.error({ err: appendErr }, "could not record the run's failure; recovery will settle it once the lease expires");
      this.#stop(local, { left: "store_lost" });
      return false;
    }
    this.#ended(p, local, log, { outcome: "failed", errorCode: "INTERNAL_ERROR" });
    return true;
  }

  /** The probe's report, once: a run that ended and then failed to hand on its queue is not stopped twice. */
  #stop(local: LocalRun, how: Parameters<RunProbe["stopped"]>[0]): void {
    if (local.stopped) return;
    local.stopped = true;
    local.probe.stopped(how);
  }

  /** The run's terminal event committed here: the run-end line and the observer's counts. */
  #ended(p: ExecuteParams, local: LocalRun, log: Logger, end: { outcome: RunEndOutcome; errorCode?: string }): void {
    const full = { ...end, durationMs: performance.now() - local.startedAt, tokens: { ...local.tokens } };
    this.#stop(local, { end: full });
    reportRunEnd(log, this.deps.observer, factsOf(p), full);
  }

  /** The run's logger: every line names the thread, the run, the request that posted it, and its trace. */
  #runLogger(p: ExecuteParams, local: LocalRun): Logger {
    return this.deps.logger.child({ threadId: p.threadId, runId: p.runId, ...(p.requestId !== undefined && { requestId: p.requestId }), ...local.probe.logFields() });
  }

  /**
   * One beat at a time: a beat stuck on a silent socket (up to the client query timeout) must
   * not pile up others behind it. Beats it skips are missed beats; the run's leaseUntil, which
   * only a successful beat extends, stops its writes if the lease may have run out meanwhile.
   */
  async heartbeat(ttlMs: number): Promise<void> {
    if (this.#beating) return;
    const threads = [...this.#runs.keys()];
    if (threads.length === 0) return;
    const sentAt = performance.now();
    this.#beating = true;
    const renew = (held: Set<string>, missed: ReadonlySet<string>) => {
      for (const t of threads) {
        if (missed.has(t)) continue;
        const run = this.#runs.get(t);
        if (!held.has(t)) this.abortLocal(t, "lease_lost");
        else if (run) run.leaseUntil = Math.max(run.leaseUntil, sentAt + ttlMs);
      }
    };
    try {
      renew(new Set(await this.deps.store.heartbeat(this.deps.leaseOwner, threads, ttlMs)), new Set());
    } catch (err) {
      // A missed beat is not a lost lease yet: the TTL spans three beats. (A beat that waited
      // too long for its row, lock_timeout, is one of these.) On shards, the threads of the
      // shards that answered have their beat (HeartbeatMissedError).
      if (err instanceof HeartbeatMissedError) renew(new Set(err.held), new Set(err.missed));
      this.deps.observer.heartbeatFailed();
      this.deps.logger.warn({ err }, "lease heartbeat failed");
    } finally {
      this.#beating = false;
    }
  }

  /** Stops every run at once (the drain's end): a step in flight is cut and redone elsewhere. */
  async shutdown(): Promise<void> {
    for (const t of this.#runs.keys()) this.abortLocal(t, "shutdown");
    await this.idle();
  }

  async idle(): Promise<void> {
    while (this.#runs.size > 0) await Promise.allSettled([...this.#runs.values()].map((r) => r.done));
  }

  /** Resolves true when the run settled here (its end committed): the thread's queue goes on. */
  async #run(p: ExecuteParams, local: LocalRun): Promise<boolean> {
    const { store } = this.deps;
    const log = this.#runLogger(p, local);
    const watcherStop = new AbortController();
    const watcher = this.#watch(p, local, watcherStop.signal, log);
    const writer = new RunWriter(store, p.threadId, this.deps.leaseOwner, {
      mayWrite: () => this.#leaseLive(p.threadId, local, log),
      onCommitted: (events) => {
        for (const e of events) {
          p.fold.push(e);
          local.merged.push(e);
          if (e.type === "task.completed") local.steps++;
        }
      },
      onStoreLost: (err) => {
        if (!local.reason) log.warn({ err }, "the event store stopped answering: the run stops and is left to recovery");
        this.abortLocal(p.threadId, "store_lost");
      },
    });
    const ctx: RunContext = {
      threadId: p.threadId,
      tenantId: p.tenantId,
      runId: p.runId,
      agent: p.agent,
      // The interrupt tool is how a client renders interrupts, not a tool for the model.
      frontendTools: p.frontendTools.filter((t) => t.name !== INTERRUPT_TOOL_NAME),
      context: p.context,
      forwardedProps: p.forwardedProps,
      // The parent's model reads its own conversation: a subagent's messages are the child's
      // (protocol/subagent-events.ts); the child finds them in logMessages.
      messages: p.messages.filter((m) => m.subagentRunId === undefined),
      logMessages: p.messages,
      modelFor: this.deps.models,
      runAgent: runAgentIn,
      interrupts: p.fold.interrupts(),
      state: p.state,
      modelRequests: p.modelRequests,
      writer,
      signal: local.controller.signal,
      abortReason: () => local.reason,
      steered: () => local.steered,
      handingOver: () => this.#handingOver,
      ...(p.cutAnswer && { cutAnswer: p.cutAnswer }),
      model: this.deps.models(p.agent),
      ids,
      logger: log,
      probe: local.probe,
      tokens: local.tokens,
      memory: this.deps.memory.forTenant(p.tenantId),
      ...(this.deps.foreignBounds && { foreignBounds: this.deps.foreignBounds }),
    };
    let outcome: RunOutcome;
    try {
      // A remote agent's run is its endpoint's stream, an in-process foreign agent's its source's,
      // not the engine's loop (foreign/remote-run.ts).
      outcome = await local.probe.within(() => runAgentIn(ctx));
    } finally {
      watcherStop.abort();
      await watcher;
    }
    return this.#settle(p, outcome, writer, log, local);
  }

  async #settle(p: ExecuteParams, outcome: RunOutcome, writer: RunWriter, log: Logger, local: LocalRun): Promise<boolean> {
    const { store, leaseOwner } = this.deps;
    const { runId, threadId } = p;
    let terminal: WorkflowEvent | undefined;
    if (outcome.kind === "waiting") {
      terminal = {
        type: "workflow.suspended",
        data: {
          runId,
          reason: outcome.reason,
          pendingToolCallIds: outcome.pendingToolCallIds,
          ...(outcome.interruptIds?.length ? { interruptIds: outcome.interruptIds } : {}),
        },
      };
    } else if (outcome.kind === "completed") {
      terminal = { type: "workflow.completed", data: { runId, ...(outcome.result !== undefined && { result: outcome.result }) } };
    } else if (outcome.kind === "failed") {
      terminal = { type: "workflow.failed", data: { runId, error: { code: outcome.code, message: outcome.message } } };
    } else if (outcome.reason === "cancelled") {
      terminal = { type: "workflow.cancelled", data: { runId, reason: "cancelled by the user" } };
    }
    // lease_lost / handoff / shutdown / store_lost: no end. The run is not over; whoever holds
    // (or next claims) the lease resumes it from the log. A drain hands it over (handoff.ts): a
    // mark, and the lease given back at once. A lost store gives the lease back too (if the
    // database takes it), so that the next sweep of any instance resumes it without waiting for
    // the lease to expire.
    const reason = outcome.kind === "aborted" ? outcome.reason : undefined;
    if ((reason === "handoff" || reason === "shutdown") && this.#leaseLive(threadId, local, log)) {
      // What the run still had in flight lands before the mark (a poisoned writer throws: the
      // log, read by the next instance, says what was written).
      await writer.flush().catch(() => undefined);
      await handOver({ store, leaseOwner, threadId, runId, step: local.steps, cut: reason === "shutdown", log, onHandOff: this.deps.onHandOff });
      this.#stop(local, { left: reason });
      return false;
    }
    if (!terminal || !this.#leaseLive(threadId, local, log)) {
      if (outcome.kind === "aborted" && (outcome.reason === "shutdown" || outcome.reason === "store_lost")) {
        await store.releaseLease(threadId, leaseOwner).catch((err: unknown) => {
          log.warn({ err }, "could not release the lease; it expires by itself and recovery resumes the run then");
        });
      }
      const reason = outcome.kind === "aborted" ? outcome.reason : "lease_lost";
      log.info({ reason }, "run left for recovery");
      this.#stop(local, { left: reason });
      return false;
    }
    try {
      // Stream events still in flight land before the end. One that failed leaves a hole the
      // terminal event must not hide: the run is recorded as failed instead.
      await writer.flush().catch((err: unknown) => {
        log.error({ err }, "stream events of the run could not be recorded");
        if (terminal && terminal.type !== "workflow.failed") {
          terminal = { type: "workflow.failed", data: { runId, error: { code: "STORE_ERROR", message: "Part of the run could not be saved; send your message again." } } };
        }
      });
      // The checkpoint as of the terminal event: its position and time are the commit's.
      const end = terminal as WorkflowEvent;
      p.fold.push({ ...end, threadId, runId, seq: p.fold.lastSeq + 1, at: Date.now() } as StoredEvent);
      await store.append(threadId, [end], { leaseOwner: this.deps.leaseOwner, checkpoint: p.fold.toState(), checkpointBase: p.fold.origin, compacted: local.merged.take() });
      this.#ended(p, local, log, endOf(end)!);
    } catch (err) {
      log.error({ err }, "could not record the end of the run; recovery will settle it");
      this.#stop(local, { left: "store_lost" });
      return false;
    }
    // The terminal event's commit freed the lease (store: a settling batch clears it).
    return true;
  }

  /**
   * Whether this process may still write for the run. A process that was frozen (a long GC
   * pause, a suspended VM) or cut from the database for longer than the TTL wakes up with a
   * lease another instance may have claimed and finished meanwhile: it must not append its
   * stale stream, messages or terminal event to that run. It stops instead, as on a lost lease;
   * if nobody took the run over, recovery resumes it.
   */
  #leaseLive(threadId: string, local: LocalRun, log: Logger): boolean {
    const margin = Math.min(this.deps.leaseTtlMs / 10, 1_000); // a write takes a moment to commit
    if (performance.now() + margin < local.leaseUntil) return true;
    if (!local.reason) log.warn("the lease may have expired (no heartbeat kept it in time): the run stops writing");
    this.abortLocal(threadId, "lease_lost");
    return false;
  }

  /**
   * Reads the log for cancel and steering requests addressed to this run by other instances.
   * It wakes only on their appends (foreignOnly): reading back the run's own token stream on
   * every flush was a second read per flush for nothing. Requests made in this process arrive
   * directly (abortLocal, steerLocal) right after their events commit.
   */
  async #watch(p: ExecuteParams, local: LocalRun, signal: AbortSignal, log: Logger): Promise<void> {
    try {
      for await (const batch of this.deps.store.follow(p.threadId, p.afterSeq, signal, { foreignOnly: true })) {
        for (const e of batch) {
          if (e.type === "workflow.cancelling" && e.data.runId === p.runId) this.abortLocal(p.threadId, "cancelled");
          if (e.type === "signal.received" && e.data.runId === p.runId && e.data.signal === "steer") local.steered = true;
        }
      }
    } catch (err) {
      if (!signal.aborted) log.warn({ err }, "signal watcher stopped");
    }
  }
}
