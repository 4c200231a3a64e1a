/**
 * A foreign agent that runs in this process (agentRunner(): the agent an application's CopilotKit
 * runtime hands over for one run), as the engine executes it: its events for the run's input,
 * the codes its failures carry, and the RUN_ERROR recovery ends its run with when the instance
 * running it stops. Only that instance holds the agent object, so no other can go on with the
 * run; the error travels in the run's run.accepted, because the agent is in no registry that
 * recovery on another instance could ask (it would answer AGENT_NOT_FOUND, which is not why).
 */
import type { RunAgentInput } from "@ag-ui/core";
import type { ForeignBounds } from "./bounds.ts";
import type { ForeignCodes } from "./ingest.ts";

/**
 * The agent's AG-UI events for `input`; `signal` aborts when the run is cancelled or cut.
 * `bounds`: what the run may write, so a source that queues events can hold its queue to them.
 * `traceHeaders`: the run's W3C trace context, for the requests the agent makes.
 */
export type ForeignEvents = (input: RunAgentInput, signal: AbortSignal, bounds: ForeignBounds, traceHeaders: Record<string, string>) => AsyncIterable<unknown>;

export interface ForeignSource {
  events: ForeignEvents;
  codes: ForeignCodes;
  /** What recovery ends the run with when its instance stops (kept in run.accepted as `onLost`). */
  lost: { code: string; message: string };
}
