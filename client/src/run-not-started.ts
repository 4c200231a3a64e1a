/**
 * A run CopilotKit refused in the browser, before it asked the server anything: its client will
 * not start a run while the thread has an interrupt the run does not answer ("Thread has 1 pending
 * interrupt(s) not addressed by resume"), and throws from the run's set-up, before any of the
 * agent's run callbacks (onRunInitialized, onRunFailed, onRunFinalized). The one sign of it is
 * CopilotKit core's AGENT_RUN_FAILED error with no run initialized since the run was asked for.
 * The chip, which waited for a run callback to leave "Starting…", stayed there for good.
 */
import type { useCopilotKit } from "@copilotkit/react-core/v2";
import { useEffect, useRef } from "react";
import type { Agent } from "./agent-busy.ts";

type CopilotKit = ReturnType<typeof useCopilotKit>["copilotkit"];

/** CopilotKitCoreErrorCode.AGENT_RUN_FAILED (@copilotkit/core), by value: the enum is not exported from react-core. */
const AGENT_RUN_FAILED = "agent_run_failed";

/** Calls `onNotStarted` with CopilotKit's reason when a run of `agent` fails before it started. */
export function useRunNotStarted(copilotkit: CopilotKit, agent: Agent, onNotStarted: (error: Error) => void): void {
  const callback = useRef(onNotStarted);
  callback.current = onNotStarted;
  useEffect(() => {
    // "asked": a run was asked for and has not initialized; a connect does not ask.
    let asked = false;
    const mine = (a: { agentId?: string }) => a.agentId === agent.agentId;
    const core = copilotkit.subscribe({
      onAgentRunStarted: ({ agent: a }) => {
        if (mine(a)) asked = true;
      },
      onError: ({ code, context, error }) => {
        if (code !== AGENT_RUN_FAILED || context.agentId !== agent.agentId) return;
        const notStarted = asked;
        asked = false;
        if (notStarted) callback.current(error);
      },
    });
    const own = agent.subscribe({
      onRunInitialized: () => {
        asked = false;
      },
    });
    return () => {
      core.unsubscribe();
      own.unsubscribe();
    };
  }, [copilotkit, agent]);
}
