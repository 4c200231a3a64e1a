/**
 * The coding page's fold of the agent's CUSTOM "terminal" and "artifact" events (streams.ts), for
 * the cards and the workspace panel. It subscribes to the CopilotKit agent, so what it holds
 * comes from the event stream: live runs, and after a reload the connect replay.
 */
import { useAgent } from "@copilotkit/react-core/v2";
import { createContext, useContext, useEffect, useReducer, type ReactNode } from "react";
import { useThreadChrome } from "../chrome-context.ts";
import { EMPTY_FOLD, foldCoding, type CodingEvent, type CodingFold } from "./streams.ts";

const CodingContext = createContext<CodingFold>(EMPTY_FOLD);

export function useCodingEvents(): CodingFold {
  return useContext(CodingContext);
}

type Action = CodingEvent | { kind: "reset" };

function reduce(fold: CodingFold, a: Action): CodingFold {
  return a.kind === "reset" ? EMPTY_FOLD : foldCoding(fold, a);
}

export function CodingEventsProvider({ children }: { children: ReactNode }) {
  const { agentId, threadId } = useThreadChrome();
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

  return <CodingContext.Provider value={fold}>{children}</CodingContext.Provider>;
}
