/**
 * The engine: accepts runs, executes them under a lease, and leaves every trace in the log.
 * It never writes to a socket; clients read what it appended through protocol/project.ts.
 *
 * One conversation = one thread = one durable workflow; one AG-UI run = one turn of it.
 */
import { randomUUID } from "node:crypto";
import type { RunAgentInput } from "@ag-ui/core";
import type { Logger } from "pino";
import type { StoredEvent, WorkflowEvent } from "../../protocol/events.ts";
import { reconstruct } from "../../protocol/reconstruct.ts";
import { isActive } from "../../protocol/status.ts";
import type { AgentDefinition, AgentRegistry, DoubleTextingPolicy } from "../agents/define.ts";
import type { EventStore, ThreadRow } from "../store/types.ts";
import { ThreadAgentMismatchError, ThreadBusyError } from "./errors.ts";
import type { ChatModelFactory } from "./chat-model.ts";
import { RunExecutor, type ExecuteParams } from "./run-executor.ts";
import { newMessagesOf, mergeState } from "./run-input.ts";

export interface EngineOptions {
  store: EventStore;
  agents: AgentRegistry;
  models: ChatModelFactory;
  logger: Logger;
  /** This process's name in lease rows; random per process by default. */
  instanceId?: string;
  leaseTtlMs?: number;
}

export interface StartRunOptions {
  doubleTexting?: DoubleTextingPolicy;
  /**
   * The caller's tenant: a new thread becomes theirs, and a thread of another tenant is refused
   * (ThreadNotOwnedError, nothing written). Default: the default tenant.
   */
  tenantId?: string;
}

export interface StartedRun {
  threadId: string;
  runId: string;
  /** Clients follow the log from here: every frame of this run comes after it. */
  afterSeq: number;
  /** True when the run waits behind the thread's active run (policy enqueue / interrupt). */
  queued: boolean;
}

export class Engine {
  readonly instanceId: string;
  readonly leaseTtlMs: number;
  readonly #store: EventStore;
  readonly #agents: AgentRegistry;
  readonly #logger: Logger;
  readonly #executor: RunExecutor;
  #sweepTimer: NodeJS.Timeout | undefined;
  #heartbeatTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(opts: EngineOptions) {
    this.instanceId = opts.instanceId ?? `threadline-${randomUUID().slice(0, 8)}`;
    this.leaseTtlMs = opts.leaseTtlMs ?? 15_000;
    this.#store = opts.store;
    this.#agents = opts.agents;
    this.#logger = opts.logger.child({ instance: this.instanceId });
    this.#executor = new RunExecutor({
      store: opts.store,
      models: opts.models,
      logger: this.#logger,
      owner: this.instanceId,
      leaseTtlMs: this.leaseTtlMs,
      onSettled: (threadId) => this.#drainQueue(threadId),
    });
  }

  /** Starts the lease heartbeat and the recovery sweeper, and recovers what was left behind. */
  async start(): Promise<void> {
    const beat = Math.max(50, Math.floor(this.leaseTtlMs / 3));
    this.#heartbeatTimer = setInterval(() => void this.#executor.heartbeat(this.leaseTtlMs), beat);
    this.#heartbeatTimer.unref();
    this.#sweepTimer = setInterval(() => void this.sweep(), Math.max(100, Math.floor(this.leaseTtlMs / 2)));
    this.#sweepTimer.unref();
    await this.sweep();
  }

  /**
   * Starts a run, or applies the thread's double-texting policy when it is busy. The lease is
   * the lock: whoever takes it (store: never re-entrant) begins the run; any other start, here
   * or on another instance, finds the thread busy.
   */
  async startRun(agent: AgentDefinition, input: RunAgentInput, opts: StartRunOptions = {}): Promise<StartedRun> {
    const { threadId } = input;
    const { thread, created } = await this.#store.ensureThread(threadId, agent.id, opts.tenantId);
    if (thread.agentId !== agent.id) throw new ThreadAgentMismatchError(threadId, thread.agentId, agent.id);
    // A thread row with no events yet was only just created (or its first run never began).
    if (isActive(thread.status) && thread.lastSeq > 0) return this.#busy(thread, agent, input, opts);

    if (!(await this.#store.acquireLease(threadId, this.instanceId, this.leaseTtlMs))) {
      const now = (await this.#store.getThread(threadId)) ?? thread;
      return this.#busy(now, agent, input, opts);
    }
    const fresh = (await this.#store.getThread(threadId)) ?? thread;
    const hasHistory = fresh.lastSeq > 0;
    if (hasHistory && isActive(fresh.status)) {
      await this.#store.releaseLease(threadId, this.instanceId);
      return this.#busy(fresh, agent, input, opts);
    }
    return this.#begin(agent, input, created || !hasHistory);
  }

  /** Asks the thread's active run to stop, from any instance: the log carries the request. */
  async cancel(threadId: string, reason = "cancelled by the user"): Promise<ThreadRow | null> {
    const thread = await this.#store.getThread(threadId);
    if (!thread || !isActive(thread.status) || thread.status === "CANCELLING") return thread;
    const runId = thread.activeRunId ?? undefined;
    if (!runId) return thread;
    await this.#store.append(threadId, [{ type: "workflow.cancelling", data: { runId, reason } }]);
    // Fast path when the run executes here; elsewhere its executor sees the event in the log.
    this.#executor.abortLocal(threadId, "cancelled");
    // Nobody executes it (it ended just now, or its instance died): settle it ourselves.
    if (!this.#executor.isRunningLocally(threadId) &&
        (await this.#store.acquireLease(threadId, this.instanceId, this.leaseTtlMs))) {
      await this.#settleCancelled(threadId);
    }
    return this.#store.getThread(threadId);
  }

  /** Claims threads whose lease expired and resumes or fails their run. */
  async sweep(): Promise<void> {
    if (this.#closed) return;
    try {
      const claimed = await this.#store.claimExpired(this.instanceId, this.leaseTtlMs, 5);
      for (const row of claimed) await this.#recover(row);
    } catch (err) {
      this.#logger.warn({ err }, "recovery sweep failed; the next sweep tries again");
    }
  }

  isRunningLocally(threadId: string): boolean {
    return this.#executor.isRunningLocally(threadId);
  }

  /** Stops timers and local runs; leases are released so another instance resumes at once. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweepTimer);
    clearInterval(this.#heartbeatTimer);
    await this.#executor.shutdown();
  }

  /** Waits until every local run has settled (tests). */
  idle(): Promise<void> {
    return this.#executor.idle();
  }

  async #busy(
    thread: ThreadRow,
    agent: AgentDefinition,
    input: RunAgentInput,
    opts: StartRunOptions,
  ): Promise<StartedRun> {
    const policy = opts.doubleTexting ?? agent.doubleTexting;
    if (policy === "reject") throw new ThreadBusyError(thread.threadId, thread.activeRunId, thread.status);
    await this.#store.enqueueRun(thread.threadId, input.runId, input);
    if (policy === "interrupt" && thread.activeRunId) {
      await this.#store.append(thread.threadId, [
        { type: "signal.received", data: { runId: thread.activeRunId, signal: "steer", payload: { runId: input.runId } } },
      ]);
      // Fast path when the run executes here; elsewhere its executor reads the signal from the log.
      this.#executor.steerLocal(thread.threadId, thread.activeRunId);
    }
    // The active run may have ended between our look and the enqueue: start the queue now.
    void this.#drainQueue(thread.threadId);
    return { threadId: thread.threadId, runId: input.runId, afterSeq: thread.lastSeq, queued: true };
  }

  async #begin(agent: AgentDefinition, input: RunAgentInput, isNew: boolean): Promise<StartedRun> {
    const { threadId, runId } = input;
    const history = await this.#store.read(threadId);
    const snapshot = reconstruct(history);
    const newMessages = newMessagesOf(snapshot.messages, input.messages);
    const state = mergeState(snapshot.state, input.state);
    const batch: WorkflowEvent[] = [];
    if (isNew) batch.push({ type: "thread.created", data: { agentId: agent.id } });
    batch.push({
      type: "run.accepted",
      data: {
        runId,
        ...(input.parentRunId ? { parentRunId: input.parentRunId } : {}),
        tools: input.tools ?? [],
        context: input.context ?? [],
        ...(input.forwardedProps !== undefined ? { forwardedProps: input.forwardedProps } : {}),
      },
    });
    for (const message of newMessages) {
      batch.push({ type: "message.appended", data: { runId, source: "input", message } });
    }
    if (input.state !== undefined && JSON.stringify(state) !== JSON.stringify(snapshot.state)) {
      batch.push({ type: "state.set", data: { runId, state } });
    }
    batch.push({ type: "workflow.started", data: { runId } });
    const stored = await this.#store.append(threadId, batch, { leaseOwner: this.instanceId });
    const afterSeq = stored[0]!.seq - 1;
    this.#spawn({
      threadId,
      runId,
      agent,
      frontendTools: input.tools ?? [],
      context: input.context ?? [],
      messages: [...snapshot.messages, ...newMessages],
      state,
      afterSeq: stored[stored.length - 1]!.seq,
    });
    return { threadId, runId, afterSeq, queued: false };
  }

  #spawn(params: ExecuteParams): void {
    this.#executor.execute(params);
  }

  async #drainQueue(threadId: string): Promise<void> {
    if (this.#closed) return;
    try {
      const next = await this.#store.nextQueuedRun(threadId);
      if (!next) return;
      if (!(await this.#store.acquireLease(threadId, this.instanceId, this.leaseTtlMs))) return;
      const thread = await this.#store.getThread(threadId);
      if (!thread || isActive(thread.status)) {
        await this.#store.releaseLease(threadId, this.instanceId);
        return;
      }
      // Re-read under the lease: another instance may have started it meanwhile.
      const run = await this.#store.nextQueuedRun(threadId);
      const agent = this.#agents.get(thread.agentId);
      if (!run || !agent) {
        await this.#store.releaseLease(threadId, this.instanceId);
        return;
      }
      await this.#begin(agent, run.input as RunAgentInput, false);
    } catch (err) {
      this.#logger.error({ err, threadId }, "could not start the next queued run");
    }
  }

  /** Called holding the lease of a CANCELLING thread that nobody executes. */
  async #settleCancelled(threadId: string): Promise<void> {
    let settled = false;
    try {
      const thread = await this.#store.getThread(threadId);
      if (thread?.status === "CANCELLING" && thread.activeRunId) {
        // Its commit frees the lease; releasing afterwards could strip a run started since.
        await this.#store.append(threadId, [
          { type: "workflow.cancelled", data: { runId: thread.activeRunId, reason: "cancelled by the user" } },
        ], { leaseOwner: this.instanceId });
        settled = true;
      }
    } finally {
      if (!settled) await this.#store.releaseLease(threadId, this.instanceId);
    }
    void this.#drainQueue(threadId);
  }

  async #recover(row: ThreadRow): Promise<void> {
    const { threadId } = row;
    const log = this.#logger.child({ threadId, runId: row.activeRunId });
    try {
      if (row.status === "CANCELLING") return await this.#settleCancelled(threadId);
      const events = await this.#store.read(threadId);
      const accepted = lastAccepted(events, row.activeRunId);
      const agent = this.#agents.get(row.agentId);
      if (!accepted) {
        log.warn("claimed a thread with no run to recover; releasing it");
        return await this.#store.releaseLease(threadId, this.instanceId);
      }
      const runId = accepted.data.runId;
      if (!agent) {
        await this.#store.append(threadId, [
          {
            type: "workflow.failed",
            data: { runId, error: { code: "AGENT_NOT_FOUND", message: `Agent "${row.agentId}" is not hosted here any more.` } },
          },
        ], { leaseOwner: this.instanceId });
        return; // the failure's commit freed the lease
      }
      if (agent.onRecovery === "fail") {
        await this.#store.append(threadId, [
          {
            type: "workflow.failed",
            data: { runId, error: { code: "INSTANCE_LOST", message: "The server running this conversation stopped; send your message again." } },
          },
        ], { leaseOwner: this.instanceId });
        log.info("failed a run whose instance stopped heartbeating (agent onRecovery: fail)");
        return;
      }
      const started = events.some((e) => e.type === "workflow.started" && e.data.runId === runId);
      const resumed: WorkflowEvent = started
        ? { type: "workflow.resumed", data: { runId, reason: "recovered", owner: this.instanceId } }
        : { type: "workflow.started", data: { runId } };
      const stored = await this.#store.append(threadId, [resumed], { leaseOwner: this.instanceId });
      log.info("recovering a run whose instance stopped heartbeating");
      const snapshot = reconstruct(events);
      this.#spawn({
        threadId,
        runId,
        agent,
        frontendTools: accepted.data.tools,
        context: accepted.data.context,
        messages: snapshot.messages,
        state: snapshot.state,
        afterSeq: stored[0]!.seq,
      });
    } catch (err) {
      log.error({ err }, "recovery failed; the lease will expire and another sweep will retry");
    }
  }
}

function lastAccepted(events: StoredEvent[], runId: string | null) {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.type === "run.accepted" && (runId === null || e.data.runId === runId)) return e;
  }
  return undefined;
}
