/**
 * A foreign agent's AG-UI run, taken into the thread's log: every event it sends is checked
 * against @ag-ui/core's schemas and written, as it arrives, as the workflow events Threadline's
 * own agents write (protocol/events.ts), so the run gets what theirs get: resume by cursor on any
 * instance, reload, every tab following, tenants, CopilotKit. Nothing here knows where the events
 * come from (remote-stream.ts reads them from an HTTP endpoint; an in-process AG-UI agent could
 * hand over its observable the same way).
 *
 * The rules, in one place:
 * - ids: foreign message and tool-call ids are kept unless the thread has them already (ids.ts);
 * - spans: a part streamed to before it started is started; whatever is open at the end is
 *   closed (answer.ts); streamed text is the agent's answer (assistant), whatever role its
 *   TEXT_MESSAGE_START names: a foreign agent does not write the user's side of the thread;
 * - a TOOL_CALL_RESULT whose content is not a string is kept as its JSON text;
 * - the end: RUN_FINISHED or RUN_ERROR, once; reading stops there, so anything after it is
 *   ignored. A stream that ends without either fails the run (FOREIGN_CODES.disconnected);
 * - an event that fails its schema, or breaks the stream's rules (arguments of a call never
 *   started, a state patch that does not apply), fails the run (FOREIGN_CODES.malformed): the
 *   foreign agent is broken, and guessing would put something in the log it did not mean;
 * - CUSTOM and RAW are kept (custom.emitted, raw.emitted: stream-level, so a connect or a resume
 *   during the run and its retention replays them, on any instance) when their JSON is at most
 *   FOREIGN_EVENT_MAX_BYTES; a larger one is dropped, with a log line;
 * - an event of a type AG-UI does not define (a newer version's, an agent's own) is kept whole
 *   as a RAW event with source UNKNOWN_EVENT_SOURCE, under the same bound: a client that knows
 *   the type can still read it, and nothing guesses at what it means. Rejected: failing the run
 *   on it, which would make every newer AG-UI version's events an outage; dropping it, which
 *   loses what a client written for that version would show;
 * - known events with no counterpart in the log are dropped, with one log line per type per run:
 *   MESSAGES_SNAPSHOT (the thread's conversation is the log's: the foreign agent's new messages
 *   arrive as its stream), STEP_*, REASONING_START/END and REASONING_ENCRYPTED_VALUE (the
 *   reasoning messages carry what shows).
 * - SUBAGENT_* are kept as subagent.started / subagent.ended (protocol/subagent-events.ts), and
 *   what an event with a `subagentRunId` makes the log hold is attributed to it (run-budget.ts),
 *   so clients see the foreign agent's own subagents as they see Threadline's.
 * - text the log cannot store (NUL, lone surrogates) goes through the store's one rule
 *   (store/storable-text.ts) before anything else looks at the event.
 * - what a run may write is bounded (bounds.ts): one event, message, call's arguments, result,
 *   state snapshot or delta by messageBytes, the whole run by runBytes (run-budget.ts); past
 *   either the run ends with codes.tooLarge. Ingestion gives the event loop back every
 *   FOREIGN_SLICE_MS, however fast the agent sends.
 * - a STATE_DELTA applies to the state this ingester holds, copying only the containers its
 *   paths walk (protocol/state.ts): linear in the delta, where a deep clone per delta was
 *   quadratic in the run (3.2 s for 30 deltas of 900 KB on a loaded machine, against 1 ms).
 */
import { EventType, type Interrupt, type Message } from "@ag-ui/core";
import { EventSchemas } from "@ag-ui/core/schemas";
import type { Logger } from "pino";
import type { z } from "zod";
import { type EventOf, FOREIGN_EVENT_MAX_BYTES, UNKNOWN_EVENT_SOURCE } from "../../../protocol/events.ts";
import { patchState } from "../../../protocol/state.ts";
import { storableJsonMember } from "../../store/storable-text.ts";
import { RunAborted, RunFailure, type AbortReason } from "../errors.ts";
import type { RunPen } from "../run-writer.ts";
import { ForeignAnswer } from "./answer.ts";
import { DEFAULT_FOREIGN_BOUNDS, type ForeignBounds, FOREIGN_SLICE_MS, messageTooLarge, nextTurn } from "./bounds.ts";
import { ForeignIds } from "./ids.ts";
import { RunBudget } from "./run-budget.ts";

/** The RUN_ERROR codes a foreign run can end with, named for where the events came from. */
export interface ForeignCodes {
  malformed: string;
  disconnected: string;
  failed: string;
  /** Past a bound of bounds.ts (FOREIGN_MESSAGE_MAX_BYTES, FOREIGN_RUN_MAX_BYTES). */
  tooLarge: string;
  /** What the message tells the user the foreign agent is ("The remote agent"). */
  name: string;
}

export const REMOTE_CODES: ForeignCodes = {
  malformed: "REMOTE_MALFORMED",
  disconnected: "REMOTE_DISCONNECTED",
  failed: "REMOTE_RUN_ERROR",
  tooLarge: "REMOTE_OUTPUT_TOO_LARGE",
  name: "The remote agent",
};

/** What ingestion needs of a run: a subset of RunContext, so other doors can build one. */
export interface ForeignRunContext {
  runId: string;
  writer: RunPen;
  /** The conversation the foreign agent was given (its ids are taken: ids.ts). */
  messages: readonly Message[];
  /** The thread's state as the foreign agent was given it: STATE_DELTA applies to it. */
  state: unknown;
  signal: AbortSignal;
  abortReason(): AbortReason | undefined;
  logger: Logger;
  /** What the run may write (bounds.ts); default DEFAULT_FOREIGN_BOUNDS. */
  foreignBounds?: ForeignBounds;
}

/** How a foreign run ended, without the messages it added. */
export type ForeignEnd = { kind: "finished"; result?: unknown } | { kind: "interrupted"; interrupts: Interrupt[] };

export type ForeignOutcome = ForeignEnd & { added: Message[] };

type AguiEvent = z.infer<typeof EventSchemas>;

const KNOWN_TYPES: ReadonlySet<string> = new Set(Object.values(EventType));

/** Reads `events` to the foreign run's end; throws RunFailure (its end) or RunAborted (cancel, lease). */
export async function ingestForeignRun(ctx: ForeignRunContext, events: AsyncIterable<unknown>, codes: ForeignCodes = REMOTE_CODES): Promise<ForeignOutcome> {
  const bounds = ctx.foreignBounds ?? DEFAULT_FOREIGN_BOUNDS;
  const log = new RunBudget(ctx.writer, bounds, codes);
  const answer = new ForeignAnswer(ctx.runId, log, new ForeignIds(ctx.runId, ctx.messages), bounds, codes);
  const run = new ForeignRun(ctx, answer, codes, log, bounds);
  try {
    let slice = performance.now();
    for await (const raw of events) {
      if (ctx.signal.aborted) break;
      const end = run.take(raw);
      if (end) {
        answer.closeAll(false);
        return { ...end, added: [...answer.added.values()] };
      }
      // A source that has many events ready (a remote's chunk, an agent's queue) yields them
      // without a macrotask between: the loop gives other work its turn here.
      if (performance.now() - slice >= FOREIGN_SLICE_MS) {
        await nextTurn();
        slice = performance.now();
      }
    }
    const reason = ctx.abortReason();
    if (reason) throw new RunAborted(reason);
    throw new RunFailure(codes.disconnected, `${codes.name} closed its stream before the end of its run (no RUN_FINISHED or RUN_ERROR): it may have crashed. Send your message again; if it keeps happening, check the agent's logs.`);
  } catch (err) {
    const reason = ctx.abortReason();
    // The run resumes nowhere (a foreign run is never re-executed), so what clients saw stays.
    answer.closeAll(true);
    if (reason) throw new RunAborted(reason);
    throw err;
  }
}

class ForeignRun {
  #state: unknown;
  readonly #dropped = new Set<string>();

  constructor(
    private readonly ctx: ForeignRunContext,
    private readonly answer: ForeignAnswer,
    private readonly codes: ForeignCodes,
    private readonly log: RunBudget,
    private readonly bounds: ForeignBounds,
  ) {
    this.#state = ctx.state;
  }

  /** Writes one event; returns the run's end when it is RUN_FINISHED (RUN_ERROR throws). */
  take(raw: unknown): ForeignEnd | undefined {
    const event = this.#check(raw);
    if (!event) return undefined;
    const { runId } = this.ctx;
    const writer = this.log;
    const a = this.answer;
    const e = event;
    writer.attribution = "subagentRunId" in e && typeof e.subagentRunId === "string" ? e.subagentRunId : undefined;
    switch (e.type) {
      case EventType.SUBAGENT_STARTED:
        writer.attribution = e.parentSubagentRunId;
        writer.emit({
          type: "subagent.started",
          data: {
            runId,
            childRunId: e.subagentRunId,
            name: e.name,
            agentId: e.name,
            ...(e.description !== undefined && { description: e.description }),
            ...(e.parentToolCallId !== undefined && { parentToolCallId: e.parentToolCallId }),
            ...(e.parentMessageId !== undefined && { parentMessageId: e.parentMessageId }),
          },
        });
        return undefined;
      case EventType.SUBAGENT_FINISHED: {
        writer.attribution = undefined;
        const outcome = e.outcome as { type: string; interruptIds?: string[] } | undefined;
        const suspended = outcome?.type === "suspended";
        writer.emit({
          type: "subagent.ended",
          data: { runId, childRunId: e.subagentRunId, outcome: suspended ? "suspended" : "success", ...(suspended && outcome.interruptIds?.length && { interruptIds: outcome.interruptIds }) },
        });
        return undefined;
      }
      case EventType.SUBAGENT_ERROR:
        writer.attribution = undefined;
        writer.emit({ type: "subagent.ended", data: { runId, childRunId: e.subagentRunId, outcome: "failed", error: { code: e.code ?? "SUBAGENT_ERROR", message: e.message } } });
        return undefined;
      case EventType.RUN_STARTED:
        return undefined;
      case EventType.TEXT_MESSAGE_START:
        a.textStart(e.messageId);
        return undefined;
      case EventType.TEXT_MESSAGE_CONTENT:
        a.textDelta(e.messageId, e.delta);
        return undefined;
      case EventType.TEXT_MESSAGE_END:
        a.textEnd(e.messageId);
        return undefined;
      case EventType.TEXT_MESSAGE_CHUNK:
        a.textChunk(e.messageId, e.delta);
        return undefined;
      case EventType.REASONING_MESSAGE_START:
        a.reasoningStart(e.messageId);
        return undefined;
      case EventType.REASONING_MESSAGE_CONTENT:
        a.reasoningDelta(e.messageId, e.delta);
        return undefined;
      case EventType.REASONING_MESSAGE_END:
        a.reasoningEnd(e.messageId);
        return undefined;
      case EventType.REASONING_MESSAGE_CHUNK:
        a.reasoningChunk(e.messageId, e.delta);
        return undefined;
      case EventType.TOOL_CALL_START:
        a.callStart(e.toolCallId, e.toolCallName, e.parentMessageId);
        return undefined;
      case EventType.TOOL_CALL_ARGS:
        if (!a.hasCall(e.toolCallId)) this.#malformed(`TOOL_CALL_ARGS for tool call "${e.toolCallId}", which it never started`);
        a.callArgs(e.toolCallId, e.delta);
        return undefined;
      case EventType.TOOL_CALL_END:
        if (!a.hasCall(e.toolCallId)) this.#malformed(`TOOL_CALL_END for tool call "${e.toolCallId}", which it never started`);
        a.callEnd(e.toolCallId);
        return undefined;
      case EventType.TOOL_CALL_CHUNK:
        if (!a.callChunk(e.toolCallId, e.toolCallName, e.parentMessageId, e.delta)) this.#malformed("a TOOL_CALL_CHUNK that starts a tool call without its id or name");
        return undefined;
      case EventType.TOOL_CALL_RESULT:
        a.result(e.messageId, e.toolCallId, typeof e.content === "string" ? e.content : JSON.stringify(e.content));
        return undefined;
      case EventType.STATE_SNAPSHOT:
        this.#state = e.snapshot;
        writer.emit({ type: "state.set", data: { runId, state: e.snapshot } });
        return undefined;
      case EventType.STATE_DELTA:
        this.#patch(e.delta);
        return undefined;
      case EventType.ACTIVITY_SNAPSHOT:
        writer.emit({ type: "activity.snapshot", data: { runId, messageId: e.messageId, activityType: e.activityType, content: e.content } });
        return undefined;
      case EventType.ACTIVITY_DELTA:
        writer.emit({ type: "activity.delta", data: { runId, messageId: e.messageId, activityType: e.activityType, patch: e.patch } });
        return undefined;
      case EventType.CUSTOM:
        this.#keep(e.type, { type: "custom.emitted", data: { runId, name: e.name, value: e.value } });
        return undefined;
      case EventType.RAW:
        this.#keep(e.type, { type: "raw.emitted", data: { runId, event: e.event, ...(e.source !== undefined && { source: e.source }) } });
        return undefined;
      case EventType.RUN_ERROR: {
        const code = typeof e.code === "string" && e.code !== "" ? ` (its code: ${e.code})` : "";
        throw new RunFailure(this.codes.failed, `${this.codes.name} failed: ${e.message}${code}. Send your message again; if it keeps failing, check the agent's logs.`);
      }
      case EventType.RUN_FINISHED: {
        const outcome = e.outcome as { type: string; interrupts?: Interrupt[] } | undefined;
        if (outcome?.type === "interrupt") return { kind: "interrupted", interrupts: outcome.interrupts ?? [] };
        return { kind: "finished", ...(e.result !== undefined && { result: e.result }) };
      }
      default:
        this.#drop(e.type);
        return undefined;
    }
  }

  /** The event made storable and checked; undefined for one that is dropped. */
  #check(raw: unknown): AguiEvent | undefined {
    let clean: unknown;
    let bytes: number;
    try {
      const text = JSON.stringify(raw, storableJsonMember) ?? "null";
      bytes = Buffer.byteLength(text);
      clean = JSON.parse(text);
    } catch (err) {
      this.#malformed(`an event that is not JSON (${err instanceof Error ? err.message : String(err)})`);
    }
    const type = (clean as { type?: unknown } | null)?.type;
    if (typeof type !== "string") this.#malformed("an event without a string `type`");
    // One event is one message's worth at most (a remote's are held to REMOTE_EVENT_MAX_BYTES as
    // they arrive; an in-process agent's only here): a state snapshot or delta included.
    if (bytes > this.bounds.messageBytes) throw messageTooLarge(this.codes, this.bounds, `a ${type} event`);
    if (!KNOWN_TYPES.has(type)) {
      this.#keep(type, { type: "raw.emitted", data: { runId: this.ctx.runId, event: clean, source: UNKNOWN_EVENT_SOURCE } });
      return undefined;
    }
    const parsed = EventSchemas.safeParse(clean);
    if (!parsed.success) {
      const reasons = parsed.error.issues.slice(0, 3).map((i) => `${i.path.map(String).join(".") || "(event)"}: ${i.message}`).join("; ");
      this.#malformed(`a ${type} event AG-UI does not allow (${reasons})`);
    }
    return parsed.data;
  }

  #patch(ops: EventOf<"state.patched">["data"]["patch"]): void {
    // A copy duplicates state the patch does not carry: its bytes count as written.
    const next = patchState(this.#state, ops, (value) => this.log.charge(Buffer.byteLength(JSON.stringify(value))));
    if ("error" in next) this.#malformed(`a STATE_DELTA that does not apply to the state it was given (${next.error})`);
    this.log.emit({ type: "state.patched", data: { runId: this.ctx.runId, patch: ops } });
    this.#state = next.value;
  }

  /** Writes a CUSTOM, RAW or unknown event's record when it is within FOREIGN_EVENT_MAX_BYTES. */
  #keep(type: string, record: EventOf<"custom.emitted" | "raw.emitted">): void {
    const bytes = Buffer.byteLength(JSON.stringify(record.data));
    if (bytes <= FOREIGN_EVENT_MAX_BYTES) {
      this.log.emit(record);
      return;
    }
    this.ctx.logger.warn({ eventType: type, bytes }, `foreign agent sent a ${type} event of ${bytes} bytes, over the ${FOREIGN_EVENT_MAX_BYTES} a kept event may carry; it was dropped`);
  }

  #drop(type: string): void {
    if (this.#dropped.has(type)) return;
    this.#dropped.add(type);
    this.ctx.logger.info({ eventType: type }, `foreign agent sent ${type}, which the log has no place for; events of this type are dropped for this run`);
  }

  #malformed(what: string): never {
    throw new RunFailure(this.codes.malformed, `${this.codes.name} sent ${what}. Its stream cannot be trusted past this point; fix the agent, then send your message again.`);
  }
}
