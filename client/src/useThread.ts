/**
 * One thread as the server sees it: its row (status, tool calls, state) and its raw workflow
 * events, live from GET /api/threads/:id/events. Every batch of events refreshes the row, so the
 * status chrome follows the durable status, not the browser's guess.
 *
 * `exists: false` (a thread this tab minted, before its first run starts) asks the server
 * nothing: it would answer 404 and the browser would log each one as an error. The view is then
 * loaded and empty, and starts following as soon as `exists` turns true.
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

export function useThread(threadId: string, exists = true): ThreadView {
  const row = useThreadRow(threadId, exists);
  const log = useEventLog();
  const [connected, setConnected] = useState(false);
  const { refresh, after } = row;

  // A new thread that has just come into existence keeps its view (empty, NEW) until the
  // server's answer replaces it, rather than flashing "Loading…".
  const shownThread = useRef<string | null>(null);
  useEffect(() => {
    if (shownThread.current !== threadId) {
      shownThread.current = threadId;
      row.reset(exists);
      log.reset();
    }
    if (!exists) return;
    refresh();
    const stop = followSse(`/api/threads/${encodeURIComponent(threadId)}/events`, {
      onOpen: () => setConnected(true),
      onError: () => setConnected(false),
      onEvent(data) {
        const e = data as WorkflowEvent;
        log.push(e);
        if (!e.type.startsWith("text.") && !e.type.startsWith("reasoning.") && e.type !== "toolcall.args") after(e.seq);
      },
    });
    return () => {
      stop();
      row.cancel();
      setConnected(false);
    };
  }, [threadId, exists, refresh, after]);

  return { detail: row.detail, loaded: row.loaded, events: log.events, terminal: log.terminal, connected, refresh };
}

/**
 * The thread's row from GET /api/threads/:id. refresh() is debounced, so that a burst of events
 * costs one request, and ignores the answer for a thread the view has left meanwhile. after(seq)
 * asks only when the row read (or being read) may be older than that event: the live feed starts
 * by replaying the thread's events, which the first read already covers (its `lastSeq`); asking
 * on each of them was a second and third GET of the thread on every load.
 */
function useThreadRow(threadId: string, exists: boolean) {
  const [detail, setDetail] = useState<ThreadDetail | null>(null);
  const [loaded, setLoaded] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const current = useRef(threadId);
  current.current = threadId;
  const known = useRef(exists);
  known.current = exists;
  // The newest event seq the row must cover; what the last answer covered; whether a read is out.
  const want = useRef({ seq: -1, covered: -1, reading: false, again: false });

  const refresh = useCallback(() => {
    // Callers refresh on any run's end, CopilotKit's connect of a new thread included.
    if (!known.current) return;
    if (want.current.reading) {
      want.current.again = true;
      return;
    }
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      const id = current.current;
      want.current.reading = true;
      want.current.again = false;
      getThread(id)
        .then((d) => {
          if (current.current !== id) return;
          want.current.covered = Math.max(want.current.covered, d?.lastSeq ?? -1);
          setDetail(d);
          setLoaded(true);
        })
        // The next event schedules another refresh; until then the row shown is the last one read.
        .catch((err: unknown) => console.warn("could not refresh the thread", err))
        .finally(() => {
          if (current.current !== id) return;
          want.current.reading = false;
          if (want.current.again || want.current.seq > want.current.covered) refresh();
        });
    }, 80);
  }, []);

  const after = useCallback(
    (seq: number) => {
      want.current.seq = Math.max(want.current.seq, seq);
      if (want.current.reading || seq <= want.current.covered) return;
      refresh();
    },
    [refresh],
  );

  return {
    detail,
    loaded,
    refresh,
    after,
    /** Another thread is shown: nothing of the last one; a thread that does not exist yet is loaded (empty). */
    reset(exists: boolean) {
      want.current = { seq: -1, covered: -1, reading: false, again: false };
      setDetail(null);
      setLoaded(!exists);
    },
    /** The view stops following: a pending refresh is dropped. */
    cancel() {
      clearTimeout(timer.current);
    },
  };
}

/** The raw events, the last MAX_EVENTS of them, and the terminal output they carry per tool call. */
function useEventLog() {
  const [events, setEvents] = useState<WorkflowEvent[]>([]);
  const [terminal, setTerminal] = useState<Record<string, string>>({});
  return {
    events,
    terminal,
    push(e: WorkflowEvent) {
      setEvents((prev) => (prev.length >= MAX_EVENTS ? [...prev.slice(-MAX_EVENTS + 1), e] : [...prev, e]));
      if (e.type === "terminal.output") {
        const { toolCallId, data: chunk } = e.data as { toolCallId?: string; data?: string };
        if (toolCallId) setTerminal((t) => ({ ...t, [toolCallId]: (t[toolCallId] ?? "") + (chunk ?? "") }));
      }
    },
    reset() {
      setEvents([]);
      setTerminal({});
    },
  };
}
