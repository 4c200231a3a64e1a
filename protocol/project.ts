/**
 * The projection: stored workflow events -> AG-UI frames. Live streaming and replay run this same
 * code over the same rows, so a replay from seq 1 yields the frames a live client saw, ids included
 * (ids: see frames.ts). A `Projector` is a fold over one thread's log, with no clock and no I/O:
 * every frame's timestamp is the commit time (`at`) of the event it came from.
 *
 * Mapping (frames only while the event's run is open; everything else is folded and yields nothing):
 * - run.accepted, message.appended{source:"input"}: collected as the run's input, sent only in
 *   RUN_STARTED.input (both client versions accept it and add the message ids they lack).
 * - workflow.started: RUN_STARTED{input} + STATE_SNAPSHOT of the thread's state (`{}` if never set).
 * - workflow.resumed (recovery, hand-off): closes whatever the stopped worker left open, but the
 *   messages it `continues`, and supersedes what it closed; the run goes on.
 * - workflow.handed_over: nothing (the run goes on on another instance).
 * - stream.withdrawn: closes those messages if open and sends MESSAGES_SNAPSHOT without them.
 * - text.* / reasoning.* / toolcall.*: START / CONTENT|ARGS / END; a reasoning message also opens
 *   and closes a reasoning span with the same id.
 * - task.created / completed / failed: STEP_STARTED / STEP_FINISHED, step name = task name.
 * - state.set: STATE_SNAPSHOT. state.patched: STATE_DELTA, or a STATE_SNAPSHOT of the whole state
 *   if none was sent yet in the run (a delta needs a base).
 * - activity.snapshot / delta: ACTIVITY_SNAPSHOT / DELTA. terminal.output: CUSTOM "terminal"
 *   {toolCallId, stream, data}. artifact.written: CUSTOM "artifact" (the event's data without runId).
 * - usage.recorded: nothing; summed per (provider, model) into RUN_FINISHED/RUN_ERROR.usage.
 * - message.appended{source:"agent"}: a tool message -> TOOL_CALL_RESULT (its own messageId); an
 *   assistant or reasoning message -> only the parts not already streamed in this thread (after
 *   retention compacted the stream away, the whole message), so a compacted log replays to the same
 *   conversation; a user/system/developer message -> a text message with that role.
 * - workflow.suspended / completed: RUN_FINISHED without `outcome` (0.0.59 rejects
 *   pendingToolCallIds and the cancelled outcome; an absent outcome means success to both, and
 *   1.0 still derives the pending tool calls from the calls left without a result). In a 1.0
 *   run (protocol/versions.ts) a suspension that leaves frontend tool calls waiting says so:
 *   `outcome: {type:"success", pendingToolCallIds}`.
 * - branch.forked: the conversation keeps what the fork keeps; the run it starts opens with a
 *   MESSAGES_SNAPSHOT of the new branch after its STATE_SNAPSHOT (protocol/branches.ts).
 * - interrupt.requested: folded; the suspension that names it ends the run with
 *   `outcome: {type:"interrupt", interrupts}` (both versions accept that member), or, when the
 *   run's client offered the INTERRUPT_TOOL_NAME tool, with one such tool call per interrupt
 *   (START/ARGS/END, no result) and no outcome: the form CopilotKit's human-in-the-loop hooks
 *   render (protocol/interrupts.ts says why never both). interrupt.resolved: nothing (the
 *   answer reached the server in the next run's input).
 * - workflow.failed: RUN_ERROR{message, code} (every RUN_ERROR of a run posted through HTTP also
 *   carries `metadata.requestId`, kept by its run.accepted). workflow.cancelled: RUN_ERROR{code:"CANCELLED"},
 *   or in a 1.0 run RUN_FINISHED{outcome:{type:"cancelled"}}.
 * A run's forms (legacy or 1.0) are decided once, when it opens, from what its poster declared
 * and what the reader of this projection declared (the constructor's `reader`).
 *   workflow.cancelling: nothing (the run is still open).
 * Before a terminal frame everything open is closed. Nothing is emitted for a run that has ended.
 * A terminal event for a run that never started (cancelled while PENDING) opens it first, so the
 * client that posted it gets an answer and every stream stays bracketed; a run started while
 * another is open ends the old one with RUN_ERROR{code:"SUPERSEDED"} (the status machine forbids
 * both, but a client would otherwise reject every later frame of the thread).
 */
import { EventType, type AGUIEvent, type Message } from "@ag-ui/core";
import { runIdOf, type EventOf, type StoredEvent } from "./events.ts";
import { compareFrameIds, framesAt, parseFrameId, wireMessage, type Frame } from "./frames.ts";
import { MessageList } from "./message-list.ts";
import { newShown, projectAgentMessage } from "./project-messages.ts";
import { interruptToolCall, runCancelledEvent, runErrorEvent, runFinishedEvent, runStartedEvent, type RunInput } from "./project-run.ts";
import { RunScope } from "./project-scope.ts";
import { attribute, closeSubagents, subagentEnded, subagentStarted } from "./project-subagents.ts";
import { isRunPart, projectRunPart } from "./project-stream.ts";
import { wantsInterruptTool, withInterrupts, type InterruptRecord, type InterruptRequest } from "./interrupts.ts";
import { applyStatePatch } from "./state.ts";
import { runLevel, type ProtocolLevel } from "./versions.ts";

export type { Frame } from "./frames.ts";

type MessageData = EventOf<"message.appended">["data"];

/**
 * A position a projection may start from instead of seq 1: one where no run is open or accepted
 * and not yet ended (between runs), with the conversation and the state the log holds there, as
 * the reconstruction fold (or its checkpoint) has them.
 */
export interface ProjectionSeed {
  threadId: string;
  seq: number;
  messages: Message[];
  state: unknown;
  /** The thread's interrupts as the fold has them: answered HITL questions stay in snapshots. */
  interrupts?: readonly InterruptRecord[];
}

export class Projector {
  private threadId: string | undefined;
  private lastSeq = 0;
  private state: unknown = undefined;
  private readonly inputs = new Map<string, RunInput>();
  private lastAccepted: string | undefined;
  private readonly started = new Set<string>();
  private readonly ended = new Set<string>();
  private scope: RunScope | undefined;
  /** Interrupts asked by each run not yet ended, and the runs whose client wants them as tool calls. */
  private readonly asked = new Map<string, InterruptRequest[]>();
  private readonly interruptToolRuns = new Set<string>();
  /** Every interrupt with its answer: answered HITL questions stay in every MESSAGES_SNAPSHOT. */
  private readonly answers = new Map<string, InterruptRecord>();
  /** Runs admitted with a branch.forked, until they start. */
  private readonly forkedRuns = new Set<string>();
  /** The durable conversation (every message.appended, upserted by id), for a recovery resync. */
  private readonly conversation = new MessageList();
  /** Ids already sent to clients in this thread: what message.appended must not send twice. */
  private readonly shown = newShown();

  /** `reader`: what the client reading these frames declared (protocol/versions.ts). */
  constructor(
    threadId?: string,
    private readonly reader: ProtocolLevel = "legacy",
  ) {
    this.threadId = threadId;
  }

  /**
   * The projection as of a position between runs: the events after `seed.seq` project to the
   * frames the projection of the whole log makes of them. Between runs, what the projection
   * carries forward is the state, the conversation (for a resync's MESSAGES_SNAPSHOT) and which
   * agent messages were shown (every one an ended run appended: it was streamed, or projected
   * whole); no run is open and no input is waiting for its RUN_STARTED. Rejected: a checkpoint of
   * the projector itself, a second stored shape that would have to follow every change here.
   */
  static at(seed: ProjectionSeed, reader: ProtocolLevel = "legacy"): Projector {
    const p = new Projector(seed.threadId, reader);
    p.lastSeq = seed.seq;
    p.state = seed.state;
    for (const rec of seed.interrupts ?? []) p.answers.set(rec.request.interruptId, { ...rec });
    for (const m of seed.messages) {
      p.conversation.upsert(m);
      if (m.role === "assistant") {
        p.shown.text.add(m.id);
        for (const call of m.toolCalls ?? []) p.shown.toolCalls.add(call.id);
      } else if (m.role === "reasoning") p.shown.reasoning.add(m.id);
      else if (m.role === "tool") p.shown.results.add(m.id);
    }
    return p;
  }

  /** The thread's state as folded so far. */
  get currentState(): unknown {
    return this.state;
  }

  /** The run whose frames are being emitted, if any. */
  get openRunId(): string | undefined {
    return this.scope?.runId;
  }

  /**
   * Projects one event. Events must come in log order; one at or before the last seq pushed is
   * ignored, so a live feed and a catch-up read may overlap without duplicating frames.
   */
  push(e: StoredEvent): Frame[] {
    if (this.threadId === undefined) this.threadId = e.threadId;
    else if (e.threadId !== this.threadId) {
      throw new Error(`Projector for thread ${this.threadId} was given event ${e.seq} of thread ${e.threadId}`);
    }
    if (e.seq <= this.lastSeq) return [];
    this.lastSeq = e.seq;
    const out: AGUIEvent[] = [];
    this.apply(e, out);
    return framesAt(e.seq, out.map((ev) => ({ ...ev, timestamp: e.at })));
  }

  private apply(e: StoredEvent, out: AGUIEvent[]): void {
    const runId = runIdOf(e) ?? e.runId ?? undefined;
    const s = this.active(runId);
    const from = out.length;
    // A child's work (protocol/subagent-events.ts) is attributed to it in a 1.0 run.
    const child = (e.data as { subagentRunId?: string }).subagentRunId;
    if (s) s.attributing = child;
    this.applyIn(e, runId, s, out);
    if (s) s.attributing = undefined;
    if (child !== undefined && s?.level === "1.0") attribute(out, from, child);
  }

  private applyIn(e: StoredEvent, runId: string | undefined, s: RunScope | undefined, out: AGUIEvent[]): void {
    if (isRunPart(e)) {
      projectRunPart(e, s, this.shown, out, (sc) => this.messagesSnapshot(sc));
      return;
    }
    switch (e.type) {
      case "subagent.started":
        if (s) subagentStarted(e, s, out);
        break;
      case "subagent.ended":
        if (s) subagentEnded(e, s, out);
        break;
      case "run.accepted":
        this.onAccepted(e.data);
        break;
      case "message.appended":
        this.onMessage(e.data, runId, s, out);
        break;
      case "state.set":
        this.state = e.data.state;
        if (s) this.snapshot(s, out);
        break;
      case "state.patched":
        this.onPatched(e.data.patch, s, out);
        break;
      case "usage.recorded":
        s?.usage.push(e.data.usage);
        break;
      case "interrupt.requested": {
        const list = this.asked.get(e.data.runId) ?? [];
        if (!list.some((r) => r.interruptId === e.data.interruptId)) list.push(e.data);
        this.asked.set(e.data.runId, list);
        if (!this.answers.has(e.data.interruptId)) {
          this.answers.set(e.data.interruptId, { request: e.data, form: this.interruptToolRuns.has(e.data.runId) ? "tool" : "outcome" });
        }
        break;
      }
      case "interrupt.resolved": {
        const rec = this.answers.get(e.data.interruptId);
        if (rec) rec.resolution = e.data;
        break;
      }
      case "branch.forked":
        this.onForked(e.data);
        break;
      case "workflow.started":
      case "workflow.resumed":
      case "workflow.suspended":
      case "workflow.completed":
      case "workflow.failed":
      case "workflow.cancelled":
        this.applyLifecycle(e, out);
        break;
      case "thread.created":
      case "workflow.cancelling":
      case "workflow.handed_over":
      case "signal.received":
        break;
    }
  }

  /** The events that open a run on the wire or end it. */
  private applyLifecycle(e: StoredEvent, out: AGUIEvent[]): void {
    switch (e.type) {
      case "workflow.started":
        this.enter(e.data.runId, out)?.closeAll(out);
        break;
      case "workflow.resumed": {
        // What the stopped worker left open is closed, then superseded: a snapshot of the durable
        // conversation (which never had it) makes every client drop it, so what a live client
        // shows equals what a reload shows. Rejected: leaving the fragment in place (the clients'
        // view and the server's would differ until a reload). The half-streamed answer the new
        // worker `continues` stays open: its re-issued request streams only the words past what
        // clients already have, or withdraws it (stream.withdrawn) if the model answers otherwise.
        const scope = this.enter(e.data.runId, out);
        if (scope) this.closeAndResync(scope, out, new Set(e.data.continues));
        break;
      }
      case "workflow.suspended":
        this.onSuspended(e.data.runId, e.data.interruptIds, e.data.pendingToolCallIds, out);
        break;
      case "workflow.completed": {
        const { result } = e.data;
        this.finish(e.data.runId, out, (sc) => runFinishedEvent(this.threadId!, sc, result));
        break;
      }
      case "workflow.failed": {
        const { code, message } = e.data.error;
        this.finish(e.data.runId, out, (sc) => runErrorEvent(sc, message, code));
        break;
      }
      case "workflow.cancelled": {
        const message = e.data.reason ? `Run cancelled: ${e.data.reason}` : "Run cancelled";
        this.finish(e.data.runId, out, (sc) => runCancelledEvent(this.threadId!, sc, message));
        break;
      }
    }
  }

  private onAccepted(data: EventOf<"run.accepted">["data"]): void {
    const { runId, parentRunId, protocolVersion, tools, context, forwardedProps, requestId } = data;
    const known = this.inputs.get(runId);
    const messages = known?.messages ?? new MessageList();
    this.inputs.set(runId, {
      tools,
      context,
      messages,
      ...(parentRunId !== undefined && { parentRunId }),
      ...(protocolVersion !== undefined && { protocolVersion }),
      ...(requestId !== undefined && { requestId }),
      forwardedProps,
    });
    this.lastAccepted = runId;
  }

  private onPatched(patch: EventOf<"state.patched">["data"]["patch"], s: RunScope | undefined, out: AGUIEvent[]): void {
    const next = applyStatePatch(this.state, patch);
    // A patch that does not apply changes nothing, as on the client (which only warns).
    if (!next) return;
    this.state = next.value;
    // Every run opens with a snapshot, so the else is a guard: a delta never goes out without
    // a base in its run (0.0.59 and 1.0 apply it to whatever state they hold).
    if (s?.snapshotSent) out.push({ type: EventType.STATE_DELTA, delta: patch });
    else if (s) this.snapshot(s, out);
  }

  private onForked(data: EventOf<"branch.forked">["data"]): void {
    // Clients that did not send this run (another tab, a follower) hold the branch left
    // behind: the run opens with a MESSAGES_SNAPSHOT of the new one (enter()).
    this.conversation.keep(data.keepThrough);
    this.forkedRuns.add(data.runId);
  }

  private onSuspended(runId: string, interruptIds: readonly string[] | undefined, pendingToolCallIds: readonly string[], out: AGUIEvent[]): void {
    const threadId = this.threadId!;
    // A run may wait again for an interrupt an earlier run asked (parallel approvals answered one
    // by one): the request is found by id, whichever run asked it.
    const asked = this.asked.get(runId) ?? [];
    const interrupts = (interruptIds ?? []).flatMap((i) => {
      const r = asked.find((a) => a.interruptId === i) ?? this.answers.get(i)?.request;
      return r ? [r] : [];
    });
    this.asked.delete(runId);
    if (interrupts.length === 0) this.finish(runId, out, (sc) => runFinishedEvent(threadId, sc, undefined, undefined, pendingToolCallIds));
    else if (this.interruptToolRuns.delete(runId)) {
      this.finish(runId, out, (sc) => [...interrupts.flatMap((r) => interruptToolCall(sc, r)), runFinishedEvent(threadId, sc)]);
    } else {
      // AG-UI 1.0: a run that ends with an interrupt outcome sends STATE_SNAPSHOT and
      // MESSAGES_SNAPSHOT first, so a client that resumes later holds what the question is about.
      this.finish(runId, out, (sc) => [
        { type: EventType.STATE_SNAPSHOT, snapshot: this.state === undefined ? {} : this.state },
        this.messagesSnapshot(sc),
        runFinishedEvent(threadId, sc, undefined, interrupts),
      ]);
    }
  }

  /** The open run, if `runId` is it (an event without a run belongs to whatever run is open). */
  private active(runId: string | undefined): RunScope | undefined {
    return this.scope && (runId === undefined || runId === this.scope.runId) ? this.scope : undefined;
  }

  /** Opens `runId` unless it is open already; undefined if it has ended (nothing more is sent). */
  private enter(runId: string, out: AGUIEvent[]): RunScope | undefined {
    if (this.ended.has(runId)) return undefined;
    if (this.scope?.runId === runId) return this.scope;
    if (this.scope) {
      const old = this.scope;
      this.finish(old.runId, out, (sc) =>
        runErrorEvent(sc, `Run ${old.runId} ended without a terminal event: run ${runId} started`, "SUPERSEDED"),
      );
    }
    const input = this.inputs.get(runId);
    const scope = new RunScope(runId, runLevel(input?.protocolVersion, this.reader), input?.requestId);
    this.scope = scope;
    this.started.add(runId);
    out.push(runStartedEvent(this.threadId!, scope, input, this.state));
    if (wantsInterruptTool(this.inputs.get(runId)?.tools)) this.interruptToolRuns.add(runId);
    this.inputs.delete(runId); // echoed once; a run is entered once
    this.snapshot(scope, out);
    if (this.forkedRuns.delete(runId)) out.push(this.messagesSnapshot(scope));
    return scope;
  }

  private finish(runId: string, out: AGUIEvent[], terminal: (s: RunScope) => AGUIEvent | AGUIEvent[]): void {
    const s = this.enter(runId, out);
    if (!s) return;
    // A run cut short (cancel, failure) may leave a half-streamed tool call that the log never
    // recorded: the same resync as after a recovery, so clients end where a reload would.
    this.closeAndResync(s, out);
    closeSubagents(s, out);
    const last = terminal(s);
    out.push(...(Array.isArray(last) ? last : [last]));
    this.ended.add(runId);
    this.interruptToolRuns.delete(runId);
    this.scope = undefined;
  }

  /**
   * Closes what is open; if that was a message or tool call (not just steps), the stream had
   * parts the durable conversation lacks, and a MESSAGES_SNAPSHOT of that conversation replaces
   * the clients' view with it.
   */
  private closeAndResync(s: RunScope, out: AGUIEvent[], keep?: ReadonlySet<string>): void {
    const before = out.length;
    s.closeAll(out, keep);
    const closedPartial = out.slice(before).some((ev) => ev.type !== EventType.STEP_FINISHED);
    if (!closedPartial) return;
    // The snapshot drops the kept messages from every client too: they cannot stay open. (The
    // engine continues a cut answer only when nothing else of it was open.)
    if (keep?.size) s.closeAll(out);
    out.push(this.messagesSnapshot(s));
  }

  /** The durable conversation in the run's forms, with the answered HITL questions a client of form 2 holds. */
  private messagesSnapshot(s: RunScope): AGUIEvent {
    const answered = [...this.answers.values()].filter((r) => r.resolution);
    return { type: EventType.MESSAGES_SNAPSHOT, messages: withInterrupts(this.conversation.items.map((m) => wireMessage(m, s.level)), answered).messages };
  }

  private snapshot(s: RunScope, out: AGUIEvent[]): void {
    out.push({ type: EventType.STATE_SNAPSHOT, snapshot: this.state === undefined ? {} : this.state });
    s.snapshotSent = true;
  }

  private onMessage(data: MessageData, runId: string | undefined, s: RunScope | undefined, out: AGUIEvent[]): void {
    const m = data.message as Message;
    this.conversation.upsert(m);
    // Input reaches clients only in its run's RUN_STARTED.input: the client that sent it has it,
    // any other gets it there. Input appended after the run started is not sent at all.
    if (data.source === "input") {
      const target = runId ?? this.lastAccepted;
      if (target === undefined || this.started.has(target)) return;
      const input = this.inputs.get(target) ?? { tools: [], context: [], messages: new MessageList() };
      this.inputs.set(target, input);
      input.messages.upsert(m);
      return;
    }
    if (s) projectAgentMessage(m, s, this.shown, out);
  }
}

/** Every frame of a thread's log, from the start. */
export function project(events: Iterable<StoredEvent>, reader: ProtocolLevel = "legacy"): Frame[] {
  const projector = new Projector(undefined, reader);
  const frames: Frame[] = [];
  for (const e of events) frames.push(...projector.push(e));
  return frames;
}

/**
 * The frames a client that has seen `cursor` has not seen yet: the whole log is projected (the
 * fold needs every earlier event) and the frames at or before the cursor are dropped. No cursor:
 * every frame. A cursor that is not a frame id throws, rather than replaying the whole thread
 * onto a client that already holds part of it.
 */
export function framesAfter(events: Iterable<StoredEvent>, cursor?: string | null, reader: ProtocolLevel = "legacy"): Frame[] {
  const frames = project(events, reader);
  if (cursor === undefined || cursor === null || cursor === "") return frames;
  const at = parseFrameId(cursor);
  if (!at) throw new TypeError(`Not a frame id: '${cursor}'. Frame ids are '<seq>' or '<seq>.<k>'.`);
  return frames.filter((f) => compareFrameIds(f.id, at) > 0);
}
