/**
 * The workflow event vocabulary: what the engine appends to the log, one row per event.
 *
 * Two kinds:
 * - durable events (lifecycle, tasks, messages, state, usage, signals) are the conversation;
 *   snapshot reconstruction reads only these.
 * - stream events (`text.*`, `reasoning.*`, `toolcall.*`, `stream.withdrawn`, `terminal.output`,
 *   `activity.delta`, a foreign agent's `custom.emitted` and `raw.emitted`) are the progress of a running task. Dropping them at once would lose a client's place in a
 *   half-streamed message; they are kept for the life of a run so a client can resume
 *   mid-message, and compacted away after the run (retention), when the durable message says it all.
 *
 * Every AG-UI frame a client sees is projected from these (protocol/project.ts). The payloads
 * reuse AG-UI's own message, tool and usage schemas so that nothing is translated twice.
 */
import {
  ContextSchema,
  JsonPatchSchema,
  MessageSchema,
  TokenUsageSchema,
  ToolSchema,
} from "@ag-ui/core/schemas";
import { z } from "zod";
import { event } from "./event-shape.ts";
import { RequestIdSchema } from "./request-id.ts";
import { SubagentEndedSchema, SubagentStartedSchema } from "./subagent-events.ts";
import { TraceContextSchema } from "./trace-context.ts";
import { PROTOCOL_VERSION_MAX_CHARS } from "./versions.ts";

const runId = z.string().min(1);
const messageId = z.string().min(1);
const toolCallId = z.string().min(1);

/** Why a workflow stopped and waits: the AG-UI run ends, the thread stays open. */
export const SuspendReasonSchema = z.enum(["input", "frontend_tool", "approval", "interrupt"]);

/** Who put a message in the log: the client's run input, or the agent itself. */
export const MessageSourceSchema = z.enum(["input", "agent"]);

export const ErrorInfoSchema = z.object({
  code: z.string().min(1),
  message: z.string(),
});


// ---- durable: lifecycle -------------------------------------------------------------------

export const ThreadCreatedSchema = event("thread.created", z.object({ agentId: z.string().min(1) }));

/** A run was accepted: its new input follows as message.appended / state.set events. */
export const RunAcceptedSchema = event(
  "run.accepted",
  z.object({
    runId,
    parentRunId: z.string().optional(),
    /** RunAgentInput.protocolVersion as the posting client declared it (protocol/versions.ts). */
    protocolVersion: z.string().max(PROTOCOL_VERSION_MAX_CHARS).optional(),
    tools: z.array(ToolSchema).default([]),
    context: z.array(ContextSchema).default([]),
    forwardedProps: z.unknown().optional(),
    /**
     * The HTTP request that posted the run (protocol/request-id.ts): its RUN_ERROR and the log
     * lines of its execution name it, on whichever instance it ends. Absent in logs written
     * before it was kept, and for runs appended without a request.
     */
    requestId: RequestIdSchema.optional(),
    /**
     * The W3C trace context the run was posted with (protocol/trace-context.ts): the run's span
     * is its child on whichever instance executes the run, a recovered run's too, and the run's
     * log lines name its trace id. Absent when the request carried none (or a malformed one).
     */
    traceContext: TraceContextSchema.optional(),
    /**
     * The RUN_ERROR recovery ends this run with if its instance stops: set when the agent lives
     * only in the process that admitted it (an application's own agent, through agentRunner()),
     * so no other instance can execute it nor find it in its registry.
     */
    onLost: z.object({ code: z.string().min(1).max(64), message: z.string().min(1).max(1000) }).optional(),
    /**
     * Where the run's end is posted (docs/webhooks.md): kept here, and so in the run's row, which
     * the commit of the run's end reads to write its delivery into the outbox in that same commit.
     */
    webhook: z.object({ url: z.string().min(1).max(2048) }).optional(),
  }),
);

export const WorkflowStartedSchema = event("workflow.started", z.object({ runId }));

/**
 * The run goes on on another instance: `recovered` after its lease expired (its instance died,
 * froze or lost the database), `handed_over` after its instance gave it up on shutdown
 * (workflow.handed_over; `from` names that instance). `owner` is the instance that goes on.
 * Clients see whatever was open closed and superseded by the durable conversation, except the
 * messages named in `continues`: the half-streamed answer of a model request cut by the
 * interruption, which the re-issued request goes on streaming where it stopped (its first words
 * are not streamed again), or withdraws (stream.withdrawn) if the model answers differently.
 */
export const WorkflowResumedSchema = event(
  "workflow.resumed",
  z.object({
    runId,
    reason: z.enum(["recovered", "handed_over"]),
    owner: z.string().optional(),
    from: z.string().optional(),
    continues: z.array(messageId).optional(),
  }),
);

/**
 * The instance executing the run stops it to shut down and gives its lease back at once, so
 * that another instance takes it over without waiting for the lease to expire and knows it is a
 * hand-off, not a crash. `step`: how many of the run's steps (model requests and tool calls)
 * are durable, which the next instance does not redo; `cut`: a step was still in flight when the
 * drain ended (DRAIN_TIMEOUT_MS), so the next instance redoes that one. No status change: the
 * run stays RUNNING until workflow.resumed.
 */
export const WorkflowHandedOverSchema = event(
  "workflow.handed_over",
  z.object({ runId, owner: z.string().min(1), step: z.number().int().nonnegative(), cut: z.boolean() }),
);

export const WorkflowSuspendedSchema = event(
  "workflow.suspended",
  z.object({
    runId,
    reason: SuspendReasonSchema,
    pendingToolCallIds: z.array(toolCallId).default([]),
    /** The interrupt.requested events of this run the thread now waits for (reason approval / interrupt). */
    interruptIds: z.array(z.string().min(1)).optional(),
  }),
);

export const WorkflowCompletedSchema = event(
  "workflow.completed",
  z.object({ runId, result: z.unknown().optional() }),
);

export const WorkflowFailedSchema = event(
  "workflow.failed",
  z.object({ runId, error: ErrorInfoSchema }),
);

export const WorkflowCancellingSchema = event(
  "workflow.cancelling",
  z.object({ runId, reason: z.string().optional() }),
);

export const WorkflowCancelledSchema = event(
  "workflow.cancelled",
  z.object({ runId, reason: z.string().optional() }),
);

// ---- durable: interrupts (protocol/interrupts.ts has the rules and the wire shapes) ---------

export const InterruptKindSchema = z.enum(["approval", "input"]);

/**
 * A backend step asks a person: a tool marked `needsApproval` (kind approval) or a tool that
 * called `ctx.interrupt()` (kind input). Written inside the run, before its workflow.suspended.
 * The id is derived from the tool call (interruptIdFor), so a tool executed again after a resume
 * or a recovery names the same interrupt and finds its answer.
 */
export const InterruptRequestedSchema = event(
  "interrupt.requested",
  z.object({
    runId,
    interruptId: z.string().min(1),
    kind: InterruptKindSchema,
    toolCallId,
    toolName: z.string().min(1),
    /** The assistant message holding the tool call: the HITL form's tool call is attached to it. */
    parentMessageId: messageId,
    reason: z.string().min(1),
    message: z.string().optional(),
    /** The tool call's parsed arguments (approval) or what the tool passed (input). */
    payload: z.unknown().optional(),
    responseSchema: z.record(z.string(), z.unknown()).optional(),
    /** ISO 8601: after it the interrupt can no longer be answered, only cancelled (protocol/interrupts.ts). */
    expiresAt: z.string().datetime({ offset: true }).optional(),
  }),
);

/**
 * The answer to an interrupt, written in the admission batch of the run that carries it (after
 * its run.accepted, before its workflow.started). `via` says where the answer came from: the
 * AG-UI `resume` entry, the tool result of the HITL tool call, or a run that carried neither
 * (the pending interrupt is cancelled with reason "superseded").
 */
export const InterruptResolvedSchema = event(
  "interrupt.resolved",
  z.object({
    runId,
    interruptId: z.string().min(1),
    status: z.enum(["resolved", "cancelled"]),
    payload: z.unknown().optional(),
    /** "expired": cancelled by the first admission after its expiresAt (resume.ts). */
    via: z.enum(["resume", "tool_result", "superseded", "expired"]),
    reason: z.string().optional(),
  }),
);

// ---- durable: branches (protocol/branches.ts has the rules) ---------------------------------

/**
 * The run's messages diverge from the thread's current branch: a new branch starts, keeping the
 * current one's messages up to `keepThrough` (null: none); the run's input messages follow. Written
 * in the run's admission batch, after its run.accepted and before its input and workflow.started.
 */
export const BranchForkedSchema = event(
  "branch.forked",
  z.object({
    runId,
    /** the new branch (named after the run that forked it) and the one it leaves */
    branchId: z.string().min(1),
    fromBranchId: z.string().min(1),
    keepThrough: messageId.nullable(),
    /** AG-UI's parentRunId when the client gave one, else the last run of the branch left */
    parentRunId: z.string().min(1).optional(),
  }),
);

// ---- durable: tasks -----------------------------------------------------------------------

export const TaskKindSchema = z.enum(["llm", "tool"]);

export const TaskCreatedSchema = event(
  "task.created",
  z.object({
    runId,
    taskId: z.string().min(1),
    kind: TaskKindSchema,
    /** Unique among the run's open tasks: it is the AG-UI step name. */
    name: z.string().min(1),
    toolCallId: toolCallId.optional(),
  }),
);

export const TaskCompletedSchema = event(
  "task.completed",
  z.object({ runId, taskId: z.string().min(1), output: z.unknown().optional() }),
);

export const TaskFailedSchema = event(
  "task.failed",
  z.object({ runId, taskId: z.string().min(1), error: ErrorInfoSchema }),
);

// ---- durable: conversation, state, usage, signals ----------------------------------------

export const MessageAppendedSchema = event(
  "message.appended",
  z.object({ runId: runId.optional(), source: MessageSourceSchema, message: MessageSchema }),
);

/** Replaces the thread's state (a run's input state is merged into it before this is written). */
export const StateSetSchema = event("state.set", z.object({ runId: runId.optional(), state: z.unknown() }));

/** RFC 6902 patch against the thread's state. */
export const StatePatchedSchema = event(
  "state.patched",
  z.object({ runId: runId.optional(), patch: JsonPatchSchema }),
);

export const UsageRecordedSchema = event(
  "usage.recorded",
  z.object({ runId, taskId: z.string().optional(), usage: TokenUsageSchema }),
);

export const SignalKindSchema = z.enum(["cancel", "steer", "follow_up"]);
export const SignalReceivedSchema = event(
  "signal.received",
  z.object({ runId: runId.optional(), signal: SignalKindSchema, payload: z.unknown().optional() }),
);

/**
 * Tool-call ids are unique per thread: they pair each call with its result, in the log, in the
 * frames and in every client. An upstream that repeats an id (one that always says "call_0", or
 * the same id twice in one answer) or gives none gets an id minted by the engine instead, and
 * the upstream's own id is kept on the recorded call, as its `metadata`, so that the conversation
 * sent back upstream carries the ids the model generated (server/models/from-agui.ts).
 * Rejected: trusting the upstream's ids, which made a repeated id look already answered, so the
 * new call was skipped and the old result reused.
 */
export const ToolCallOriginSchema = z.object({ providerToolCallId: z.string().min(1) });

/** The id the upstream gave a recorded tool call: its own unless the engine minted another. */
export function providerToolCallIdOf(call: { id: string; metadata?: unknown }): string {
  const origin = ToolCallOriginSchema.safeParse(call.metadata);
  return origin.success ? origin.data.providerToolCallId : call.id;
}

// ---- stream events of a running task -----------------------------------------------------

export const TextStartedSchema = event("text.started", z.object({ runId, messageId }));
export const TextDeltaSchema = event("text.delta", z.object({ runId, messageId, delta: z.string() }));
export const TextEndedSchema = event("text.ended", z.object({ runId, messageId }));

export const ReasoningStartedSchema = event("reasoning.started", z.object({ runId, messageId }));
export const ReasoningDeltaSchema = event(
  "reasoning.delta",
  z.object({ runId, messageId, delta: z.string() }),
);
export const ReasoningEndedSchema = event("reasoning.ended", z.object({ runId, messageId }));

export const ToolCallStartedSchema = event(
  "toolcall.started",
  z.object({
    runId,
    toolCallId,
    name: z.string().min(1),
    parentMessageId: messageId,
    /** The upstream's own id when the engine minted `toolCallId` instead (see ToolCallOriginSchema). */
    providerToolCallId: z.string().min(1).optional(),
  }),
);
export const ToolCallArgsSchema = event(
  "toolcall.args",
  z.object({ runId, toolCallId, delta: z.string() }),
);
export const ToolCallEndedSchema = event("toolcall.ended", z.object({ runId, toolCallId }));

/**
 * The streamed text or reasoning of these messages is not part of the conversation: a model
 * request re-issued after a takeover (workflow.resumed `continues`) answered differently from
 * what the cut request had streamed. Clients drop them (the projection closes them and sends
 * the durable conversation), and the new answer streams as a new message.
 */
export const StreamWithdrawnSchema = event(
  "stream.withdrawn",
  z.object({ runId, messageIds: z.array(messageId).min(1) }),
);

export const TerminalOutputSchema = event(
  "terminal.output",
  z.object({ runId, toolCallId, stream: z.enum(["stdout", "stderr"]), data: z.string() }),
);

/** Largest unified diff an artifact event carries; a longer one is cut and says so. */
export const ARTIFACT_DIFF_MAX_BYTES = 64 * 1024;

/**
 * A file a tool wrote into the thread's workspace (the coding agent's `write` and `edit`):
 * durable, so a reload lists the thread's artifacts without the stream. `diff` is the unified
 * diff of an edit (at most ARTIFACT_DIFF_MAX_BYTES, `diffTruncated` when cut).
 */
export const ArtifactWrittenSchema = event(
  "artifact.written",
  z.object({
    runId,
    toolCallId,
    /** workspace-relative, "/"-separated */
    path: z.string().min(1),
    action: z.enum(["created", "updated", "edited"]),
    /** from the extension: "ts", "py", "md", …; "" when it has none */
    fileType: z.string(),
    size: z.number().int().nonnegative(),
    diff: z.string().optional(),
    diffTruncated: z.boolean().optional(),
  }),
);

/** A tool's progress, shown as an AG-UI activity message. */
export const ActivitySnapshotSchema = event(
  "activity.snapshot",
  z.object({
    runId,
    messageId,
    activityType: z.string().min(1),
    content: z.record(z.string(), z.unknown()),
  }),
);
export const ActivityDeltaSchema = event(
  "activity.delta",
  z.object({ runId, messageId, activityType: z.string().min(1), patch: JsonPatchSchema }),
);

/**
 * The most a foreign agent's CUSTOM or RAW event may carry into the log (UTF-8 bytes of its
 * JSON); a larger one is dropped with a log line (server/engine/foreign/ingest.ts). An
 * application's own events are signals, not payloads: a megabyte each would be a megabyte per
 * row for every follower to read. The same bound as an artifact's diff (ARTIFACT_DIFF_MAX_BYTES).
 */
export const FOREIGN_EVENT_MAX_BYTES = 64 * 1024;

/**
 * A foreign agent's (remoteAgent, agentRunner) AG-UI CUSTOM event, replayed to clients as it came.
 * Stream-level: kept for the run's life and its retention, as terminal output is.
 */
export const CustomEmittedSchema = event("custom.emitted", z.object({ runId, name: z.string(), value: z.unknown() }));

/**
 * A foreign agent's AG-UI RAW event, or an event of a type AG-UI does not define, kept whole as
 * RAW's `event` with `source` UNKNOWN_EVENT_SOURCE (ingest.ts states the rule). Stream-level.
 */
export const RawEmittedSchema = event("raw.emitted", z.object({ runId, event: z.unknown(), source: z.string().optional() }));

/** The RAW `source` of an event whose type AG-UI does not define (kept whole in `event`). */
export const UNKNOWN_EVENT_SOURCE = "threadline:unknown-event-type";

export const WorkflowEventSchema = z.discriminatedUnion("type", [
  ThreadCreatedSchema,
  RunAcceptedSchema,
  WorkflowStartedSchema,
  WorkflowResumedSchema,
  WorkflowHandedOverSchema,
  WorkflowSuspendedSchema,
  WorkflowCompletedSchema,
  WorkflowFailedSchema,
  WorkflowCancellingSchema,
  WorkflowCancelledSchema,
  InterruptRequestedSchema,
  InterruptResolvedSchema,
  BranchForkedSchema,
  TaskCreatedSchema,
  TaskCompletedSchema,
  TaskFailedSchema,
  MessageAppendedSchema,
  StateSetSchema,
  StatePatchedSchema,
  UsageRecordedSchema,
  SignalReceivedSchema,
  TextStartedSchema,
  TextDeltaSchema,
  TextEndedSchema,
  ReasoningStartedSchema,
  ReasoningDeltaSchema,
  ReasoningEndedSchema,
  ToolCallStartedSchema,
  ToolCallArgsSchema,
  ToolCallEndedSchema,
  StreamWithdrawnSchema,
  TerminalOutputSchema,
  ArtifactWrittenSchema,
  ActivitySnapshotSchema,
  ActivityDeltaSchema,
  CustomEmittedSchema,
  RawEmittedSchema,
  SubagentStartedSchema,
  SubagentEndedSchema,
]);
export type WorkflowEvent = z.infer<typeof WorkflowEventSchema>;
export type WorkflowEventType = WorkflowEvent["type"];
export type EventOf<T extends WorkflowEventType> = Extract<WorkflowEvent, { type: T }>;

/** Stream-level events: kept while a run lives, compacted after it (retention). */
export const STREAM_EVENT_TYPES = [
  "text.started",
  "text.delta",
  "text.ended",
  "reasoning.started",
  "reasoning.delta",
  "reasoning.ended",
  "toolcall.started",
  "toolcall.args",
  "toolcall.ended",
  "stream.withdrawn",
  "terminal.output",
  "activity.delta",
  "custom.emitted",
  "raw.emitted",
] as const satisfies readonly WorkflowEventType[];

const streamTypes: ReadonlySet<string> = new Set(STREAM_EVENT_TYPES);
export function isStreamEvent(e: { type: string }): boolean {
  return streamTypes.has(e.type);
}

/** An event as the store returns it: the log position and commit time come with it. */
export const StoredEventSchema = z.intersection(
  WorkflowEventSchema,
  z.object({
    threadId: z.string().min(1),
    seq: z.number().int().positive(),
    runId: z.string().nullable(),
    /** Commit time, ms since epoch: the timestamp of every frame projected from it. */
    at: z.number().int(),
  }),
);
export type StoredEvent = z.infer<typeof StoredEventSchema>;

/** The run an event belongs to, if any: kept in its own column for reads by run. */
export function runIdOf(e: WorkflowEvent): string | null {
  const data = e.data as { runId?: string };
  return data.runId ?? null;
}
