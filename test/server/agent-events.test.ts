/**
 * agentEvents (server/copilotkit/agent-events.ts): an @ag-ui/client agent object's run as the
 * engine pulls it. Real agents of both client lines (AbstractAgent subclasses whose run is an rxjs
 * Observable), their middlewares, the queue's bound at and past AGENT_EVENTS_MAX (a smaller bound
 * given here: the rule is the same), an abort that unsubscribes and aborts the agent, and a run
 * that errors without its RUN_ERROR.
 */
import { AbstractAgent as Agent100, type BaseEvent, type Middleware, type RunAgentInput } from "@ag-ui/client";
import { AbstractAgent as Agent0059 } from "@ag-ui/client-0059";
import { Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import { AGENT_EVENTS_MAX, agentEvents, type RunnableAgent } from "../../server/copilotkit/agent-events.ts";
import { RUNNER_CODES } from "../../server/copilotkit/app-runner.ts";
import { RunFailure } from "../../server/engine/errors.ts";
import { DEFAULT_FOREIGN_BOUNDS } from "../../server/engine/foreign/bounds.ts";

const input: RunAgentInput = { threadId: "t1", runId: "r1", messages: [{ id: "u1", role: "user", content: "hi" }], state: {}, tools: [], context: [], forwardedProps: {} };

/** Emits `count` content events synchronously, then RUN_FINISHED unless `hang`; records teardown and aborts. */
function agentOf(line: "1.0.0" | "0.0.59", count: number, opts: { hang?: boolean; fail?: Error } = {}) {
  const seen = { inputs: [] as RunAgentInput[], unsubscribed: 0, aborted: 0 };
  const Base = (line === "1.0.0" ? Agent100 : Agent0059) as unknown as typeof Agent100;
  class Scripted extends Base {
    run(given: RunAgentInput): Observable<BaseEvent> {
      seen.inputs.push(given);
      return new Observable<BaseEvent>((sub) => {
        sub.next({ type: "RUN_STARTED", threadId: given.threadId, runId: given.runId } as BaseEvent);
        for (let i = 0; i < count; i++) sub.next({ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: String(i) } as BaseEvent);
        if (opts.fail) sub.error(opts.fail);
        else if (!opts.hang) {
          sub.next({ type: "RUN_FINISHED", threadId: given.threadId, runId: given.runId } as BaseEvent);
          sub.complete();
        }
        return () => void seen.unsubscribed++;
      });
    }
    override abortRun(): void {
      seen.aborted++;
    }
  }
  return { agent: new Scripted() as unknown as RunnableAgent & Agent100, seen };
}

async function drain(events: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const e of events) out.push(e);
  return out;
}

describe.each(["1.0.0", "0.0.59"] as const)("agentEvents with an @ag-ui/client %s agent", (line) => {
  it("yields the agent's events in order for the input it is given, through the agent's middlewares", async () => {
    const { agent, seen } = agentOf(line, 3);
    const tagged: string[] = [];
    agent.use(((i: RunAgentInput, next: { run(i: RunAgentInput): Observable<BaseEvent> }) => {
      tagged.push(`outer:${i.runId}`);
      return next.run({ ...i, forwardedProps: { viaMiddleware: true } });
    }) as unknown as Middleware);
    const events = await drain(agentEvents(agent, input, new AbortController().signal, RUNNER_CODES, DEFAULT_FOREIGN_BOUNDS));
    expect(events.map((e) => (e as { type: string }).type)).toEqual(["RUN_STARTED", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "RUN_FINISHED"]);
    expect(tagged).toEqual(["outer:r1"]);
    expect(seen.inputs[0]).toMatchObject({ threadId: "t1", runId: "r1", messages: input.messages, forwardedProps: { viaMiddleware: true } });
    expect(seen.aborted).toBe(0);
  });

  it("holds at most `max` events unread: at the bound the run goes on, one past it fails and stops the agent", async () => {
    const max = 20;
    // RUN_STARTED + 18 contents + RUN_FINISHED = 20 events, all sent before the first is read.
    const atBound = agentOf(line, max - 2);
    expect(await drain(agentEvents(atBound.agent, input, new AbortController().signal, RUNNER_CODES, DEFAULT_FOREIGN_BOUNDS, max))).toHaveLength(max);
    const past = agentOf(line, max - 1);
    const failure = await drain(agentEvents(past.agent, input, new AbortController().signal, RUNNER_CODES, DEFAULT_FOREIGN_BOUNDS, max)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RunFailure);
    expect(failure).toMatchObject({ code: "RUNNER_RUN_ERROR", message: expect.stringContaining(`more than ${max} events`) });
    expect(past.seen.unsubscribed).toBe(1);
    expect(past.seen.aborted).toBeGreaterThanOrEqual(1);
    expect(AGENT_EVENTS_MAX).toBe(10_000);
  });

  it("holds at most runBytes of events unread: past it the run fails with the bound's code and variable, and the agent is stopped", async () => {
    // Each content event is {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"<i>"}: ~60 bytes.
    const bounds = { ...DEFAULT_FOREIGN_BOUNDS, runBytes: 1_000 };
    const small = agentOf(line, 5);
    expect(await drain(agentEvents(small.agent, input, new AbortController().signal, RUNNER_CODES, bounds))).toHaveLength(7);
    const big = agentOf(line, 100);
    const failure = await drain(agentEvents(big.agent, input, new AbortController().signal, RUNNER_CODES, bounds)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RunFailure);
    expect(failure).toMatchObject({ code: "RUNNER_OUTPUT_TOO_LARGE", message: expect.stringContaining("FOREIGN_RUN_MAX_BYTES") });
    expect(big.seen.aborted).toBeGreaterThanOrEqual(1);
  });

  it("an abort unsubscribes and aborts the agent where it runs", async () => {
    const { agent, seen } = agentOf(line, 1, { hang: true });
    const aborter = new AbortController();
    const got: unknown[] = [];
    const reading = (async () => {
      for await (const e of agentEvents(agent, input, aborter.signal, RUNNER_CODES, DEFAULT_FOREIGN_BOUNDS)) {
        got.push(e);
        if (got.length === 2) aborter.abort();
      }
    })();
    await reading;
    expect(got).toHaveLength(2);
    expect(seen.unsubscribed).toBe(1);
    expect(seen.aborted).toBeGreaterThanOrEqual(1);
  });

  it("a run that errors without its RUN_ERROR fails with the agent's own error, after the events it sent", async () => {
    const { agent } = agentOf(line, 1, { fail: new Error("the model provider refused the key") });
    const got: unknown[] = [];
    const failure = await (async () => {
      for await (const e of agentEvents(agent, input, new AbortController().signal, RUNNER_CODES, DEFAULT_FOREIGN_BOUNDS)) got.push(e);
    })().catch((e: unknown) => e);
    expect(got).toHaveLength(2);
    expect(failure).toMatchObject({ code: "RUNNER_RUN_ERROR", message: expect.stringContaining("the model provider refused the key") });
  });
});
