/** Which loop runs an agent: the engine's own, a remote's stream, or a foreign source's. */
import { runForeign, runRemote } from "./foreign/remote-run.ts";
import type { RunContext } from "./run-context.ts";
import { runLoop, type RunOutcome } from "./run-loop.ts";

/**
 * An agent's run in a context: a remote agent's is its endpoint's stream, an in-process foreign
 * agent's its source's, not the engine's loop (foreign/remote-run.ts). The run's own agent and
 * every subagent (subagent-task.ts) run through here.
 */
export function runAgentIn(ctx: RunContext): Promise<RunOutcome> {
  const { remote, foreign } = ctx.agent;
  return foreign ? runForeign(ctx, foreign.events, foreign.codes) : remote ? runRemote(ctx, remote) : runLoop(ctx);
}
