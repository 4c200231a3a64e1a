/**
 * Snapshot reconstruction: a thread's conversation, state, usage and tool-call status, from its
 * durable events only. Stream events are ignored: they are compacted away after a run, and what
 * they carried is in the durable message.appended that follows them. This is what a page reload,
 * the REST thread view and the engine (to rebuild the LLM's history) read.
 *
 * The seeds' key rule holds here: a tool call without a result is "running" only while the thread
 * is PENDING, RUNNING or CANCELLING. Once it is WAITING or terminal nothing runs, so every call is
 * "complete", or "failed" if its task failed. Rejected: deriving a call's status from the stream
 * (toolcall.started without a result), which is the seeds' "Running forever after reload" bug.
 */
import { EventType, type ContentPart, type Message, type TokenUsage } from "@ag-ui/core";
import { isStreamEvent, type StoredEvent } from "./events.ts";
import { sumUsage, wireMessage, type Frame } from "./frames.ts";
import { applyStatePatch } from "./state.ts";
import { endsRun, isActive, statusAfter, type ThreadStatus } from "./lifecycle.ts";

export type ToolCallState = "running" | "complete" | "failed";

export interface ToolCallStatus {
  name: string;
  status: ToolCallState;
  /** The tool message's content, when a result was appended. */
  result?: string | ContentPart[];
}

export interface ThreadSnapshot {
  threadId?: string;
  /** null for a thread with no events (as of uptoSeq). */
  status: ThreadStatus | null;
  /** The whole conversation in log order; a message appended again under its id replaces itself. */
  messages: Message[];
  state: unknown;
  usage: { total: TokenUsage; byModel: TokenUsage[] };
  toolCalls: Record<string, ToolCallStatus>;
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

export function reconstruct(events: Iterable<StoredEvent>, opts: ReconstructOptions = {}): ThreadSnapshot {
  const messages: Message[] = [];
  const index = new Map<string, number>();
  const usage: TokenUsage[] = [];
  const taskToolCall = new Map<string, string>();
  const failedCalls = new Set<string>();
  const snap: ThreadSnapshot = {
    status: null,
    messages,
    state: undefined,
    usage: { total: {}, byModel: [] },
    toolCalls: {},
    lastSeq: 0,
    lastAt: 0,
  };

  for (const e of events) {
    if (opts.uptoSeq !== undefined && e.seq > opts.uptoSeq) break;
    snap.threadId ??= e.threadId;
    snap.lastSeq = e.seq;
    snap.lastAt = e.at;
    if (isStreamEvent(e)) continue;
    snap.status = statusAfter(e) ?? snap.status;
    switch (e.type) {
      case "run.accepted":
        snap.activeRunId = e.data.runId;
        break;
      case "message.appended": {
        const m = e.data.message as Message;
        const at = index.get(m.id);
        if (at === undefined) {
          index.set(m.id, messages.length);
          messages.push(m);
        } else messages[at] = m;
        break;
      }
      case "state.set":
        snap.state = e.data.state;
        break;
      case "state.patched": {
        // As in the projection and on the client: a patch that does not apply changes nothing.
        const next = applyStatePatch(snap.state, e.data.patch);
        if (next) snap.state = next.value;
        break;
      }
      case "usage.recorded":
        usage.push(e.data.usage);
        break;
      case "task.created":
        if (e.data.toolCallId) taskToolCall.set(e.data.taskId, e.data.toolCallId);
        break;
      case "task.completed": {
        const call = taskToolCall.get(e.data.taskId);
        if (call) failedCalls.delete(call); // a retry that succeeded
        break;
      }
      case "task.failed": {
        const call = taskToolCall.get(e.data.taskId);
        if (call) failedCalls.add(call);
        break;
      }
      default:
        if (endsRun(e)) {
          snap.lastEndedRunId = (e.data as { runId: string }).runId;
          if (snap.activeRunId === snap.lastEndedRunId) delete snap.activeRunId;
        }
    }
  }

  if (opts.status !== undefined) snap.status = opts.status;
  snap.usage = { total: totalOf(usage), byModel: sumUsage(usage) };
  snap.toolCalls = toolCallsOf(messages, failedCalls, snap.status);
  return snap;
}

function toolCallsOf(
  messages: readonly Message[],
  failed: ReadonlySet<string>,
  status: ThreadStatus | null,
): Record<string, ToolCallStatus> {
  const results = new Map<string, { content: string | ContentPart[]; error: boolean }>();
  for (const m of messages) {
    if (m.role === "tool") results.set(m.toolCallId, { content: m.content, error: m.error !== undefined });
  }
  const running = status !== null && isActive(status);
  const calls: Record<string, ToolCallStatus> = {};
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    for (const call of m.toolCalls ?? []) {
      const result = results.get(call.id);
      const didFail = failed.has(call.id) || result?.error === true;
      const state: ToolCallState = didFail ? "failed" : result || !running ? "complete" : "running";
      calls[call.id] = { name: call.function.name, status: state, ...(result && { result: result.content }) };
    }
  }
  return calls;
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
export function messagesSnapshotFrames(snap: ThreadSnapshot, opts: { runId?: string; seq?: number } = {}): Frame[] {
  if (snap.lastSeq === 0 || snap.threadId === undefined) return [];
  const id = `${opts.seq ?? snap.lastSeq}`;
  const timestamp = snap.lastAt;
  const threadId = snap.threadId;
  const runId = opts.runId ?? snap.lastEndedRunId ?? `snapshot-${snap.lastSeq}`;
  return [
    { id, event: { type: EventType.RUN_STARTED, threadId, runId, timestamp } },
    { id, event: { type: EventType.MESSAGES_SNAPSHOT, messages: snap.messages.map(wireMessage), timestamp } },
    { id, event: { type: EventType.STATE_SNAPSHOT, snapshot: snap.state === undefined ? {} : snap.state, timestamp } },
    { id, event: { type: EventType.RUN_FINISHED, threadId, runId, timestamp } },
  ];
}

/** The reload snapshot of the log as of `uptoSeq` (inclusive), as frames whose id is `${uptoSeq}`. */
export function snapshotRunFrames(events: Iterable<StoredEvent>, uptoSeq: number): Frame[] {
  return messagesSnapshotFrames(reconstruct(events, { uptoSeq }), { seq: uptoSeq });
}
