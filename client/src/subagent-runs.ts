/**
 * Which subagent run each message of the chat belongs to, and what became of each run, from what
 * the app reads of the thread: its log's events (every event of a child carries
 * `data.subagentRunId`; `subagent.started` / `subagent.ended` bound each child) and its messages
 * (GET /api/threads/:id: a child's carry `subagentRunId`). The events are live (a child's text
 * message is attributed from its `text.started` on), the messages are the whole branch (the
 * events view keeps only the last MAX_EVENTS). The live CUSTOM frames (live-subagents.ts) add
 * what CopilotKit's stream showed before the log's feed caught up.
 *
 * A child's run id is `<parentToolCallId>~sub` and its task message's id `<childRunId>-task`
 * (server/engine/subagent-task.ts): the parent's call and the task are known from the ids alone.
 */

/**
 * What is read of a log event (api.ts WorkflowEvent) and of a message (api.ts ThreadMessage);
 * not imported from api.ts, whose browser globals the server's typecheck (test/client) lacks.
 */
export interface LogEvent {
  type: string;
  data: Record<string, unknown>;
}
export interface AttributedMessage {
  id: string;
  subagentRunId?: unknown;
}

export type SubagentOutcome = "success" | "suspended" | "failed" | "cancelled";

export interface SubagentRun {
  childRunId: string;
  parentToolCallId: string;
  /** The subagent's name (its tool's), when the start was seen. */
  name?: string;
  /** Set once the run ended; undefined while it works (or when its end was not seen). */
  outcome?: SubagentOutcome;
}

export interface SubagentIndex {
  /** By child run id. */
  runs: ReadonlyMap<string, SubagentRun>;
  /** Message id -> child run id, for every message known to be a child's. */
  childOf: ReadonlyMap<string, string>;
  /** The branch's messages that are the thread's own (no `subagentRunId`): a live guess never hides them. */
  own: ReadonlySet<string>;
}

export const EMPTY_INDEX: SubagentIndex = { runs: new Map(), childOf: new Map(), own: new Set() };

const SUB = "~sub";
const TASK = `${SUB}-task`;

export function childRunIdOf(parentToolCallId: string): string {
  return parentToolCallId + SUB;
}

export function parentToolCallIdOf(childRunId: string): string {
  return childRunId.endsWith(SUB) ? childRunId.slice(0, -SUB.length) : childRunId;
}

/** The child run a task message starts (its id is `<childRunId>-task`), else undefined. */
export function childRunOfTask(messageId: string): string | undefined {
  return messageId.endsWith(TASK) ? messageId.slice(0, -"-task".length) : undefined;
}

/** What an event of the log says about subagents, into the maps being built. */
function readEvent(e: LogEvent, runs: Map<string, SubagentRun>, childOf: Map<string, string>): void {
  const d = e.data;
  if (e.type === "subagent.started" && typeof d.childRunId === "string") {
    // A start again (a child that asked for an approval goes on after it) is working again.
    const name = typeof d.name === "string" ? d.name : runs.get(d.childRunId)?.name;
    runs.set(d.childRunId, {
      childRunId: d.childRunId,
      parentToolCallId: typeof d.parentToolCallId === "string" ? d.parentToolCallId : parentToolCallIdOf(d.childRunId),
      ...(name !== undefined && { name }),
    });
    return;
  }
  if (e.type === "subagent.ended" && typeof d.childRunId === "string") {
    const was = runs.get(d.childRunId) ?? { childRunId: d.childRunId, parentToolCallId: parentToolCallIdOf(d.childRunId) };
    runs.set(d.childRunId, { ...was, outcome: d.outcome as SubagentOutcome });
    return;
  }
  const child = d.subagentRunId;
  if (typeof child !== "string") return;
  // text.started / text.delta carry messageId; a child's tool call its parentMessageId; an
  // appended message (the child's task, a tool call's message) its own id.
  const message = d.message as { id?: unknown } | undefined;
  for (const id of [d.messageId, d.parentMessageId, message?.id]) if (typeof id === "string") childOf.set(id, child);
}

/** What the app calls a child's state (the card's chip). */
export type SubagentStatus = "working" | "waiting" | "done" | "failed" | "cancelled";

/**
 * The child's end, when its frames or the log said; else what became of its parent's call (its
 * card's status, status.ts CardStatus), the same live and after a reload.
 */
export function subagentStatus(run: SubagentRun | undefined, call: string): SubagentStatus {
  if (run?.outcome === "success") return "done";
  if (run?.outcome === "suspended") return "waiting";
  if (run?.outcome) return run.outcome;
  if (call === "Complete") return "done";
  if (call === "Failed") return "failed";
  if (call === "Cancelled" || call === "Not run") return "cancelled";
  if (call.startsWith("Awaiting")) return "waiting";
  return "working";
}

/** The index from the log's events and the branch's messages (either may be empty). */
export function indexSubagents(events: readonly LogEvent[], messages: readonly AttributedMessage[]): SubagentIndex {
  const runs = new Map<string, SubagentRun>();
  const childOf = new Map<string, string>();
  const own = new Set<string>();
  for (const m of messages) {
    if (typeof m.subagentRunId !== "string") {
      own.add(m.id);
      continue;
    }
    childOf.set(m.id, m.subagentRunId);
    if (!runs.has(m.subagentRunId)) runs.set(m.subagentRunId, { childRunId: m.subagentRunId, parentToolCallId: parentToolCallIdOf(m.subagentRunId) });
  }
  for (const e of events) readEvent(e, runs, childOf);
  for (const id of childOf.keys()) own.delete(id);
  return { runs, childOf, own };
}

/** The same index or a new one: a new object only when something in it changed (re-renders). */
export function sameIndex(a: SubagentIndex, b: SubagentIndex): boolean {
  if (a.runs.size !== b.runs.size || a.childOf.size !== b.childOf.size || a.own.size !== b.own.size) return false;
  for (const id of b.own) if (!a.own.has(id)) return false;
  for (const [id, run] of b.runs) {
    const was = a.runs.get(id);
    if (!was || was.outcome !== run.outcome || was.name !== run.name || was.parentToolCallId !== run.parentToolCallId) return false;
  }
  for (const [id, child] of b.childOf) if (a.childOf.get(id) !== child) return false;
  return true;
}
