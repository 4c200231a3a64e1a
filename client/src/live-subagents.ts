/**
 * The subagent runs as CopilotKit's own stream shows them, before the log's feed (useThread.ts)
 * has the same events: the CUSTOM `threadline:subagent` frames (a legacy client's form of
 * SUBAGENT_STARTED / FINISHED / ERROR, protocol/project-subagents.ts) and the messages that start
 * while a child is open. Those frames come in the same stream as the child's messages and before
 * them, so a child's message is known to be a child's the moment it appears, never drawn as a
 * top-level turn first. While children are open the parent writes no message of its own (it
 * waits for their results), so a message started then is a child's: whose, when one child is
 * open; when several are, the log's feed says which a moment later (subagent-runs.ts).
 */
import { useEffect, useState } from "react";
import { SUBAGENT_CUSTOM_EVENT } from "../../protocol/project-subagents.ts";
import type { useThreadAgent } from "./thread-agent.ts";
import { parentToolCallIdOf, type SubagentOutcome, type SubagentRun } from "./subagent-runs.ts";

export interface LiveSubagents {
  runs: ReadonlyMap<string, SubagentRun>;
  /** Message id -> child run id, when one child was open as it started. */
  childOf: ReadonlyMap<string, string>;
  /** Messages started while several children were open: a child's, not yet known whose. */
  pending: ReadonlySet<string>;
}

const NONE: LiveSubagents = { runs: new Map(), childOf: new Map(), pending: new Set() };

interface Frame {
  type?: string;
  subagentRunId?: string;
  name?: string;
  parentToolCallId?: string;
  outcome?: { type?: string };
  code?: string;
}

function outcomeOf(f: Frame): SubagentOutcome {
  if (f.type === "SUBAGENT_FINISHED") return f.outcome?.type === "suspended" ? "suspended" : "success";
  return f.code === "CANCELLED" ? "cancelled" : "failed";
}

export function useLiveSubagents(agent: ReturnType<typeof useThreadAgent>, threadId: string): LiveSubagents {
  const [live, setLive] = useState<LiveSubagents>(NONE);
  useEffect(() => {
    setLive(NONE);
    const open = new Set<string>();
    const started = (messageId: string | undefined) => {
      if (!messageId || open.size === 0) return;
      const only = open.size === 1 ? [...open][0]! : undefined;
      setLive((l) => (only ? { ...l, childOf: new Map(l.childOf).set(messageId, only) } : { ...l, pending: new Set(l.pending).add(messageId) }));
    };
    const sub = agent.subscribe({
      onCustomEvent: ({ event }) => {
        if (event.name !== SUBAGENT_CUSTOM_EVENT) return;
        const f = (event.value ?? {}) as Frame;
        const id = f.subagentRunId;
        if (!id) return;
        if (f.type === "SUBAGENT_STARTED") open.add(id);
        else open.delete(id);
        setLive((l) => {
          const was = l.runs.get(id) ?? { childRunId: id, parentToolCallId: f.parentToolCallId ?? parentToolCallIdOf(id) };
          const run: SubagentRun = f.type === "SUBAGENT_STARTED" ? { ...was, ...(f.name && { name: f.name }), outcome: undefined } : { ...was, outcome: outcomeOf(f) };
          return { ...l, runs: new Map(l.runs).set(id, run) };
        });
      },
      onTextMessageStartEvent: ({ event }) => started(event.messageId),
      onToolCallStartEvent: ({ event }) => started(event.parentMessageId),
      onRunFinalized: () => open.clear(),
      onRunFailed: () => open.clear(),
    });
    return () => sub.unsubscribe();
  }, [agent, threadId]);
  return live;
}
