/**
 * An AG-UI agent object's run (any @ag-ui/client AbstractAgent: HttpAgent, CopilotKit's
 * BuiltInAgent, LangGraph, Mastra...) as the async iterable the engine ingests
 * (engine/foreign/ingest.ts). The agent runs through its own `runAgent`, so the middlewares the
 * runtime attached to it (`agent.use`) apply, as they would under CopilotKit's own runner.
 * Rejected: subscribing to `agent.run(input)` directly, which skips them.
 *
 * The agent pushes; the engine pulls. Events wait in a queue of at most `max` (AGENT_EVENTS_MAX):
 * an agent that outruns the log by more than that is stopped and its run fails, rather than
 * holding an unbounded queue in memory. Rejected: dropping events past the bound (the log would
 * hold a different run from the one the agent made). When `signal` aborts (cancel, a lost
 * lease, a drain), the agent's run is aborted where it runs (`abortRun`).
 */
import type { RunAgentInput } from "@ag-ui/core";
import { RunFailure } from "../engine/errors.ts";
import type { ForeignCodes } from "../engine/foreign/ingest.ts";

/** Events an agent may have sent that the log has not taken yet; past it, the run fails. */
export const AGENT_EVENTS_MAX = 10_000;

/** What the runner uses of an @ag-ui/client AbstractAgent (0.0.x and 1.x alike). */
export interface RunnableAgent {
  threadId: string;
  setMessages(messages: never[]): void;
  setState(state: never): void;
  runAgent(parameters: Record<string, unknown>, subscriber: { onEvent(p: { event: unknown }): void }): Promise<unknown>;
  abortRun(): void;
}

export async function* agentEvents(agent: RunnableAgent, input: RunAgentInput, signal: AbortSignal, codes: ForeignCodes, max = AGENT_EVENTS_MAX): AsyncGenerator<unknown, void, undefined> {
  const queue: unknown[] = [];
  let overflowed = false;
  let ended: { failure?: unknown } | undefined;
  let wake: (() => void) | undefined;
  const nudge = () => {
    wake?.();
    wake = undefined;
  };
  const abort = () => {
    stopAgent(agent);
    nudge();
  };
  signal.addEventListener("abort", abort, { once: true });
  // The agent starts from the log's conversation and state (remoteInput), not from what the
  // client sent to the runtime: a follow-up carries every earlier turn, from any instance.
  agent.threadId = input.threadId;
  agent.setMessages(structuredClone(input.messages) as never[]);
  agent.setState(structuredClone(input.state ?? {}) as never);
  const running = agent.runAgent(
    {
      runId: input.runId,
      tools: input.tools,
      context: input.context,
      forwardedProps: input.forwardedProps,
      ...(input.resume !== undefined && { resume: input.resume }),
    },
    {
      onEvent: ({ event }) => {
        if (overflowed) return;
        if (queue.length >= max) {
          overflowed = true;
          stopAgent(agent);
        } else queue.push(event);
        nudge();
      },
    },
  );
  running.then(
    () => {
      ended = {};
      nudge();
    },
    (failure: unknown) => {
      ended = { failure };
      nudge();
    },
  );
  try {
    for (;;) {
      while (queue.length > 0) yield queue.shift();
      if (overflowed) {
        throw new RunFailure(codes.failed, `${codes.name} sent more than ${max} events faster than they could be written; it was stopped. Send your message again; if it keeps happening, check the agent.`);
      }
      if (signal.aborted) return;
      if (ended) {
        // A run that failed without its RUN_ERROR (the agent threw): its own error, as the run's.
        if (ended.failure !== undefined) {
          const why = ended.failure instanceof Error ? ended.failure.message : String(ended.failure);
          throw new RunFailure(codes.failed, `${codes.name} failed: ${why}. Send your message again; if it keeps failing, check the agent's logs.`, { cause: ended.failure });
        }
        return;
      }
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    signal.removeEventListener("abort", abort);
    // The engine stopped reading before the agent ended (its RUN_FINISHED was taken, or the run
    // failed on a malformed event): nothing else will read the rest.
    if (!ended) stopAgent(agent);
  }
}

function stopAgent(agent: RunnableAgent): void {
  try {
    agent.abortRun();
  } catch {
    // An agent whose abort throws is already stopped or cannot be; the run ends either way.
  }
}
