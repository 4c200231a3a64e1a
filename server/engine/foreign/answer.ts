/**
 * What a foreign agent streams, as the thread's stream events and durable messages: its text,
 * reasoning and tool calls, under thread ids (ids.ts). Kept apart from ingest.ts, which reads and
 * checks the events and decides how the run ends, so that the bookkeeping of open spans does not
 * interleave with those decisions (as llm-answer.ts is kept apart from llm-task.ts).
 *
 * Durable as soon as a part ends: a text message's TEXT_MESSAGE_END appends the message, a tool
 * call's end appends its parent message again with the call (the log upserts by id), a result
 * appends the tool message. So what a foreign agent finished survives a reload even when its run
 * is later lost (REMOTE_RUN_LOST). Rejected: appending everything at the run's end, as a model
 * request does; a model request is re-issued after a crash, a foreign run never is.
 *
 * The normalising rules: a part streamed to before it was started is started then (CHUNK events
 * work this way by design); whatever is still open when the run ends is closed (`closeAll`);
 * a tool call never ended when the run fails is dropped from the durable message, as the engine
 * drops a cut model request's calls (llm-answer.ts keepPartial), so nothing waits on a call whose
 * arguments may be cut.
 *
 * Each message's text, each reasoning message, each call's arguments and each result is held to
 * messageBytes (bounds.ts) as it grows: the delta that would cross it is not written, the run
 * ends there (closeAll keeps what came before, within the bound).
 */
import type { AssistantMessage, Message, ReasoningMessage, ToolCall } from "@ag-ui/core";
import { type ForeignBounds, messageTooLarge } from "./bounds.ts";
import type { ForeignIds } from "./ids.ts";
import type { ForeignCodes } from "./ingest.ts";
import type { ForeignLog } from "./run-budget.ts";

interface OpenCall {
  id: string;
  name: string;
  args: string;
  parentMessageId: string;
  ended: boolean;
}

export class ForeignAnswer {
  /** Assistant messages of this run by thread id: their text, and their calls once ended. */
  readonly #assistant = new Map<string, AssistantMessage>();
  readonly #openText = new Map<string, string>();
  readonly #openReasoning = new Map<string, string>();
  readonly #calls = new Map<string, OpenCall>();
  /** The text message last started: the parent of a call that names none. */
  #lastTextId: string | undefined;
  /** The message TEXT_MESSAGE_CHUNK / REASONING_MESSAGE_CHUNK without an id goes on with. */
  #lastChunkText: string | undefined; // a thread id
  #lastChunkReasoning: string | undefined; // a thread id
  #lastChunkCall: string | undefined; // the foreign agent's id
  /** What this run added to the conversation, in order of first append. */
  readonly added = new Map<string, Message>();

  /** UTF-8 bytes so far of each open text, reasoning message and call (by thread id). */
  readonly #bytes = new Map<string, number>();

  constructor(
    private readonly runId: string,
    private readonly writer: ForeignLog,
    private readonly ids: ForeignIds,
    private readonly bounds: ForeignBounds,
    private readonly codes: ForeignCodes,
  ) {}

  // Public methods take the foreign agent's ids; the #private ones, thread ids (ids.ts maps).

  textStart(foreignId: string): void {
    this.#textStart(this.ids.of(foreignId));
  }

  textDelta(foreignId: string, delta: string): void {
    this.#textDelta(this.ids.of(foreignId), delta);
  }

  textEnd(foreignId: string): void {
    this.#textEnd(this.ids.of(foreignId));
  }

  /** TEXT_MESSAGE_CHUNK: a new id starts a message (closing the chunked one before), no id goes on. */
  textChunk(foreignId: string | undefined, delta: string | undefined): void {
    const id = foreignId !== undefined ? this.ids.of(foreignId) : (this.#lastChunkText ?? this.ids.mint("msg"));
    if (this.#lastChunkText !== undefined && this.#lastChunkText !== id) this.#textEnd(this.#lastChunkText);
    this.#lastChunkText = id;
    this.#textDelta(id, delta ?? "");
  }

  reasoningStart(foreignId: string): void {
    this.#reasoningStart(this.ids.of(foreignId));
  }

  reasoningDelta(foreignId: string, delta: string): void {
    this.#reasoningDelta(this.ids.of(foreignId), delta);
  }

  reasoningEnd(foreignId: string): void {
    this.#reasoningEnd(this.ids.of(foreignId));
  }

  reasoningChunk(foreignId: string | undefined, delta: string | undefined): void {
    const id = foreignId !== undefined ? this.ids.of(foreignId) : (this.#lastChunkReasoning ?? this.ids.mint("reasoning"));
    if (this.#lastChunkReasoning !== undefined && this.#lastChunkReasoning !== id) this.#reasoningEnd(this.#lastChunkReasoning);
    this.#lastChunkReasoning = id;
    this.#reasoningDelta(id, delta ?? "");
  }

  /** Whether the foreign agent started this call in this run (its ARGS and END need it). */
  hasCall(foreignId: string): boolean {
    return this.ids.seen(foreignId) && this.#calls.has(this.ids.of(foreignId));
  }

  callStart(foreignId: string, name: string, foreignParent: string | undefined): void {
    const id = this.ids.of(foreignId);
    if (this.#calls.has(id)) return;
    const parentMessageId = foreignParent !== undefined ? this.ids.of(foreignParent) : (this.#lastTextId ?? this.ids.mint("msg"));
    this.#lastTextId ??= parentMessageId; // the next call without a parent shares this message
    this.#calls.set(id, { id, name, args: "", parentMessageId, ended: false });
    this.writer.emit({ type: "toolcall.started", data: { runId: this.runId, toolCallId: id, name, parentMessageId } });
  }

  callArgs(foreignId: string, delta: string): void {
    const call = this.#calls.get(this.ids.of(foreignId));
    if (!call || call.ended || delta === "") return;
    this.#grow(call.id, delta, `the arguments of tool call "${foreignId}"`);
    this.writer.emit({ type: "toolcall.args", data: { runId: this.runId, toolCallId: call.id, delta } });
    call.args += delta;
  }

  callEnd(foreignId: string): void {
    const call = this.#calls.get(this.ids.of(foreignId));
    if (call) this.#callEnd(call);
  }

  /** TOOL_CALL_CHUNK: a new id starts a call (it needs its name), no id goes on with the last one. */
  callChunk(foreignId: string | undefined, name: string | undefined, parent: string | undefined, delta: string | undefined): boolean {
    const id = foreignId ?? this.#lastChunkCall;
    if (id === undefined) return false;
    if (!this.hasCall(id)) {
      if (name === undefined) return false;
      if (this.#lastChunkCall !== undefined) this.callEnd(this.#lastChunkCall);
      this.callStart(id, name, parent);
    }
    this.#lastChunkCall = id;
    this.callArgs(id, delta ?? "");
    return true;
  }

  /** A tool's result: its call ends if it was open, then the tool message is appended. */
  result(foreignMessageId: string, foreignCallId: string, content: string): void {
    if (this.hasCall(foreignCallId)) this.callEnd(foreignCallId);
    const id = this.ids.of(foreignMessageId);
    if (Buffer.byteLength(content) > this.bounds.messageBytes) throw messageTooLarge(this.codes, this.bounds, `a result of tool call "${foreignCallId}"`);
    this.#append({ id, role: "tool", toolCallId: this.ids.of(foreignCallId), content });
  }

  /**
   * Closes every open span. `failed`: the run ends on an error, so calls never ended are dropped
   * from the conversation (their stream is closed for clients all the same).
   */
  closeAll(failed: boolean): void {
    for (const id of [...this.#openReasoning.keys()]) this.#reasoningEnd(id);
    for (const id of [...this.#openText.keys()]) this.#textEnd(id);
    for (const call of this.#calls.values()) {
      if (call.ended) continue;
      if (!failed) {
        this.#callEnd(call);
        continue;
      }
      call.ended = true;
      this.writer.emit({ type: "toolcall.ended", data: { runId: this.runId, toolCallId: call.id } });
    }
  }

  #textStart(id: string): void {
    if (this.#openText.has(id) || this.#assistant.get(id)?.content !== undefined) return;
    this.#openText.set(id, "");
    this.#lastTextId = id;
    this.writer.emit({ type: "text.started", data: { runId: this.runId, messageId: id } });
  }

  #textDelta(id: string, delta: string): void {
    this.#textStart(id);
    const sofar = this.#openText.get(id);
    if (sofar === undefined || delta === "") return; // ended already: its message is durable as it was
    this.#grow(id, delta, "a text message");
    this.writer.emit({ type: "text.delta", data: { runId: this.runId, messageId: id, delta } });
    this.#openText.set(id, sofar + delta);
  }

  #textEnd(id: string): void {
    const content = this.#openText.get(id);
    if (content === undefined) return;
    this.#openText.delete(id);
    this.writer.emit({ type: "text.ended", data: { runId: this.runId, messageId: id } });
    this.#appendAssistant(id, (m) => ({ ...m, content }));
  }

  #reasoningStart(id: string): void {
    if (this.#openReasoning.has(id) || this.added.has(id)) return;
    this.#openReasoning.set(id, "");
    this.writer.emit({ type: "reasoning.started", data: { runId: this.runId, messageId: id } });
  }

  #reasoningDelta(id: string, delta: string): void {
    this.#reasoningStart(id);
    const sofar = this.#openReasoning.get(id);
    if (sofar === undefined || delta === "") return;
    this.#grow(id, delta, "a reasoning message");
    this.writer.emit({ type: "reasoning.delta", data: { runId: this.runId, messageId: id, delta } });
    this.#openReasoning.set(id, sofar + delta);
  }

  #reasoningEnd(id: string): void {
    const content = this.#openReasoning.get(id);
    if (content === undefined) return;
    this.#openReasoning.delete(id);
    this.writer.emit({ type: "reasoning.ended", data: { runId: this.runId, messageId: id } });
    const message: ReasoningMessage = { id, role: "reasoning", content };
    this.#append(message);
  }

  #callEnd(call: OpenCall): void {
    if (call.ended) return;
    call.ended = true;
    this.writer.emit({ type: "toolcall.ended", data: { runId: this.runId, toolCallId: call.id } });
    const toolCall: ToolCall = { id: call.id, type: "function", function: { name: call.name, arguments: call.args } };
    this.#appendAssistant(call.parentMessageId, (m) => ({ ...m, toolCalls: [...(m.toolCalls ?? []), toolCall] }));
  }

  /** Counts `delta` to the span `id`; throws the run's end when it would take it past messageBytes. */
  #grow(id: string, delta: string, what: string): void {
    const bytes = (this.#bytes.get(id) ?? 0) + Buffer.byteLength(delta);
    if (bytes > this.bounds.messageBytes) throw messageTooLarge(this.codes, this.bounds, what);
    this.#bytes.set(id, bytes);
  }

  #appendAssistant(id: string, change: (m: AssistantMessage) => AssistantMessage): void {
    const message = change(this.#assistant.get(id) ?? { id, role: "assistant" });
    this.#assistant.set(id, message);
    this.#append(message);
  }

  #append(message: Message): void {
    this.added.set(message.id, message);
    this.writer.emit({ type: "message.appended", data: { runId: this.runId, source: "agent", message } });
  }
}
