/**
 * Admission and double texting: a run is admitted in the commit that writes its first events
 * (store: RunAdmission), which creates the thread if needed and takes the lease, and is refused,
 * writing nothing, if the thread moved on since it was read. A busy thread applies its
 * double-texting policy: reject (409), enqueue, or interrupt the active run.
 */
import type { Message, RunAgentInput } from "@ag-ui/core";
import { type ForkPlan, isStaleCopy, keptBy, MAIN_BRANCH, type ParentFork, planFork, planParentFork } from "../../protocol/branches.ts";
import type { Checkpoint } from "../../protocol/checkpoint.ts";
import type { StoredEvent, WorkflowEvent } from "../../protocol/events.ts";
import type { ProjectionSeed } from "../../protocol/project.ts";
import { Reconstructor, type ThreadSnapshot } from "../../protocol/reconstruct.ts";
import { isActive } from "../../protocol/status.ts";
import type { AgentDefinition, DoubleTextingPolicy } from "../agents/define.ts";
import { AdmissionRefusedError, ThreadNotFoundError, ThreadNotOwnedError } from "../store/errors.ts";
import { DEFAULT_TENANT } from "../tenant.ts";
import type { ThreadRow } from "../store/types.ts";
import type { EngineCore } from "./engine-core.ts";
import { RunIdReusedError, StaleHistoryError, ThreadAgentMismatchError, ThreadBusyError } from "./errors.ts";
import { assertInterruptOrder, mayAnswerInterrupts } from "../../protocol/lifecycle.ts";
import type { InterruptRecord } from "../../protocol/interrupts.ts";
import { isRequestId } from "../../protocol/request-id.ts";
import { type TraceContext, TraceContextSchema } from "../../protocol/trace-context.ts";
import { admissionOf, admissionRunId, wireRunId } from "../../protocol/run-ids.ts";
import { conversationAtRun } from "./parent-run.ts";
import { assertResumable, planResume } from "./resume.ts";
import { mergeState, newMessagesOf } from "./run-input.ts";
import { foldThread } from "./thread-fold.ts";
import { toolOf } from "../agents/subagent.ts";

/**
 * How often one start reads the thread again after its admission was refused. Each refusal means
 * another start, end or delete of the thread committed in between; past this many, the thread is
 * too contended to call it anything but busy.
 */
const ADMISSION_ATTEMPTS = 8;

export interface StartRunOptions {
  doubleTexting?: DoubleTextingPolicy;
  /**
   * The caller's tenant: a new thread becomes theirs, and a thread of another tenant is refused
   * (ThreadNotOwnedError, nothing written). Default: the default tenant.
   */
  tenantId?: string;
  /**
   * The client branches off on purpose: a history that drops the newest messages and adds a user
   * message forks the thread instead of being refused as a stale copy (STALE_HISTORY). AG-UI's
   * own way, a parentRunId that explains the history, needs no option (protocol/branches.ts).
   */
  fork?: boolean;
  /**
   * The HTTP request that posts the run (protocol/request-id.ts): kept in its run.accepted, so
   * the run's log lines and its RUN_ERROR name it wherever the run ends.
   */
  requestId?: string;
  /**
   * The W3C trace context the run was posted with (protocol/trace-context.ts), checked by the
   * caller: kept in its run.accepted, so its span joins that trace wherever the run executes.
   */
  traceContext?: TraceContext;
  /** Where the run's end is posted (docs/webhooks.md), checked by the caller; kept in its run.accepted. */
  webhook?: RunWebhook;
}

export interface RunWebhook {
  url: string;
}

export interface StartedRun {
  threadId: string;
  runId: string;
  /** Clients follow the log from here: every frame of this run comes after it. */
  afterSeq: number;
  /** True when the run waits behind the thread's active run (policy enqueue / interrupt). */
  queued: boolean;
  /**
   * For a run that started now: the projection as of just before its first events, and those
   * events as committed. Its stream projects them and follows the log after them, reading
   * nothing before RUN_STARTED. Absent for a queued run (its stream reads the log).
   */
  start?: { seed: ProjectionSeed; events: StoredEvent[] };
}

/**
 * Starts a run, or applies the thread's double-texting policy when it is busy. A refused
 * admission means someone else got there first: read the thread again and decide again (start,
 * queue, or answer busy), a bounded number of times.
 */
export async function startRun(
  core: EngineCore,
  agent: AgentDefinition,
  input: RunAgentInput,
  opts: StartRunOptions = {},
): Promise<StartedRun> {
  const { threadId, runId } = input;
  const tenantId = opts.tenantId ?? DEFAULT_TENANT;
  let thread: ThreadRow | null = null;
  for (let attempt = 1; attempt <= ADMISSION_ATTEMPTS; attempt++) {
    // One read: the row (unscoped: a scoped miss could not tell "not there", to create, from
    // "another tenant's"), whether the run id is taken, and the checkpoint the fold starts from.
    const view = await core.store.admissionView(threadId, runId);
    thread = view.thread;
    if (thread && thread.tenantId !== tenantId) throw new ThreadNotOwnedError(threadId, tenantId);
    if (thread && thread.agentId !== agent.id) throw new ThreadAgentMismatchError(threadId, thread.agentId, agent.id);
    // Run ids name a run for good, except for the resume of that very run (mayResumeOwnRun): it is
    // checked again against the fold in begin(), where the pending interrupts are known.
    const reuse = view.runTaken;
    if (reuse && !mayResumeOwnRun(thread, input)) throw new RunIdReusedError(threadId, runId);
    // Interrupts (resume.ts): an answer on a thread that is not WAITING answers nothing.
    assertResumable(threadId, thread, input);
    try {
      // A thread row with no events yet was only just created (or its first run never began).
      if (thread && isActive(thread.status) && thread.lastSeq > 0) return await busy(core, thread, agent, input, opts);
      return await begin(core, agent, input, { thread, tenantId, requestId: opts.requestId, traceContext: opts.traceContext, webhook: opts.webhook }, view.checkpoint, opts.fork ? "deliberate" : "unless-stale", reuse);
    } catch (err) {
      // Refused admission; or the thread was deleted under an enqueue: look again.
      if (!(err instanceof AdmissionRefusedError) && !(err instanceof ThreadNotFoundError)) throw err;
    }
  }
  throw new ThreadBusyError(threadId, thread?.activeRunId ?? null, thread?.status ?? "PENDING");
}

/**
 * The one reuse of a run id that is allowed (CopilotKit's useInterrupt resolves an interrupt with
 * the runId of the run that asked it): the run carries `resume`, the thread is WAITING, and, as
 * resumedRunId checks against the fold, the run that ended last, waiting for the pending
 * interrupts, is that run. Anything
 * else under a taken id is RUN_ID_REUSED: a second run under one id would be a second answer to
 * the same request, or a client that lost track of its ids.
 */
function mayResumeOwnRun(thread: ThreadRow | null, input: RunAgentInput): boolean {
  return thread !== null && (input.resume?.length ?? 0) > 0 && mayAnswerInterrupts(thread.status);
}

/**
 * The log id of a resume that names the interrupted run's own id: the next admission of that run
 * (protocol/run-ids.ts). Refused (RUN_ID_REUSED, nothing written) unless the thread waits for
 * interrupts and the run that ended last, the one that suspended waiting for them, is that
 * client run. The number follows that last admission: a run answered one interrupt at a time
 * under one runId is admitted as 2, 3, ..., never twice under one log id.
 */
function resumedRunId(threadId: string, input: RunAgentInput, lastEndedRunId: string | undefined, interrupts: ReadonlyMap<string, InterruptRecord>): string {
  const waiting = [...interrupts.values()].some((r) => !r.resolution);
  if (!waiting || lastEndedRunId === undefined || wireRunId(lastEndedRunId) !== input.runId) throw new RunIdReusedError(threadId, input.runId);
  return admissionRunId(input.runId, admissionOf(lastEndedRunId) + 1);
}

/** Starts the oldest queued run of a settled thread, if any; a refused admission tries again. */
export async function drainQueue(core: EngineCore, threadId: string): Promise<void> {
  if (core.closed()) return;
  try {
    for (let attempt = 1; attempt <= ADMISSION_ATTEMPTS; attempt++) {
      const next = await core.store.nextQueuedRun(threadId);
      if (!next) return;
      const thread = await core.store.getThread(threadId);
      if (!thread || isActive(thread.status)) return; // the active run drains it when it settles
      const agent = core.agents.get(thread.agentId);
      if (!agent) {
        core.logger.error({ threadId, runId: next.runId, agentId: thread.agentId }, "a queued run's agent is not hosted here; it stays queued");
        return;
      }
      try {
        // No fork from a queued run: its history was sent before the answers it waited behind.
        const { input, origin } = queuedInputOf(next.input);
        await begin(core, agent, input, { thread, tenantId: thread.tenantId, ...origin }, undefined, "never");
        return;
      } catch (err) {
        if (!(err instanceof AdmissionRefusedError)) throw err;
      }
    }
  } catch (err) {
    core.logger.error({ err, threadId }, "could not start the next queued run");
  }
}

async function busy(
  core: EngineCore,
  thread: ThreadRow,
  agent: AgentDefinition,
  input: RunAgentInput,
  opts: StartRunOptions,
): Promise<StartedRun> {
  const policy = opts.doubleTexting ?? agent.doubleTexting;
  if (policy === "reject") throw new ThreadBusyError(thread.threadId, thread.activeRunId, thread.status);
  if (!(await core.store.enqueueRun(thread.threadId, input.runId, queuedInput(input, opts)))) {
    throw new RunIdReusedError(thread.threadId, input.runId);
  }
  core.observer.runQueued({ threadId: thread.threadId, runId: input.runId, tenantId: thread.tenantId, agentId: agent.id, ...(opts.requestId !== undefined && { requestId: opts.requestId }) });
  if (policy === "interrupt" && thread.activeRunId) {
    await core.store.append(thread.threadId, [
      { type: "signal.received", data: { runId: thread.activeRunId, signal: "steer", payload: { runId: input.runId } } },
    ]);
    // Fast path when the run executes here; elsewhere its executor reads the signal from the log.
    core.executor.steerLocal(thread.threadId, thread.activeRunId);
  }
  // The active run may have ended between our look and the enqueue: start the queue now.
  void drainQueue(core, thread.threadId);
  return { threadId: thread.threadId, runId: input.runId, afterSeq: thread.lastSeq, queued: true };
}

/** Builds the run's first events from the thread as read (`thread`, null when new) and admits it. */
async function begin(
  core: EngineCore,
  agent: AgentDefinition,
  input: RunAgentInput,
  /** `thread` as read (null when new), the caller's tenant, the request that posts the run, its trace, its webhook */
  { thread, tenantId, ...origin }: { thread: ThreadRow | null; tenantId: string } & RunOrigin,
  /** read with `thread` (null: none), or undefined to read it now */
  checkpoint: Checkpoint | null | undefined,
  /**
   * whether a history that leaves the current branch forks it (protocol/branches.ts): always
   * ("deliberate"), unless it is a stale copy of the branch that no parentRunId explains
   * (refused, STALE_HISTORY), or never
   */
  forking: "deliberate" | "unless-stale" | "never",
  /** whether the thread has a run of `input.runId` already (allowed only by mayResumeOwnRun and resumedRunId) */
  reuse = false,
): Promise<StartedRun> {
  const { threadId } = input;
  const expectedLastSeq = thread?.lastSeq ?? 0;
  const isNew = expectedLastSeq === 0;
  const fold = isNew ? new Reconstructor() : await foldThread(core.store, threadId, { checkpoint, lastSeq: expectedLastSeq });
  const snapshot = fold.snapshot();
  const runId = reuse ? resumedRunId(threadId, input, snapshot.lastEndedRunId, fold.interrupts()) : input.runId;
  // A history that leaves the current branch forks it: the run starts from what the fork keeps.
  const { fork, restore, base } = isNew || forking === "never" ? { fork: null, restore: [], base: snapshot.messages } : await branchOf(core, input, snapshot, forking, expectedLastSeq);
  // Answers to pending interrupts leave the messages and become interrupt.resolved (resume.ts).
  const tools = (name: string) => toolOf(agent, name);
  const resumed = planResume({ threadId, runId, interrupts: fold.interrupts(), tools, now: Date.now() }, newMessagesOf(base, input.messages), input.resume);
  const newMessages = resumed.messages;
  const state = mergeState(snapshot.state, input.state);
  const batch = firstEvents(agent, { ...input, runId }, { isNew, snapshot, fork, restore, resumedEvents: resumed.events, newMessages, state, origin });
  assertInterruptOrder(batch);
  const stored = await core.store.append(threadId, batch, {
    admit: { agentId: agent.id, tenantId, leaseOwner: core.leaseOwner, ttlMs: core.leaseTtlMs, expectedLastSeq },
  });
  for (const e of stored) fold.push(e);
  core.executor.execute({
    threadId,
    tenantId,
    runId,
    agent,
    frontendTools: input.tools ?? [],
    context: input.context ?? [],
    forwardedProps: input.forwardedProps,
    messages: [...base, ...newMessages],
    state,
    afterSeq: stored[stored.length - 1]!.seq,
    fold,
    modelRequests: 0, // a run just admitted has made none
    ...(origin.requestId !== undefined && { requestId: origin.requestId }),
    ...(origin.traceContext && { traceContext: origin.traceContext }),
  });
  // A stream may start from the fold only between runs (Projector.at); an admitted thread is
  // settled, so this holds unless its log ended a run without the lifecycle noticing.
  const seed = { threadId, seq: expectedLastSeq, messages: snapshot.messages, state: snapshot.state, interrupts: [...fold.interrupts().values()] };
  const start = snapshot.activeRunId === undefined ? { start: { seed, events: stored } } : {};
  return { threadId, runId, afterSeq: stored[0]!.seq - 1, queued: false, ...start };
}

/**
 * Where the run's history leaves the current branch (protocol/branches.ts): at the run it names
 * in parentRunId when that explains the history, else where the history diverges, unless that
 * is a stale copy of the branch (refused, STALE_HISTORY, nothing written) and the client did not
 * say the fork is deliberate. A parentRunId naming the run that ended last is the branch's head:
 * the history alone decides.
 */
async function branchOf(
  core: EngineCore,
  input: RunAgentInput,
  snapshot: ThreadSnapshot,
  forking: "deliberate" | "unless-stale",
  lastSeq: number,
): Promise<ParentFork> {
  const branch = snapshot.messages;
  const parent = input.parentRunId;
  if (parent !== undefined && (snapshot.lastEndedRunId === undefined || wireRunId(snapshot.lastEndedRunId) !== parent)) {
    const atParent = await conversationAtRun(core.store, input.threadId, parent, lastSeq);
    const plan = atParent && planParentFork(branch, atParent, input.messages);
    if (plan) return plan;
  }
  const fork = planFork(branch, input.messages);
  if (fork && forking === "unless-stale" && isStaleCopy(fork, branch, input.messages)) {
    throw new StaleHistoryError(input.threadId, branch.at(-1)?.id ?? null, snapshot.branch ?? MAIN_BRANCH);
  }
  return { fork, restore: [], base: fork ? keptBy(branch, fork.keepThrough) : branch };
}

/**
 * The events that admit a run, in log order: the thread (when new), the run's input, the fork and
 * what it restores, the answered interrupts, the new messages, the state the client changed,
 * workflow.started.
 * Pure: begin() appends them in the one commit that admits the run, or nothing is written.
 */
function firstEvents(
  agent: AgentDefinition,
  input: RunAgentInput,
  plan: {
    isNew: boolean;
    snapshot: ThreadSnapshot;
    fork: ForkPlan | null;
    restore: readonly Message[];
    resumedEvents: readonly WorkflowEvent[];
    newMessages: readonly Message[];
    state: unknown;
    origin: RunOrigin;
  },
): WorkflowEvent[] {
  const { runId } = input;
  const { snapshot, fork, restore, newMessages, state } = plan;
  const batch: WorkflowEvent[] = [];
  if (plan.isNew) batch.push({ type: "thread.created", data: { agentId: agent.id } });
  batch.push({
    type: "run.accepted",
    data: {
      runId,
      ...(input.parentRunId ? { parentRunId: input.parentRunId } : {}),
      ...(input.protocolVersion !== undefined && { protocolVersion: input.protocolVersion }),
      tools: input.tools ?? [],
      context: input.context ?? [],
      ...(input.forwardedProps !== undefined ? { forwardedProps: input.forwardedProps } : {}),
      ...(plan.origin.requestId !== undefined && { requestId: plan.origin.requestId }),
      ...(plan.origin.traceContext && { traceContext: plan.origin.traceContext }),
      ...(agent.foreign && { onLost: agent.foreign.lost }),
      ...(plan.origin.webhook && { webhook: { url: plan.origin.webhook.url } }),
    },
  });
  if (fork) {
    const parentRunId = input.parentRunId ?? snapshot.lastEndedRunId;
    batch.push({
      type: "branch.forked",
      data: { runId, branchId: runId, fromBranchId: snapshot.branch ?? MAIN_BRANCH, keepThrough: fork.keepThrough, ...(parentRunId && { parentRunId }) },
    });
  }
  // The parent run's messages the current branch lacks, as the log recorded them: the run's input too.
  for (const message of restore) {
    batch.push({ type: "message.appended", data: { runId, source: "input", message } });
  }
  batch.push(...plan.resumedEvents);
  for (const message of newMessages) {
    batch.push({ type: "message.appended", data: { runId, source: "input", message } });
  }
  if (input.state !== undefined && JSON.stringify(state) !== JSON.stringify(snapshot.state)) {
    batch.push({ type: "state.set", data: { runId, state } });
  }
  batch.push({ type: "workflow.started", data: { runId } });
  return batch;
}

/** What the run's run.accepted keeps of the request that posted it. */
type RunOrigin = Pick<StartRunOptions, "requestId" | "traceContext" | "webhook">;

/**
 * A queued run's row keeps the RunAgentInput as it was posted, and the request that posted it
 * under `threadlineRequestId`, a key no RunAgentInput has: the run's first events are written
 * when it leaves the queue, and its run.accepted should name that request, not the one that
 * happened to end the run ahead of it. Rejected: a column of its own, a migration for a value
 * only this path reads; an instance that predates the key ignores it. Its trace context likewise.
 */
const QUEUED_REQUEST_ID = "threadlineRequestId";
const QUEUED_TRACE_CONTEXT = "threadlineTraceContext";
/**
 * The run's webhook, under a key of its own for the same reason. The outbox statement of a run's
 * end reads it from the row (sql/webhook-outbox.ts): a queued run's row keeps this input, not
 * its run.accepted.
 */
export const QUEUED_WEBHOOK = "threadlineWebhook";

function queuedInput(input: RunAgentInput, { requestId, traceContext, webhook }: RunOrigin): unknown {
  return {
    ...input,
    ...(requestId !== undefined && { [QUEUED_REQUEST_ID]: requestId }),
    ...(traceContext && { [QUEUED_TRACE_CONTEXT]: traceContext }),
    ...(webhook && { [QUEUED_WEBHOOK]: { url: webhook.url } }),
  };
}

function queuedInputOf(stored: unknown): { input: RunAgentInput; origin: RunOrigin } {
  const { [QUEUED_REQUEST_ID]: requestId, [QUEUED_TRACE_CONTEXT]: trace, [QUEUED_WEBHOOK]: webhook, ...input } = stored as RunAgentInput & {
    [QUEUED_REQUEST_ID]?: unknown;
    [QUEUED_TRACE_CONTEXT]?: unknown;
    [QUEUED_WEBHOOK]?: { url?: unknown };
  };
  const url = webhook?.url;
  const traceContext = TraceContextSchema.safeParse(trace);
  return {
    input,
    origin: {
      ...(isRequestId(requestId) && { requestId }),
      ...(traceContext.success && { traceContext: traceContext.data }),
      ...(typeof url === "string" && { webhook: { url } }),
    },
  };
}
