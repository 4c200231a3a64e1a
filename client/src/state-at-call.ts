/**
 * The shared state a generative UI card draws: the live state while its tool call runs, then the
 * state as that call left it (GET /api/threads/:id/state?toolCallId=), so that a later run's
 * changes to the same keys do not redraw an earlier run's card, live or after a reload. Rejected:
 * drawing `agent.state` in every card, which made each plan card show the latest plan.
 */
import { useEffect, useState } from "react";
import { getStateAtCall } from "./api.ts";
import { useThreadChrome } from "./chrome-context.ts";
import { useThreadAgent } from "./thread-agent.ts";

/** A call's final state does not change: fetched once per page, kept by thread and call. */
const finished = new Map<string, unknown>();

export function useStateAtCall(toolCallId: string): unknown {
  const { threadId, detail } = useThreadChrome();
  const agent = useThreadAgent();
  const call = detail?.toolCalls[toolCallId];
  // Over once the log gives the call any status but running; until then the live state is its own.
  const over = call !== undefined && call.status !== "running";
  const key = `${threadId}\u0000${toolCallId}`;
  const [own, setOwn] = useState<{ key: string; state: unknown } | null>(() => (finished.has(key) ? { key, state: finished.get(key) } : null));
  useEffect(() => {
    if (!over || own?.key === key) return;
    if (finished.has(key)) return setOwn({ key, state: finished.get(key) });
    let live = true;
    getStateAtCall(threadId, toolCallId)
      .then((r) => {
        if (!r.done) return; // its run goes on after all: the next refresh asks again
        finished.set(key, r.state);
        if (live) setOwn({ key, state: r.state });
      })
      // Until it is fetched the card draws the live state; the next view refresh tries again.
      .catch((err: unknown) => console.warn("could not read the state of the call", err));
    return () => {
      live = false;
    };
  }, [over, key, own?.key, threadId, toolCallId, detail]);
  return own?.key === key ? own.state : agent.state;
}
