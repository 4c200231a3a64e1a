/**
 * Whether the page's agent is busy with a run or a connect, as React state: CopilotKit's
 * `agent.isRunning` is a plain field, and effects that must wait for the agent to be idle (a
 * catch-up, showing another branch) need a render when it changes.
 */
import type { useAgent } from "@copilotkit/react-core/v2";
import { useEffect, useState } from "react";

export type Agent = ReturnType<typeof useAgent>["agent"];

export function useAgentBusy(agent: Agent): boolean {
  const [busy, setBusy] = useState(agent.isRunning);
  useEffect(() => {
    setBusy(agent.isRunning);
    const sub = agent.subscribe({
      onRunInitialized: () => setBusy(true),
      onRunFinalized: () => setBusy(false),
      onRunFailed: () => setBusy(false),
    });
    return () => sub.unsubscribe();
  }, [agent]);
  return busy;
}

/**
 * Whether the agent finished a run or a connect since `threadId` was shown: CopilotKit's chat
 * connects on its own when it opens a thread, and a second connect started meanwhile was seen
 * to leave the chat empty. Until then, the page leaves the agent to that first connect.
 */
export function useAgentSettledOnce(agent: Agent, threadId: string): boolean {
  const [settled, setSettled] = useState(false);
  useEffect(() => {
    setSettled(false);
    const sub = agent.subscribe({
      onRunFinalized: () => setSettled(true),
      onRunFailed: () => setSettled(true),
    });
    return () => sub.unsubscribe();
  }, [agent, threadId]);
  return settled;
}
