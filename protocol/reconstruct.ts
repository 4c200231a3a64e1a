/**
 * Snapshot reconstruction: a thread's conversation, state, usage and tool-call status, from its
 * durable events only. Stream events are ignored: they are compacted away after a run, and what
 * they carried is in the durable message.appended that follows them. This is what a page reload,
 * the REST thread view and the engine (to rebuild the LLM's history) read.
 *
 * Each tool call's status is what the log says became of it (protocol/tool-status.ts): awaiting an
 * approval or an answer, running (only while the thread is active: the lifecycle's key rule),
 * complete, failed, cancelled or never run. Rejected: deriving a call's status from the stream
 * (toolcall.started without a result), which shows a call interrupted by a crash or a cancel as
 * "Running" forever after a reload.
 */
import { EventType, type Message, type TokenUsage } from "@ag-ui/core";
import type { BranchInfo, Checkpoint, FoldState } from "./checkpoint.ts";
import { isStreamEvent, type StoredEvent } from "./events.ts";
import { wantsInterruptTool, withInterrupts, type InterruptRecord, type InterruptRequest } from "./interrupts.ts";
import { sumUsage, wireMessage, type Frame } from "./frames.ts";
import { SPOKEN_PROTOCOL_VERSION, type ProtocolLevel } from "./versions.ts";
import { MessageList } from "./message-list.ts";
import { applyStatePatch } from "./state.ts";
import { wireRunId } from "./run-ids.ts";
import { endsRun, statusAfter, type ThreadStatus } from "./lifecycle.ts";
import { ToolLedger, type ToolCallStatus } from "./tool-status.ts";

export type { ToolCallState, ToolCallStatus } from "./tool-status.ts";

export interface ThreadSnapshot {
  threadId?: string;
  /** null for a thread with no events (as of uptoSeq). */
  status: ThreadStatus | null;
  /** The whole conversation in log order; a message appended again under its id replaces itself. */
  messages: Message[];
  state: unknown;
  usage: { total: TokenUsage; byModel: TokenUsage[] };
  toolCalls: Record<string, ToolCallStatus>;
  /** Interrupts asked and not answered yet while the thread is WAITING for them (protocol/interrupts.ts); none otherwise. */
  pendingInterrupts: InterruptRequest[];
  /** The current branch and the forks so far, once the thread has forked (protocol/branches.ts). */
  branch?: string;
  branches?: BranchInfo[];
  /** The last run that ended, and the run accepted but not ended (queued or running), if any. */
  lastEndedRunId?: string;
  activeRunId?: string;
  /** Position and commit time of the last event read (0 when none). */
  lastSeq: number;
  lastAt: number;
}

export interface ReconstructOptions {
  /** Reconstruct as of this log position (inclusive). */
  uptoSeq?: number;
  /** The thread's status as the store knows it, when it is authoritative (e.g. the threads row). */
  status?: ThreadStatus;
}

/**
 * Reconstruction as a fold: push the log's events in order (page by page, as they are read), then
 * take the snapshot. A reload never needs the whole log in memory at once, only the conversation
 * it rebuilds, and every event costs the same whatever the thread's length: messages are upserted
 * through an id index, never found by scanning the conversation.
 */
export class Reconstructor {
  readonly #messages = new MessageList();
  readonly #usage: TokenUsage[] = [];
  readonly #taskToolCall = new Map<string, string>();
  readonly #failedCalls = new Set<string>();
  #ledger = new ToolLedger();
  readonly #interrupts = new Map<string, InterruptRecord>();
  readonly #branches: BranchInfo[] = [];
  /** The run accepted last, if its client offered the HITL tool (its interrupts go out as form 2). */
  #interruptToolRun: string | undefined;
  #branch: string | undefined;
  #threadId: string | undefined;
  #status: ThreadStatus | null = null;
  #state: unknown = undefined;
  #lastEndedRunId: string | undefined;
  #activeRunId: string | undefined;
  #lastSeq = 0;
  #lastAt = 0;

  /**
   * The checkpoint this fold was resumed from (Reconstructor.from), if any: the base the run's
   * end writes its checkpoint as a patch on. Its messages are shared, not copied: a message is
   * replaced, never changed in place, so an untouched one is the same object at the end.
   */
  #origin: Checkpoint | undefined;

  get origin(): Checkpoint | undefined {
    return this.#origin;
  }

  /** Position of the last event pushed (0 when none). */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** The fold resumed from a checkpoint: pushing the events after it gives the fold of the whole log. */
  static from(checkpoint: Checkpoint): Reconstructor {
    const r = new Reconstructor();
    r.#origin = checkpoint;
    const f = checkpoint.fold;
    for (const m of f.messages) r.#messages.upsert(m as Message);
    r.#usage.push(...f.usage);
    for (const [task, call] of f.taskToolCalls) r.#taskToolCall.set(task, call);
    for (const call of f.failedCalls) r.#failedCalls.add(call);
    r.#ledger = ToolLedger.from(f.toolLedger, f.failedCalls);
    for (const rec of f.interrupts ?? []) r.#interrupts.set(rec.request.interruptId, rec);
    r.#branches.push(...(f.branches ?? []));
    r.#branch = f.branch;
    r.#threadId = f.threadId;
    r.#status = f.status;
    r.#state = f.state;
    r.#lastEndedRunId = f.lastEndedRunId;
    r.#activeRunId = f.activeRunId;
    r.#lastSeq = checkpoint.seq;
    r.#lastAt = f.lastAt;
    return r;
  }

  /** What the fold holds, as JSON, for a checkpoint. */
  toState(): FoldState {
    return {
      ...(this.#threadId !== undefined && { threadId: this.#threadId }),
      status: this.#status,
      messages: [...this.#messages.items],
      state: this.#state,
      usage: [...this.#usage],
      taskToolCalls: [...this.#taskToolCall],
      failedCalls: [...this.#failedCalls],
      toolLedger: this.#ledger.toState(),
      ...(this.#interrupts.size > 0 && { interrupts: [...this.#interrupts.values()] }),
      ...(this.#branch !== undefined && { branch: this.#branch, branches: [...this.#branches] }),
      ...(this.#lastEndedRunId !== undefined && { lastEndedRunId: this.#lastEndedRunId }),
      ...(this.#activeRunId !== undefined && { activeRunId: this.#activeRunId }),
      lastSeq: this.#lastSeq,
      lastAt: this.#lastAt,
    };
  }

  push(e: StoredEvent): void {
    this.#threadId ??= e.threadId;
    this.#lastSeq = e.seq;
    this.#lastAt = e.at;
    if (isStreamEvent(e)) return;
    this.#status = statusAfter(e) ?? this.#status;
    this.#ledger.push(e);
    switch (e.type) {
      case "run.accepted":
        this.#activeRunId = e.data.runId;
        this.#interruptToolRun = wantsInterruptTool(e.data.tools) ? e.data.runId : undefined;
        break;
      case "message.appended":
        // A message appended again under its id replaces itself, where it stood.
        this.#messages.upsert(e.data.message as Message);
        break;
      case "state.set":
        this.#state = e.data.state;
        break;
      case "state.patched": {
        // As in the projection and on the client: a patch that does not apply changes nothing.
        const next = applyStatePatch(this.#state, e.data.patch);
        if (next) this.#state = next.value;
        break;
      }
      case "usage.recorded":
        this.#usage.push(e.data.usage);
        break;
      case "interrupt.requested":
      case "interrupt.resolved":
        this.#interrupt(e);
        break;
      case "branch.forked":
        this.#fork(e);
        break;
      case "task.created":
        if (e.data.toolCallId) {
          this.#taskToolCall.set(e.data.taskId, e.data.toolCallId);
          this.#ledger.touch(e.data.toolCallId, e.data.runId, true);
        }
        break;
      case "task.completed": {
        const call = this.#taskToolCall.get(e.data.taskId);
        if (call) {
          this.#failedCalls.delete(call); // a retry that succeeded
          this.#ledger.taskCompleted(call);
        }
        break;
      }
      case "task.failed": {
        const call = this.#taskToolCall.get(e.data.taskId);
        if (call) {
          this.#failedCalls.add(call);
          this.#ledger.taskFailed(call, e.data.error.code);
        }
        break;
      }
      default:
        if (endsRun(e)) {
          this.#lastEndedRunId = (e.data as { runId: string }).runId;
          if (this.#activeRunId === this.#lastEndedRunId) this.#activeRunId = undefined;
        }
    }
  }

  #interrupt(e: Extract<StoredEvent, { type: "interrupt.requested" | "interrupt.resolved" }>): void {
    if (e.type === "interrupt.requested") {
      // Asked again (a recovered run re-executing its tool) keeps the first request and any answer.
      if (!this.#interrupts.has(e.data.interruptId)) {
        this.#interrupts.set(e.data.interruptId, { request: e.data, form: this.#interruptToolRun === e.data.runId ? "tool" : "outcome" });
      }
      return;
    }
    const rec = this.#interrupts.get(e.data.interruptId);
    // The run that carries the answer takes the call up (it runs it, or records the denial).
    if (rec && !rec.resolution) this.#ledger.touch(rec.request.toolCallId, e.data.runId);
    // A new record, not a mutation: the old one may be shared with a checkpoint already taken.
    if (rec && !rec.resolution) this.#interrupts.set(e.data.interruptId, { ...rec, resolution: e.data });
  }

  /** The branch left behind is the log up to here; the conversation goes on from what it keeps. */
  #fork(e: Extract<StoredEvent, { type: "branch.forked" }>): void {
    this.#messages.keep(e.data.keepThrough);
    this.#branches.push({ ...e.data, seq: e.seq, at: e.at });
    this.#branch = e.data.branchId;
  }

  /** Every interrupt of the thread, by id, with its answer once there is one. */
  interrupts(): ReadonlyMap<string, InterruptRecord> {
    return this.#interrupts;
  }

  /** The snapshot of what was pushed so far; the fold may go on afterwards. */
  snapshot(opts: { status?: ThreadStatus } = {}): ThreadSnapshot {
    const status = opts.status !== undefined ? opts.status : this.#status;
    const messages = [...this.#messages.items];
    return {
      ...(this.#threadId !== undefined && { threadId: this.#threadId }),
      status,
      messages,
      state: this.#state,
      usage: { total: totalOf(this.#usage), byModel: sumUsage(this.#usage) },
      toolCalls: this.#ledger.statuses({
        messages,
        interrupts: this.#interrupts,
        status,
        activeRunId: this.#activeRunId,
        lastEndedRunId: this.#lastEndedRunId,
      }),
      // Asked and unanswered is pending only while the thread waits: a run that failed or was
      // cancelled after asking (a remote that re-asked an id, say) leaves nothing to answer.
      pendingInterrupts: status === null || status === "WAITING" ? [...this.#interrupts.values()].filter((r) => !r.resolution).map((r) => r.request) : [],
      ...(this.#branch !== undefined && { branch: this.#branch, branches: [...this.#branches] }),
      ...(this.#lastEndedRunId !== undefined && { lastEndedRunId: this.#lastEndedRunId }),
      ...(this.#activeRunId !== undefined && { activeRunId: this.#activeRunId }),
      lastSeq: this.#lastSeq,
      lastAt: this.#lastAt,
    };
  }
}

/** One-shot reconstruction of a log held in memory (see Reconstructor for the paged fold). */
export function reconstruct(events: Iterable<StoredEvent>, opts: ReconstructOptions = {}): ThreadSnapshot {
  const fold = new Reconstructor();
  for (const e of events) {
    if (opts.uptoSeq !== undefined && e.seq > opts.uptoSeq) break;
    fold.push(e);
  }
  return fold.snapshot({ status: opts.status });
}

const COUNTS = [
  "inputTokens",
  "outputTokens",
  "totalTokens",
  "reasoningTokens",
  "cachedInputTokens",
  "cacheWriteInputTokens",
] as const;

/** Every count summed across providers and models; a count nobody reported stays absent. */
function totalOf(entries: readonly TokenUsage[]): TokenUsage {
  const total: TokenUsage = {};
  for (const u of entries) {
    for (const k of COUNTS) {
      const v = u[k];
      if (v !== undefined) total[k] = (total[k] ?? 0) + v;
    }
  }
  return total;
}

/**
 * Where a reload splits the log: the conversation as of `snapshotUpto` goes out as a snapshot, and
 * the run still open (if any) follows from its start, i.e. `framesAfter(events, String(snapshotUpto))`.
 * With no open run the snapshot covers the whole log and only the live tail follows.
 */
export function reloadCut(events: Iterable<StoredEvent>): { snapshotUpto: number; openRunId?: string } {
  let lastSeq = 0;
  let open: { runId: string; startedAt: number } | undefined;
  const ended = new Set<string>();
  for (const e of events) {
    lastSeq = e.seq;
    if (e.type === "workflow.started" && !ended.has(e.data.runId) && open?.runId !== e.data.runId) {
      open = { runId: e.data.runId, startedAt: e.seq };
    } else if (endsRun(e)) {
      const runId = (e.data as { runId: string }).runId;
      ended.add(runId);
      if (open?.runId === runId) open = undefined;
    }
  }
  return open ? { snapshotUpto: open.startedAt - 1, openRunId: open.runId } : { snapshotUpto: lastSeq };
}

/**
 * A reload as frames: one synthetic run, RUN_STARTED -> MESSAGES_SNAPSHOT (the whole conversation:
 * the client deletes what a snapshot leaves out) -> STATE_SNAPSHOT -> RUN_FINISHED. Wrapped in a
 * run because both clients' verifiers reject anything before RUN_STARTED. Every frame's id is
 * `${lastSeq}`, the position the snapshot stands for: a client resuming from it gets what follows
 * that position. The run id is that of the last run that ended (or `snapshot-<seq>` if none has),
 * so the synthetic run names a real run where there is one. A thread with no events: no frames.
 * `opts.seq` overrides the position (a cut whose last events were compacted away).
 */
export function messagesSnapshotFrames(
  snap: ThreadSnapshot,
  opts: { runId?: string; seq?: number; interrupts?: readonly InterruptRecord[]; reader?: ProtocolLevel } = {},
): Frame[] {
  if (snap.lastSeq === 0 || snap.threadId === undefined) return [];
  const id = `${opts.seq ?? snap.lastSeq}`;
  const timestamp = snap.lastAt;
  const threadId = snap.threadId;
  const runId = opts.runId ?? (snap.lastEndedRunId === undefined ? `snapshot-${snap.lastSeq}` : wireRunId(snap.lastEndedRunId));
  // A synthetic run nobody posted: it speaks what its reader declared (protocol/versions.ts).
  const level = opts.reader ?? "legacy";
  const { messages, outcome } = withInterrupts(snap.messages.map((m) => wireMessage(m, level)), opts.interrupts ?? []);
  return [
    { id, event: { type: EventType.RUN_STARTED, threadId, runId, ...(level === "1.0" && { protocolVersion: SPOKEN_PROTOCOL_VERSION }), timestamp } },
    { id, event: { type: EventType.MESSAGES_SNAPSHOT, messages, timestamp } },
    { id, event: { type: EventType.STATE_SNAPSHOT, snapshot: snap.state === undefined ? {} : snap.state, timestamp } },
    {
      id,
      event: {
        type: EventType.RUN_FINISHED,
        threadId,
        runId,
        ...(outcome.length > 0 && { outcome: { type: "interrupt" as const, interrupts: outcome } }),
        timestamp,
      },
    },
  ];
}

/** The reload snapshot of the log as of `uptoSeq` (inclusive), as frames whose id is `${uptoSeq}`. */
export function snapshotRunFrames(events: Iterable<StoredEvent>, uptoSeq: number): Frame[] {
  return messagesSnapshotFrames(reconstruct(events, { uptoSeq }), { seq: uptoSeq });
}
