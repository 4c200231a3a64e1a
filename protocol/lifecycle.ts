/**
 * The lifecycle rules, in one place: the thread statuses and their transitions, which statuses
 * are active and which settled, what each workflow event does to its thread (status, active run)
 * and to its run row, which events end a run, and when a cancel still applies. The writer's
 * batch planning, the SQL guards (rendered from these constants, server/store/sql/lifecycle.ts),
 * reconstruction, the routes, the CopilotKit runner and the browser client all import it.
 * Rejected: each layer keeping its own list, which is how a status added in one place once left
 * another showing "Cancelling..." forever.
 *
 * No runtime import: the browser bundle takes this file as it is.
 *
 * A thread is a conversation, and a conversation outlives any one run. The terminal statuses
 * (COMPLETED, FAILED, CANCELLED) say how the *last run* ended; a new run on such a thread reopens
 * it (-> PENDING). The alternative, refusing every run on a FAILED thread, would force a client
 * to start a new thread after a single upstream 500, which no chat user expects.
 *
 *   (new) -> PENDING -> RUNNING -> WAITING -> PENDING -> RUNNING -> ...
 *                         |  \-> COMPLETED | FAILED
 *                         \-> CANCELLING -> CANCELLED
 */

export const THREAD_STATUSES = ["PENDING", "RUNNING", "WAITING", "CANCELLING", "COMPLETED", "FAILED", "CANCELLED"] as const;
export type ThreadStatus = (typeof THREAD_STATUSES)[number];

/** Statuses in which a run lives (queued to start, executing, or asked to stop). */
export const ACTIVE_STATUSES = ["PENDING", "RUNNING", "CANCELLING"] as const satisfies readonly ThreadStatus[];
/** Statuses in which nothing runs: no tool call may be shown running (the key rule of the UI). */
export const SETTLED_STATUSES = ["WAITING", "COMPLETED", "FAILED", "CANCELLED"] as const satisfies readonly ThreadStatus[];

const active: ReadonlySet<string> = new Set(ACTIVE_STATUSES);
/** Takes any string so that callers holding a status off the wire need no cast: unknown is not active. */
export function isActive(s: string): boolean {
  return active.has(s);
}
export function isSettled(s: ThreadStatus): boolean {
  return !active.has(s);
}

/**
 * Every move a thread's status may make. The less obvious ones, each taken by a real flow:
 * - PENDING -> PENDING: a new thread's first batch (thread.created, then run.accepted);
 * - RUNNING -> RUNNING: recovery by another instance (workflow.resumed);
 * - RUNNING -> PENDING: a run accepted again after its lease expired;
 * - RUNNING -> CANCELLED: a cancel that settles the run at once, with no CANCELLING in between;
 * - CANCELLING -> WAITING | COMPLETED | FAILED: the run's own end crossed the cancel in flight;
 *   the run did end, so its end wins (the cancel guard, sql/lifecycle.ts, covers the converse);
 * - settled -> PENDING: a new or queued run reopens the thread.
 * A cancel never moves a settled thread (cancelApplies): WAITING -> CANCELLED is not here.
 */
const TRANSITIONS: Record<ThreadStatus, readonly ThreadStatus[]> = {
  PENDING: ["PENDING", "RUNNING", "CANCELLING", "CANCELLED", "FAILED"],
  RUNNING: ["RUNNING", "WAITING", "CANCELLING", "CANCELLED", "COMPLETED", "FAILED", "PENDING"],
  WAITING: ["PENDING"],
  CANCELLING: ["CANCELLED", "FAILED", "WAITING", "COMPLETED"],
  COMPLETED: ["PENDING"],
  FAILED: ["PENDING"],
  CANCELLED: ["PENDING"],
};

export class IllegalTransitionError extends Error {
  override readonly name = "IllegalTransitionError";
  readonly code = "ILLEGAL_TRANSITION";
  constructor(
    readonly from: ThreadStatus | null,
    readonly to: ThreadStatus,
    readonly threadId?: string,
  ) {
    super(
      `Thread${threadId ? ` ${threadId}` : ""} cannot go from ${from ?? "(new)"} to ${to}` +
        (from ? `; from ${from} it may go to ${TRANSITIONS[from].join(", ")}` : "; a new thread starts as PENDING"),
    );
  }
}

export function canTransition(from: ThreadStatus | null, to: ThreadStatus): boolean {
  if (from === null) return to === "PENDING";
  return TRANSITIONS[from].includes(to);
}

export function assertTransition(from: ThreadStatus | null, to: ThreadStatus, threadId?: string): void {
  if (!canTransition(from, to)) throw new IllegalTransitionError(from, to, threadId);
}

// ---- runs ---------------------------------------------------------------------------------

export const RUN_STATUSES = ["queued", "running", "waiting", "completed", "failed", "cancelled"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** Run statuses after which the run streams nothing more (retention may compact its stream). */
export const SETTLED_RUN_STATUSES = ["waiting", "completed", "failed", "cancelled"] as const satisfies readonly RunStatus[];

// ---- what events do -----------------------------------------------------------------------

interface Effect {
  /** the status the event moves its thread to */
  thread: ThreadStatus;
  /** the status it leaves its run row in */
  run?: RunStatus;
  /** what it does to the thread's active run: set it to the event's run, or clear it */
  activeRun?: "set" | "clear";
  /** whether the run is over after it (its AG-UI run ends) */
  endsRun?: true;
}

const EFFECTS: Record<string, Effect> = {
  "thread.created": { thread: "PENDING" },
  "run.accepted": { thread: "PENDING", run: "running", activeRun: "set" },
  "workflow.started": { thread: "RUNNING", run: "running", activeRun: "set" },
  "workflow.resumed": { thread: "RUNNING", run: "running", activeRun: "set" },
  "workflow.suspended": { thread: "WAITING", run: "waiting", activeRun: "clear", endsRun: true },
  "workflow.completed": { thread: "COMPLETED", run: "completed", activeRun: "clear", endsRun: true },
  "workflow.failed": { thread: "FAILED", run: "failed", activeRun: "clear", endsRun: true },
  // A request, not an end: the run stays active until it answers with workflow.cancelled.
  "workflow.cancelling": { thread: "CANCELLING" },
  "workflow.cancelled": { thread: "CANCELLED", run: "cancelled", activeRun: "clear", endsRun: true },
};

const effectOf = (e: { type: string }): Effect | undefined => (Object.hasOwn(EFFECTS, e.type) ? EFFECTS[e.type] : undefined);

/** The status an event moves its thread to, if it moves it at all. */
export function statusAfter(e: { type: string }): ThreadStatus | undefined {
  return effectOf(e)?.thread;
}

/** What a lifecycle event does to its run row; undefined for the other events. */
export function runStatusAfter(e: { type: string }): RunStatus | undefined {
  return effectOf(e)?.run;
}

/** What an event does to the thread's active run: set it to its run, clear it, or nothing. */
export function activeRunAfter(e: { type: string }): "set" | "clear" | undefined {
  return effectOf(e)?.activeRun;
}

/** The event types after which a run is over: whoever waits for a run's end waits for these. */
export const RUN_ENDING_EVENT_TYPES = Object.keys(EFFECTS).filter((t) => EFFECTS[t]!.endsRun);
export function endsRun(e: { type: string }): boolean {
  return effectOf(e)?.endsRun === true;
}

// ---- cancel -------------------------------------------------------------------------------

export const CANCEL_EVENT_TYPES = ["workflow.cancelling", "workflow.cancelled"] as const;
export const CANCEL_STATUSES = ["CANCELLING", "CANCELLED"] as const satisfies readonly ThreadStatus[];
export type CancelStatus = (typeof CANCEL_STATUSES)[number];
export function isCancelEvent(e: { type: string }): boolean {
  return (CANCEL_EVENT_TYPES as readonly string[]).includes(e.type);
}

/**
 * A cancel moves a thread only while a run is live there and the move is a legal one; after the
 * run's end it is a no-op. Cancel comes from any instance and may cross the run's own end in
 * flight; letting it win would leave a thread CANCELLING with no run to finish it.
 */
export function cancelApplies(cancelStatus: ThreadStatus, current: ThreadStatus): boolean {
  if (cancelStatus !== "CANCELLING" && cancelStatus !== "CANCELLED") return true;
  return isActive(current) && canTransition(current, cancelStatus);
}

/** The statuses from which a cancel event still applies (what the SQL guard checks the row for). */
export function cancelAppliesFrom(cancelStatus: CancelStatus): ThreadStatus[] {
  return THREAD_STATUSES.filter((s) => cancelApplies(cancelStatus, s));
}

/** Whether a cancel request has anything to do: a run is live and not already being cancelled. */
export function canCancel(current: ThreadStatus): boolean {
  return cancelApplies("CANCELLING", current);
}

// ---- a sequence of events -----------------------------------------------------------------

export interface Walk {
  /** the status after the events; null while nothing known moved it */
  status: ThreadStatus | null;
  /**
   * True while the status is that of a cancel whose starting status was unknown: the store must
   * check it against the row (the cancel guard), since only the row knows whether a run lives.
   */
  cancelGuard: boolean;
}

/**
 * Applies one event to a walk over a thread's events and says whether its status change was
 * ignored (a cancel after the run's end). Throws IllegalTransitionError when the event would move
 * a known status somewhere the table forbids; the first move of a walk that started from an
 * unknown status (null: the row's, as only the database knows it) is not checked here.
 */
export function step(walk: Walk, e: { type: string }, threadId?: string): { ignored: boolean } {
  const next = statusAfter(e);
  if (!next) return { ignored: false };
  if (isCancelEvent(e)) {
    if (walk.status === null) {
      walk.status = next;
      walk.cancelGuard = true;
      return { ignored: false };
    }
    if (!cancelApplies(next, walk.status)) return { ignored: true };
  } else if (walk.status !== null) {
    assertTransition(walk.status, next, threadId);
    walk.cancelGuard = false;
  } else {
    walk.cancelGuard = false;
  }
  walk.status = next;
  return { ignored: false };
}

/** Checks that a sequence of events (one append) implies only legal moves; see step(). */
export function assertLegalSequence(events: readonly { type: string }[], threadId?: string): void {
  const walk: Walk = { status: null, cancelGuard: false };
  for (const e of events) step(walk, e, threadId);
}

// ---- interrupts ---------------------------------------------------------------------------

/**
 * Interrupts (protocol/interrupts.ts) move no status by themselves: the run that asks ends with
 * workflow.suspended (-> WAITING, like a frontend tool), and the run that answers is admitted like
 * any run (WAITING -> PENDING). What this section owns is their order:
 * - an interrupt is pending only while its thread is WAITING: that is the only status in which an
 *   answer (`resume`) is taken; in any other there is nothing to answer and the run is refused;
 * - interrupt.requested belongs to a live run and comes before the run's end, which names it;
 * - interrupt.resolved is written in the admission batch of the run that answers it: after that
 *   run's run.accepted, before its workflow.started, so the run starts from the answer and a
 *   recovery of it reads the answer from the log. Rejected: resolving in a commit of its own
 *   before the run is admitted, which could record an answer for a run that was then refused.
 */
export function mayAnswerInterrupts(status: string | null | undefined): boolean {
  return status === "WAITING";
}

export class IllegalInterruptOrderError extends Error {
  override readonly name = "IllegalInterruptOrderError";
  readonly code = "ILLEGAL_INTERRUPT_ORDER";
}

/**
 * Checks one append against the interrupt order above, and branch.forked against the same rule
 * as interrupt.resolved (protocol/branches.ts); throws IllegalInterruptOrderError.
 */
export function assertInterruptOrder(events: readonly { type: string; data?: unknown }[]): void {
  const ended = new Set<string>();
  let accepted: string | undefined;
  let started = false;
  for (const e of events) {
    const data = (e.data ?? {}) as { runId?: string; interruptId?: string; reason?: string; interruptIds?: string[] };
    if (e.type === "run.accepted") {
      accepted = data.runId;
      started = false;
    } else if (e.type === "workflow.started" && data.runId === accepted) {
      started = true;
    } else if (e.type === "interrupt.resolved" || e.type === "branch.forked") {
      // Both decide how the run starts (its answer, its history): written where it is admitted.
      if (accepted === undefined || data.runId !== accepted || started) {
        throw new IllegalInterruptOrderError(
          `${e.type}${data.interruptId ? ` (${data.interruptId})` : ""} must follow the run.accepted of its run ${data.runId} and precede its workflow.started`,
        );
      }
    } else if (e.type === "interrupt.requested") {
      if (data.runId !== undefined && ended.has(data.runId)) {
        throw new IllegalInterruptOrderError(`interrupt.requested (${data.interruptId}) after the end of its run ${data.runId}`);
      }
    } else if (e.type === "workflow.suspended" && (data.reason === "interrupt" || data.reason === "approval")) {
      if (!data.interruptIds?.length) {
        throw new IllegalInterruptOrderError(`workflow.suspended for ${data.reason} must name the interrupts it waits for`);
      }
    }
    if (endsRun(e) && data.runId !== undefined) ended.add(data.runId);
  }
}
