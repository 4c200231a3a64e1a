/**
 * The thread's subagent runs for the chat: which messages are a child's (never a top-level turn)
 * and, per parent tool call, its child run and the child's messages (drawn in that call's card,
 * components/SubagentCard.tsx).
 *
 * Attribution comes from the thread's own log (subagent-runs.ts: the events feed the page already
 * follows, and the branch's messages from GET /api/threads/:id, which both carry
 * `subagentRunId`), exact for every message, live and after a reload; the CUSTOM frames of
 * CopilotKit's stream (live-subagents.ts) only close the gap until the feed has the same event.
 * Rejected: attributing from the CUSTOM frames alone, which cannot say which of two children
 * running at once a message is (the legacy stream carries no `subagentRunId`), and are not there
 * for a thread whose connect sends a snapshot; and asking for AG-UI 1.0 from CopilotKit's client
 * (0.0.59 speaks none, and would refuse SUBAGENT_* frames).
 */
import { createContext, useContext, useMemo, useRef } from "react";
import type { ThreadDetail, WorkflowEvent } from "./api.ts";
import { type LiveSubagents, useLiveSubagents } from "./live-subagents.ts";
import { childRunOfTask, EMPTY_INDEX, indexSubagents, sameIndex, type SubagentIndex, type SubagentRun } from "./subagent-runs.ts";
import type { useThreadAgent } from "./thread-agent.ts";

export interface Subagents {
  /** The child run a message belongs to, when known (undefined: not a child's, or not yet known whose). */
  childRunOf(messageId: string): string | undefined;
  /** Whether a message is a child's (known whose or not): the chat never shows it as a turn. */
  isChild(messageId: string): boolean;
  /** The run by its id: the log's view, its live frames' outcome first while the log lags. */
  run(childRunId: string): SubagentRun | undefined;
}

/** The log's word first; the live frames' guess only for a message the log does not know yet. */
function subagentsOf(log: SubagentIndex, live: LiveSubagents): Subagents {
  const guess = (id: string) => !log.own.has(id);
  const childRunOf = (id: string) => log.childOf.get(id) ?? childRunOfTask(id) ?? (guess(id) ? live.childOf.get(id) : undefined);
  return {
    childRunOf,
    isChild: (id) => childRunOf(id) !== undefined || (live.pending.has(id) && guess(id)),
    run(childRunId) {
      const fromLog = log.runs.get(childRunId);
      const fromLive = live.runs.get(childRunId);
      if (!fromLog) return fromLive;
      return { ...fromLive, ...fromLog, outcome: fromLog.outcome ?? fromLive?.outcome };
    },
  };
}

export const SubagentsContext = createContext<Subagents>(subagentsOf(EMPTY_INDEX, { runs: new Map(), childOf: new Map(), pending: new Set() }));

export function useSubagents(): Subagents {
  return useContext(SubagentsContext);
}

/**
 * The thread's runs, for SubagentsContext; a new value only when an attribution or an outcome
 * changed, not on every streamed event the log's feed brings.
 */
export function useSubagentIndex(agent: ReturnType<typeof useThreadAgent>, threadId: string, events: readonly WorkflowEvent[], detail: ThreadDetail | null): Subagents {
  const live = useLiveSubagents(agent, threadId);
  const last = useRef<SubagentIndex>(EMPTY_INDEX);
  const log = useMemo(() => {
    const next = indexSubagents(events, detail?.messages ?? []);
    if (!sameIndex(last.current, next)) last.current = next;
    return last.current;
  }, [events, detail]);
  return useMemo(() => subagentsOf(log, live), [log, live]);
}
