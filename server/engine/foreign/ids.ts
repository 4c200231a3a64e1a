/**
 * The one rule for the ids a foreign agent gives its messages and tool calls: message and
 * tool-call ids are unique per thread (the log, the frames and every client pair things by them),
 * and a foreign agent only knows its own run. Many reuse ids across runs ("msg-1" every time).
 *
 * Rule: a foreign id is kept as it is unless the conversation already has it (a message id, a
 * tool-call id, or a tool result's call id) or this run already mapped another foreign id to it;
 * then it becomes `<id>-<the first 8 hex digits of the SHA-256 of the run id>` (then `-2`, `-3`...
 * should that be taken too). Within a run the mapping is fixed at first sight, so every event
 * naming the same foreign id names the same thread id, and the log records the result, so replay,
 * reload and every instance see the same ids.
 * Rejected: always prefixing the run id. It is simpler, but rewrites the ids of every well-behaved
 * agent (UUIDs), so the remote's own logs no longer match, and a `:` or `.` in the result is refused
 * by providers that check tool-call ids (Anthropic wants [a-zA-Z0-9_-]) when the remote sends the
 * conversation back to its model. Keeping fresh ids is also what the engine does with a model's
 * tool-call ids (llm-answer.ts).
 */
import { createHash } from "node:crypto";
import type { Message } from "@ag-ui/core";

export class ForeignIds {
  readonly #used = new Set<string>();
  readonly #mapped = new Map<string, string>();
  readonly #suffix: string;

  constructor(runId: string, conversation: readonly Message[]) {
    this.#suffix = createHash("sha256").update(runId).digest("hex").slice(0, 8);
    for (const m of conversation) {
      this.#used.add(m.id);
      if (m.role === "tool") this.#used.add(m.toolCallId);
      if (m.role === "assistant") for (const c of m.toolCalls ?? []) this.#used.add(c.id);
    }
  }

  /** The thread's id for a foreign id, minted on first sight. */
  of(foreignId: string): string {
    const known = this.#mapped.get(foreignId);
    if (known !== undefined) return known;
    let id = foreignId;
    for (let n = 1; this.#used.has(id); n++) id = n === 1 ? `${foreignId}-${this.#suffix}` : `${foreignId}-${this.#suffix}-${n}`;
    this.#used.add(id);
    this.#mapped.set(foreignId, id);
    return id;
  }

  /** Whether the foreign agent named this id in this run (it started or streamed to it). */
  seen(foreignId: string): boolean {
    return this.#mapped.has(foreignId);
  }

  /** A thread id for a part the foreign agent gave no id (a tool call without a parent message). */
  mint(prefix: string): string {
    let n = 1;
    while (this.#used.has(`${prefix}-${this.#suffix}-${n}`)) n++;
    const id = `${prefix}-${this.#suffix}-${n}`;
    this.#used.add(id);
    return id;
  }
}
