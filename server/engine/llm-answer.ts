/**
 * One LLM response as it streams in: each model part becomes its stream events (reasoning, text,
 * tool calls) at once, and the whole answer becomes the durable messages at the end. Kept apart
 * from llm-task.ts, which owns the task's lifecycle (task.created, failure, task.completed), so
 * that the bookkeeping of open spans does not interleave with the decisions about how a run ends.
 */
import type { AssistantMessage, Message, ReasoningMessage, ToolCall } from "@ag-ui/core";
import type { ModelPart } from "../models/model.ts";
import type { CutAnswer } from "./cut-answer.ts";
import type { RunContext } from "./run-context.ts";
import { ToolCallPrediction } from "./tool-call-prediction.ts";

interface OpenToolCall {
  id: string;
  /** the upstream's id, when the engine minted `id` instead (protocol/events.ts ToolCallOriginSchema) */
  providerId?: string;
  name: string;
  args: string;
  /** Writes the call's streaming arguments to state keys (AgentDefinition.predictState). */
  prediction?: ToolCallPrediction;
}

/** Every tool-call id the conversation already uses, on a call or on a result. */
function usedToolCallIds(messages: readonly Message[]): Set<string> {
  const used = new Set<string>();
  for (const m of messages) {
    if (m.role === "tool") used.add(m.toolCallId);
    else if (m.role === "assistant") for (const c of m.toolCalls ?? []) used.add(c.id);
  }
  return used;
}

export class LlmAnswer {
  /** The answer's text message, and the parent of its tool calls. */
  messageId: string;
  #text = "";
  /** none: no text.started yet; open: streaming; ended: its end was streamed (a resumed cut answer). */
  #textSpan: "none" | "open" | "ended" = "none";
  #reasoning: { id: string; content: string; open: boolean } | undefined;
  /** The adapter's opaque reasoning data of this request, in order (ModelPart providerData). */
  readonly #reasoningDetails: unknown[] = [];
  readonly #calls = new Map<number, OpenToolCall>();
  readonly #usedIds: Set<string>;

  constructor(
    private readonly ctx: RunContext,
    private readonly taskId: string,
  ) {
    this.messageId = ctx.ids.message();
    this.#usedIds = usedToolCallIds(ctx.messages);
  }

  /** Emits the stream events of one model part. */
  take(d: ModelPart): void {
    switch (d.type) {
      case "reasoning-delta":
        this.#reasoningDelta(d.delta, d.providerData);
        return;
      case "text-delta":
        this.#textDelta(d.delta);
        return;
      case "tool-call-start":
        this.#toolCallStart(d.index, d.id, d.name);
        return;
      case "tool-call-args-delta":
        this.#toolCallArgs(d.index, d.delta);
        return;
      case "usage":
        this.ctx.writer.emit({
          type: "usage.recorded",
          data: {
            runId: this.ctx.runId,
            taskId: this.taskId,
            usage: { inputTokens: d.inputTokens, outputTokens: d.outputTokens, totalTokens: d.totalTokens },
          },
        });
        return;
      // Calls end together when the response does (complete), after their predicted state settled.
      case "tool-call-end":
      case "finish":
        return;
    }
  }

  /**
   * Goes on in the messages a cut request streamed (answer-echo.ts decided the model answers the
   * same): their ids, the words clients have of them, whether their end was streamed. Nothing is
   * emitted for them; the next deltas add to them.
   */
  resume(cut: CutAnswer): void {
    if (cut.reasoning) this.#reasoning = { id: cut.reasoning.messageId, content: cut.reasoning.content, open: !cut.reasoning.ended };
    if (cut.text) {
      this.messageId = cut.text.messageId;
      this.#text = cut.text.content;
      this.#textSpan = cut.text.ended ? "ended" : "open";
    }
  }

  /** The run stops here and resumes later from the log: predictions write nothing more. */
  abandon(): void {
    for (const call of this.#calls.values()) call.prediction?.stop();
  }

  /**
   * Cancelled or failed mid-answer: the text clients already saw stays in the conversation, so a
   * reload shows the partial message that a client watching live ended with. The tool calls are
   * dropped, so what they predicted goes too.
   */
  keepPartial(): void {
    const { runId, writer } = this.ctx;
    for (const call of this.#calls.values()) call.prediction?.withdraw();
    this.#closeSpans();
    const reasoning = this.#reasoningMessage();
    if (reasoning) writer.emit({ type: "message.appended", data: { runId, source: "agent", message: reasoning } });
    if (this.#text !== "") {
      const partial: AssistantMessage = { id: this.messageId, role: "assistant", content: this.#text };
      writer.emit({ type: "message.appended", data: { runId, source: "agent", message: partial } });
    }
  }

  /** The response ended cleanly: closes every span and appends the answer's messages, which it returns. */
  complete(): Message[] {
    const { runId, writer } = this.ctx;
    this.#closeSpans();
    for (const call of this.#calls.values()) {
      call.prediction?.finish(call.args); // the final value lands before TOOL_CALL_END
      writer.emit({ type: "toolcall.ended", data: { runId, toolCallId: call.id } });
    }

    const added: Message[] = [];
    const reasoning = this.#reasoningMessage();
    if (reasoning) added.push(reasoning);
    const toolCalls: ToolCall[] = [...this.#calls.values()].map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.args },
      ...(c.providerId && { metadata: { providerToolCallId: c.providerId } }),
    }));
    // No text beside tool calls: no `content`, as every client that watched the stream built it
    // (TOOL_CALL_START creates the message without one), so a reload shows the same message.
    const text = this.#text;
    const assistant: AssistantMessage = { id: this.messageId, role: "assistant", ...((text !== "" || toolCalls.length === 0) && { content: text }) };
    if (toolCalls.length > 0) assistant.toolCalls = toolCalls;
    added.push(assistant);
    for (const message of added) {
      writer.emit({ type: "message.appended", data: { runId, source: "agent", message } });
    }
    return added;
  }

  #reasoningDelta(delta: string, providerData: unknown[] | undefined): void {
    const { runId, writer } = this.ctx;
    if (providerData) this.#reasoningDetails.push(...providerData);
    if (delta === "") {
      // Provider data only (a signature, an encrypted item): kept, nothing to show.
      if (providerData && !this.#reasoning) this.#reasoning = { id: this.ctx.ids.message(), content: "", open: false };
      return;
    }
    if (!this.#reasoning) {
      this.#reasoning = { id: this.ctx.ids.message(), content: "", open: true };
      writer.emit({ type: "reasoning.started", data: { runId, messageId: this.#reasoning.id } });
    }
    if (!this.#reasoning.open) return; // reasoning after the answer began: keep the first span only
    this.#reasoning.content += delta;
    writer.emit({ type: "reasoning.delta", data: { runId, messageId: this.#reasoning.id, delta } });
  }

  #textDelta(delta: string): void {
    const { runId, writer } = this.ctx;
    this.#closeReasoning();
    // Text after the end of a resumed message (only past a tool call the model started exactly
    // where the cut text ended): clients closed it, so it would show nowhere. Dropped.
    if (this.#textSpan === "ended") return;
    if (this.#textSpan === "none") {
      this.#textSpan = "open";
      writer.emit({ type: "text.started", data: { runId, messageId: this.messageId } });
    }
    this.#text += delta;
    writer.emit({ type: "text.delta", data: { runId, messageId: this.messageId, delta } });
  }

  #toolCallStart(index: number, upstreamId: string, name: string): void {
    this.#closeReasoning();
    // The upstream's id unless the thread already has it (or it gave none): then ours.
    const fresh = upstreamId !== "" && !this.#usedIds.has(upstreamId);
    const id = fresh ? upstreamId : this.ctx.ids.toolCall();
    const providerId = !fresh && upstreamId !== "" ? upstreamId : undefined;
    this.#usedIds.add(id);
    const prediction = ToolCallPrediction.of(this.ctx, name);
    this.#calls.set(index, { id, ...(providerId && { providerId }), name, args: "", ...(prediction && { prediction }) });
    this.ctx.writer.emit({
      type: "toolcall.started",
      data: {
        runId: this.ctx.runId,
        toolCallId: id,
        name,
        parentMessageId: this.messageId,
        ...(providerId && { providerToolCallId: providerId }),
      },
    });
  }

  #toolCallArgs(index: number, delta: string): void {
    const call = this.#calls.get(index);
    if (!call) return;
    call.args += delta;
    this.ctx.writer.emit({ type: "toolcall.args", data: { runId: this.ctx.runId, toolCallId: call.id, delta } });
    call.prediction?.args(call.args);
  }

  #closeReasoning(): void {
    if (this.#reasoning?.open) {
      this.#reasoning.open = false;
      this.ctx.writer.emit({ type: "reasoning.ended", data: { runId: this.ctx.runId, messageId: this.#reasoning.id } });
    }
  }

  /** Reasoning first, then text: the order in which a model sends them. */
  #closeSpans(): void {
    this.#closeReasoning();
    if (this.#textSpan !== "open") return;
    this.#textSpan = "ended";
    this.ctx.writer.emit({ type: "text.ended", data: { runId: this.ctx.runId, messageId: this.messageId } });
  }

  #reasoningMessage(): ReasoningMessage | undefined {
    if (!this.#reasoning) return undefined;
    return { id: this.#reasoning.id, role: "reasoning", content: this.#reasoning.content, ...encrypted(this.#reasoningDetails) };
  }
}

/**
 * The provider's reasoning items as the reasoning message's `encryptedValue` (AG-UI's field for
 * reasoning only the provider can read): stored with the conversation, so the next request can
 * carry them back (models/from-agui.ts), also after a restart or on another instance.
 */
function encrypted(details: unknown[]): { encryptedValue?: string } {
  return details.length > 0 ? { encryptedValue: JSON.stringify(details) } : {};
}
