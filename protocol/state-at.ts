/**
 * The shared state as one tool call left it: the state right after the call's result, or, for a
 * call without one (cancelled, never run), at the end of the run that last took it up. What a
 * generative UI card of an earlier run draws, so that the next run's changes to the same keys do
 * not rewrite it. Rejected: keeping a copy of the state per run in the thread view, which costs
 * every reload a state per run whether a card asks or not.
 *
 * A fold over the log in order; `push` answers true once the call's end is reached (read no more).
 */
import type { Message } from "@ag-ui/core";
import type { StoredEvent } from "./events.ts";
import { endsRun } from "./lifecycle.ts";
import { applyStatePatch } from "./state.ts";

export class StateAtCallEnd {
  #state: unknown = undefined;
  #run: string | undefined;
  #seq = 0;
  #done = false;

  constructor(readonly toolCallId: string) {}

  get state(): unknown {
    return this.#state;
  }

  /** The position the state stands for (0 before any event). */
  get seq(): number {
    return this.#seq;
  }

  /** Whether the call's end was reached; false at the end of the log: its run is still going (or it is unknown). */
  get done(): boolean {
    return this.#done;
  }

  /** Whether the call was seen at all. */
  get seen(): boolean {
    return this.#run !== undefined;
  }

  push(e: StoredEvent): boolean {
    if (this.#done) return true;
    this.#seq = e.seq;
    if (e.type === "state.set") this.#state = e.data.state;
    else if (e.type === "state.patched") {
      const next = applyStatePatch(this.#state, e.data.patch);
      if (next) this.#state = next.value;
    } else if (e.type === "message.appended") {
      const m = e.data.message as Message;
      if (m.role === "assistant" && e.data.runId && m.toolCalls?.some((c) => c.id === this.toolCallId)) this.#run = e.data.runId;
      if (m.role === "tool" && m.toolCallId === this.toolCallId) this.#done = true;
    } else if (e.type === "task.created" && e.data.toolCallId === this.toolCallId) this.#run = e.data.runId;
    else if (endsRun(e) && this.#run !== undefined && (e.data as { runId: string }).runId === this.#run) this.#done = true;
    return this.#done;
  }
}
