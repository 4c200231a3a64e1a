/**
 * An AG-UI agent object's run (any @ag-ui/client AbstractAgent: HttpAgent, CopilotKit's
 * BuiltInAgent, LangGraph, Mastra...) as the async iterable the engine ingests
 * (engine/foreign/ingest.ts): the agent's `run(input)` Observable through the middlewares the
 * runtime attached to it (`agent.use`, chained as the client's own runAgent chains them), so they
 * apply as under CopilotKit's own runner. Rejected: `agent.runAgent`, whose verify and apply
 * stages fail a whole run on an event after its end (ingestion ignores those, as for remote
 * agents) and deliver events through asynchronous subscribers that can lose the end to the error.
 *
 * The agent pushes; the engine pulls. Events wait in a queue of at most `max` (AGENT_EVENTS_MAX)
 * events and the run's runBytes (FOREIGN_RUN_MAX_BYTES, as their JSON): an agent that outruns
 * the log by more than that is unsubscribed and its run fails, rather than holding an unbounded
 * queue in memory (a run that queued more bytes than it may write would fail on them anyway). Rejected: dropping events past the bound (the log would
 * hold a different run from the one the agent made). When `signal` aborts (cancel, a lost
 * lease, a drain), the subscription ends and the agent is aborted where it runs (`abortRun`).
 */
import type { RunAgentInput } from "@ag-ui/core";
import { RunFailure } from "../engine/errors.ts";
import { type ForeignBounds, runTooLarge } from "../engine/foreign/bounds.ts";
import type { ForeignCodes } from "../engine/foreign/ingest.ts";

/** Events an agent may have sent that the log has not taken yet; past it, the run fails. */
export const AGENT_EVENTS_MAX = 10_000;

/**
 * What the runner uses of an @ag-ui/client AbstractAgent (0.0.x and 1.x alike). Its run is an rxjs
 * Observable, described by the little used of it: threadline's declarations cannot name rxjs
 * (only CopilotKit's runtime, an optional peer, brings it).
 */
export interface RunnableAgent {
  run(input: RunAgentInput): EventSource;
  abortRun(): void;
}

interface Subscription {
  unsubscribe(): void;
}

interface EventSource {
  subscribe(observer: { next(event: unknown): void; error(err: unknown): void; complete(): void }): Subscription;
}

/** A middleware as the client chains them (`Middleware.run(input, next)`). */
interface ChainedMiddleware {
  run(input: RunAgentInput, next: Chain): EventSource;
}
type Chain = { run(input: RunAgentInput): EventSource };

/**
 * An agent that makes HTTP requests with headers of its own (@ag-ui/client's HttpAgent, and the
 * agents built on it) sends the run's trace context with them, so the agent's server joins the
 * run's trace. The object is the runtime's clone for this one request, so no other run sees it.
 * Other agents are left as they are: what they call is theirs to instrument.
 */
export function withTraceHeaders(agent: RunnableAgent, traceHeaders: Record<string, string>): RunnableAgent {
  const own = agent as RunnableAgent & { headers?: unknown };
  if (Object.keys(traceHeaders).length > 0 && typeof own.headers === "object" && own.headers !== null) {
    own.headers = { ...(own.headers as Record<string, string>), ...traceHeaders };
  }
  return agent;
}

export async function* agentEvents(agent: RunnableAgent, input: RunAgentInput, signal: AbortSignal, codes: ForeignCodes, bounds: ForeignBounds, max = AGENT_EVENTS_MAX): AsyncGenerator<unknown, void, undefined> {
  const queue: { event: unknown; bytes: number }[] = [];
  let queuedBytes = 0;
  let overflowed: "events" | "bytes" | undefined;
  let ended: { failure?: unknown } | undefined;
  let wake: (() => void) | undefined;
  const nudge = () => {
    wake?.();
    wake = undefined;
  };
  let subscription: Subscription | undefined;
  const stop = () => {
    subscription?.unsubscribe();
    stopAgent(agent);
  };
  const abort = () => {
    stop();
    nudge();
  };
  signal.addEventListener("abort", abort, { once: true });
  try {
    // `middlewares` is the client's own (private in its types, the same in 0.0.x and 1.x): the
    // chain its runAgent builds, first middleware outermost, the agent's run innermost.
    const middlewares = (agent as unknown as { middlewares?: ChainedMiddleware[] }).middlewares ?? [];
    const chain = middlewares.reduceRight<Chain>((next, m) => ({ run: (i) => m.run(i, next) }), agent);
    subscription = chain.run(structuredClone(input)).subscribe({
      next: (event) => {
        if (overflowed) return;
        const bytes = jsonBytes(event);
        if (queue.length >= max) overflowed = "events";
        else if (queuedBytes + bytes > bounds.runBytes) overflowed = "bytes";
        if (overflowed) stop();
        else {
          queue.push({ event, bytes });
          queuedBytes += bytes;
        }
        nudge();
      },
      error: (failure: unknown) => {
        ended = { failure };
        nudge();
      },
      complete: () => {
        ended = {};
        nudge();
      },
    });
    // An agent that overflowed while subscribe() was still emitting (a synchronous source).
    if (overflowed) subscription.unsubscribe();
    for (;;) {
      while (queue.length > 0) {
        const next = queue.shift()!;
        queuedBytes -= next.bytes;
        yield next.event;
      }
      if (overflowed === "bytes") throw runTooLarge(codes, bounds);
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
    if (!ended) stop();
  }
}

/** An event's size as ingestion will count it; 0 for one that is not JSON (ingestion refuses it). */
function jsonBytes(event: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(event) ?? "");
  } catch {
    return 0;
  }
}

function stopAgent(agent: RunnableAgent): void {
  try {
    agent.abortRun();
  } catch {
    // An agent whose abort throws is already stopped or cannot be; the run ends either way.
  }
}
