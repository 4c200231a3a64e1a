/**
 * One thread as the server sees it: its row (status, tool calls, state) and its raw workflow
 * events, live from GET /api/threads/:id/events. Every batch of events refreshes the row, so the
 * status chrome follows the durable status, not the browser's guess.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { getThread, type ThreadDetail, type WorkflowEvent } from "./api.ts";
import { followSse } from "./sse.ts";

const MAX_EVENTS = 2000;

export interface ThreadView {
  detail: ThreadDetail | null;
  /** False until the first answer from the server. */
  loaded: boolean;
  events: WorkflowEvent[];
  /** Terminal output per tool call id, from `terminal.output` events. */
  terminal: Record<string, string>;
  connected: boolean;
  refresh(): void;
}

export function useThread(threadId: string): ThreadView {
  const [detail, setDetail] = useState<ThreadDetail | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [events, setEvents] = useState<WorkflowEvent[]>([]);
  const [terminal, setTerminal] = useState<Record<string, string>>({});
  const [connected, setConnected] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const current = useRef(threadId);
  current.current = threadId;

  const refresh = useCallback(() => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      const id = current.current;
      getThread(id)
        .then((d) => {
          if (current.current !== id) return;
          setDetail(d);
          setLoaded(true);
        })
        .catch(() => undefined);
    }, 80);
  }, []);

  useEffect(() => {
    setDetail(null);
    setLoaded(false);
    setEvents([]);
    setTerminal({});
    refresh();
    const stop = followSse(`/api/threads/${encodeURIComponent(threadId)}/events`, {
      onOpen: () => setConnected(true),
      onError: () => setConnected(false),
      onEvent(data) {
        const e = data as WorkflowEvent;
        setEvents((prev) => (prev.length >= MAX_EVENTS ? [...prev.slice(-MAX_EVENTS + 1), e] : [...prev, e]));
        if (e.type === "terminal.output") {
          const { toolCallId, data: chunk } = e.data as { toolCallId?: string; data?: string };
          if (toolCallId) setTerminal((t) => ({ ...t, [toolCallId]: (t[toolCallId] ?? "") + (chunk ?? "") }));
        }
        if (!e.type.startsWith("text.") && !e.type.startsWith("reasoning.") && e.type !== "toolcall.args") refresh();
      },
    });
    return () => {
      stop();
      clearTimeout(timer.current);
      setConnected(false);
    };
  }, [threadId, refresh]);

  return { detail, loaded, events, terminal, connected, refresh };
}
