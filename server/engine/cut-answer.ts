/**
 * The answer a model request was streaming when its instance stopped (a crash, a lost lease, a
 * drain that ended mid-answer): the text and reasoning clients already have, which the log holds
 * as stream events but the conversation does not (no message.appended recorded it). The instance
 * that takes the run over re-issues the request and, when the model answers the same, streams
 * only what comes after these words (answer-echo.ts), so a client never sees them twice.
 *
 * Folded from the run's events after the thread's checkpoint (recovery reads them anyway). A
 * span leaves the fold when the conversation records its message, when a workflow.resumed did not
 * continue it (the projection closed it and superseded it for every client) or when it was
 * withdrawn.
 */
import type { StoredEvent } from "../../protocol/events.ts";

export interface CutSpan {
  messageId: string;
  /** What clients were sent of it. */
  content: string;
  /** Its end was streamed (text.ended / reasoning.ended): nothing may be added to it. */
  ended: boolean;
}

/** At most one reasoning span, then at most one text span: the shape of one answer's stream. */
export interface CutAnswer {
  reasoning?: CutSpan;
  text?: CutSpan;
}

export function cutAnswerIds(cut: CutAnswer): string[] {
  return [cut.reasoning?.messageId, cut.text?.messageId].filter((id): id is string => id !== undefined);
}

export class CutAnswerFold {
  readonly #spans = new Map<string, CutSpan & { kind: "text" | "reasoning" }>();
  /** Tool calls streamed and not recorded: a cut answer with these is not continued. */
  readonly #toolCalls = new Set<string>();

  constructor(readonly runId: string) {}

  push(e: StoredEvent): void {
    if ((e.data as { runId?: string }).runId !== this.runId) return;
    switch (e.type) {
      case "text.started":
      case "reasoning.started":
        this.#spans.set(e.data.messageId, { kind: e.type === "text.started" ? "text" : "reasoning", messageId: e.data.messageId, content: "", ended: false });
        return;
      case "text.delta":
      case "reasoning.delta": {
        const span = this.#spans.get(e.data.messageId);
        if (span) span.content += e.data.delta;
        return;
      }
      case "text.ended":
      case "reasoning.ended": {
        const span = this.#spans.get(e.data.messageId);
        if (span) span.ended = true;
        return;
      }
      case "toolcall.started":
        this.#toolCalls.add(e.data.toolCallId);
        return;
      case "message.appended": {
        const m = e.data.message;
        this.#spans.delete(m.id);
        if (m.role === "assistant") for (const c of m.toolCalls ?? []) this.#toolCalls.delete(c.id);
        return;
      }
      case "stream.withdrawn":
        for (const id of e.data.messageIds) this.#spans.delete(id);
        return;
      case "workflow.resumed": {
        const kept = new Set(e.data.continues);
        for (const id of [...this.#spans.keys()]) if (!kept.has(id)) this.#spans.delete(id);
        this.#toolCalls.clear();
        return;
      }
      case "task.completed":
      case "task.failed":
        // A settled task left nothing to continue: what it did not record is gone for clients
        // at the run's end (the projection's resync).
        this.#spans.clear();
        this.#toolCalls.clear();
        return;
    }
  }

  /**
   * The answer to continue, or undefined: nothing was cut, or the cut is not one the re-issued
   * request can go on from (a tool call was streaming; more spans than one answer makes; text
   * before reasoning). Those are superseded as a whole, as before continuation existed.
   */
  result(): CutAnswer | undefined {
    if (this.#toolCalls.size > 0 || this.#spans.size === 0) return undefined;
    const spans = [...this.#spans.values()];
    const reasoning = spans.filter((s) => s.kind === "reasoning");
    const text = spans.filter((s) => s.kind === "text");
    if (reasoning.length > 1 || text.length > 1) return undefined;
    if (reasoning.length === 1 && text.length === 1 && (spans[0]!.kind !== "reasoning" || !reasoning[0]!.ended)) return undefined;
    const strip = ({ messageId, content, ended }: CutSpan) => ({ messageId, content, ended });
    return { ...(reasoning[0] && { reasoning: strip(reasoning[0]) }), ...(text[0] && { text: strip(text[0]) }) };
  }
}
