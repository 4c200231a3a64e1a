/**
 * The coding page's fold of the agent's CUSTOM "terminal" and "artifact" events (streams.ts), for
 * the cards and the workspace panel. It subscribes to the CopilotKit agent, so what it holds
 * comes from the event stream: live runs, and after a reload the connect replay. `logged` holds
 * the same outputs read from the log once the thread is known (logged-outputs.ts): what finished
 * runs showed live, which a reload's replay no longer streams.
 */
import { useAgent } from "@copilotkit/react-core/v2";
import { createContext, useContext, useEffect, useMemo, useReducer, useState, type ReactNode } from "react";
import { isActive } from "../../../protocol/lifecycle.ts";
import { useThreadChrome } from "../chrome-context.ts";
import { readLoggedOutputs } from "./logged-outputs.ts";
import { EMPTY_FOLD, foldCoding, type CodingEvent, type CodingFold } from "./streams.ts";

export interface CodingView extends CodingFold {
  logged: CodingFold;
}

const CodingContext = createContext<CodingView>({ ...EMPTY_FOLD, logged: EMPTY_FOLD });

export function useCodingEvents(): CodingView {
  return useContext(CodingContext);
}

/**
 * The thread's logged outputs, read once the thread exists on the server, again each time a run
 * of it settles (`settled` changes), and for another thread. Re-read at a run's end because the
 * live fold can lose a finished run's chunks: a catch-up connect after the run replays it as a
 * snapshot whose RUN_STARTED forgets them (streams.ts), and the read at page load was too early
 * to hold them. Rejected: keeping chunks across a repeated RUN_STARTED, which would double them
 * when a connect really replays the run from its start.
 */
function useLoggedOutputs(threadId: string, exists: boolean, settled: string): CodingFold {
  const [logged, setLogged] = useState<{ threadId: string; fold: CodingFold } | null>(null);
  useEffect(() => {
    if (!exists) return;
    const stop = new AbortController();
    readLoggedOutputs(threadId, stop.signal)
      .then((fold) => setLogged({ threadId, fold }))
      // The cards then draw from the results, as before; logged, not shown.
      .catch((err: unknown) => stop.signal.aborted || console.warn("could not read the thread's outputs", err));
    return () => stop.abort();
  }, [threadId, exists, settled]);
  return logged?.threadId === threadId ? logged.fold : EMPTY_FOLD;
}

type Action = CodingEvent | { kind: "reset" };

function reduce(fold: CodingFold, a: Action): CodingFold {
  return a.kind === "reset" ? EMPTY_FOLD : foldCoding(fold, a);
}

export function CodingEventsProvider({ children }: { children: ReactNode }) {
  const { agentId, threadId, detail } = useThreadChrome();
  const { agent } = useAgent({ agentId });
  const [fold, dispatch] = useReducer(reduce, EMPTY_FOLD);

  useEffect(() => dispatch({ kind: "reset" }), [threadId]);
  useEffect(() => {
    const sub = agent.subscribe({
      onRunStartedEvent: ({ event }) => {
        dispatch({ kind: "runStarted", runId: event.runId });
      },
      onCustomEvent: ({ event }) => {
        dispatch({ kind: "custom", name: event.name, value: event.value });
      },
    });
    return () => sub.unsubscribe();
  }, [agent]);

  // A run's end (a settled status at a new position): its outputs are in the log now.
  const settled = detail && !isActive(detail.status) ? `${detail.status}@${detail.lastSeq}` : "active";
  const logged = useLoggedOutputs(threadId, detail !== null, settled);
  const view = useMemo(() => ({ ...fold, logged }), [fold, logged]);
  return <CodingContext.Provider value={view}>{children}</CodingContext.Provider>;
}
