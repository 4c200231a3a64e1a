/**
 * A streaming tool call's predictive state, written into its run: PredictedState decides, this
 * keeps RunContext.state equal to the log and hands the state events to the run's writer, which
 * commits them with whatever else is pending (no await, no commit of their own). They are emitted
 * between the call's toolcall.args events and before its toolcall.ended, so every client gets the
 * STATE_DELTA frames before TOOL_CALL_END, and a reload mid-call folds them like any state event.
 *
 * A timer asks again when arguments arrived within the interval: a model that pauses mid-argument
 * still shows what it wrote. It is cleared at the call's end, however that comes.
 */
import type { RunContext } from "./run-context.ts";
import { PredictedState, type StateWrite } from "./predicted-state.ts";

export class ToolCallPrediction {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  private constructor(
    private readonly ctx: RunContext,
    private readonly predicted: PredictedState,
  ) {}

  /** The prediction for a call of `tool`, when the agent declared one for it. */
  static of(ctx: RunContext, tool: string): ToolCallPrediction | undefined {
    const rules = ctx.agent.predictState.filter((r) => r.tool === tool);
    return rules.length > 0 ? new ToolCallPrediction(ctx, new PredictedState(rules)) : undefined;
  }

  /** The call's arguments so far. */
  args(text: string): void {
    this.predicted.offer(text);
    if (this.#timer === undefined) this.#pump();
  }

  /** The arguments are complete: the final value, before the caller emits toolcall.ended. */
  finish(text: string): void {
    this.stop();
    this.#record(this.predicted.finish(text, this.ctx.state));
  }

  /** The call will not run (the LLM request failed or was cancelled): the keys go back. */
  withdraw(): void {
    this.stop();
    this.#record(this.predicted.withdraw(this.ctx.state));
  }

  /** Writes nothing more (the run stops, and resumes elsewhere from the log). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #pump(): void {
    this.#timer = undefined;
    if (this.#stopped || this.ctx.signal.aborted) return;
    const { write, retryInMs } = this.predicted.take(performance.now(), this.ctx.state);
    this.#record(write);
    if (retryInMs !== undefined) this.#timer = setTimeout(() => this.#pump(), retryInMs);
  }

  #record(write: StateWrite | undefined): void {
    if (!write) return;
    const { runId } = this.ctx;
    this.ctx.state = write.next;
    this.ctx.writer.emit(
      write.type === "state.patched"
        ? { type: "state.patched", data: { runId, patch: write.patch } }
        : { type: "state.set", data: { runId, state: write.state } },
    );
  }
}
