/**
 * The threads the server knows, newest activity first, with their titles and status; plus "New
 * thread", a search by title and the archived threads on request (ThreadItem.tsx: one row). The
 * page's own thread is always in the list: as the server has it when it is not listed (archived,
 * or beyond the first page), "New conversation" only while it has no run. A search or the
 * archived view with nothing in it says so; a delete waits for its Undo (DeleteUndo.tsx).
 */
import { useEffect, useState } from "react";
import { listThreads, type ThreadListItem } from "../api.ts";
import { useThreadChrome } from "../chrome-context.ts";
import { UNTITLED } from "../thread-title.ts";
import { usePendingDeletes } from "./DeleteUndo.tsx";
import { StatusChip, ThreadItem } from "./ThreadItem.tsx";

function ago(iso: string, now: number): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return new Date(iso).toLocaleDateString();
}

interface Props {
  /** Only this agent's threads: each page talks to one agent. */
  agentId: string;
  currentId: string;
  /** Changes whenever the current thread's status does, to refresh the list at once. */
  pulse: string;
  onSelect(threadId: string): void;
  onNew(): void;
  /** A thread was renamed, archived or deleted here (the page's own thread's title may have changed). */
  onChanged(): void;
}

export function ThreadList({ agentId, currentId, pulse, onSelect, onNew, onChanged }: Props) {
  const [threads, setThreads] = useState<ThreadListItem[]>([]);
  const [now, setNow] = useState(Date.now());
  const [error, setError] = useState<string | null>(null);
  const [query, setQuery] = useState("");
  const [archived, setArchived] = useState(false);
  const [changes, setChanges] = useState(0);
  /** The search and view the shown rows answer: an empty result is reported only for its own query. */
  const [answered, setAnswered] = useState<string | null>(null);
  // The page's own thread shows what the top bar shows, from the same owner (the thread's view
  // and the run this page sent), not the list's row: that one is as old as the last listing.
  const { status, chrome, detail } = useThreadChrome();
  const here = { status, words: chrome };
  const changed = () => {
    setChanges((n) => n + 1);
    onChanged();
  };
  const deletes = usePendingDeletes({
    onSent: changed,
    onError: setError,
    // The page left its thread when it was deleted: Undo brings the person back to it.
    onUndone: (threadId, wasCurrent) => {
      setChanges((n) => n + 1);
      if (wasCurrent) onSelect(threadId);
    },
  });
  const filter = `${archived}:${query.trim()}`;

  useEffect(() => {
    let live = true;
    const load = () =>
      listThreads(50, { q: query.trim() || undefined, archived })
        .then((t) => {
          if (!live) return;
          setThreads(t.filter((row) => row.agentId === agentId));
          setAnswered(filter);
          setNow(Date.now());
          setError(null);
        })
        .catch((err: Error) => live && setError(err.message));
    void load();
    const timer = setInterval(load, 4000);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [pulse, agentId, query, archived, changes]);

  const rows = threads.filter((t) => t.threadId !== deletes.pendingId);
  // The page's thread when the list does not have it: as the server has it (archived, say), else
  // untitled (a new one); not in a search or the archived list, which show what matched only.
  const listed = rows.some((t) => t.threadId === currentId) || archived || query.trim() !== "" || deletes.pendingId === currentId;
  const unlisted = listed ? null : detail && detail.threadId === currentId ? detail : "untitled";
  const empty = !error && answered === filter && rows.length === 0 && (archived || query.trim() !== "");
  return (
    <nav className="threads" data-testid="thread-list" aria-label="Threads">
      <button type="button" className="btn btn-primary new-thread" data-testid="new-thread" onClick={onNew}>
        + New thread
      </button>
      <input
        type="search"
        className="thread-search"
        data-testid="thread-search"
        aria-label="Search threads by title"
        placeholder="Search by title…"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
      />
      <label className="muted small">
        <input type="checkbox" data-testid="show-archived" checked={archived} onChange={(e) => setArchived(e.target.checked)} /> Archived
      </label>
      {error && <p className="error-text">{error}</p>}
      {/* Always there, so that a screen reader hears the message when a search comes back empty. */}
      <p className="muted small thread-list-empty" data-testid="thread-list-empty" role="status">
        {empty && (query.trim() !== "" ? `No ${archived ? "archived " : ""}conversations match “${query.trim()}”.` : "No archived conversations.")}
      </p>
      <ul>
        {unlisted === "untitled" && (
          <li data-testid="thread-item" data-thread-id={currentId} data-status={status} data-label={chrome.label}>
            <div className="thread current" aria-current="page">
              <span className="thread-title">{status === "LOADING" ? "…" : UNTITLED}</span>
              <StatusChip words={chrome} />
            </div>
          </li>
        )}
        {(unlisted && unlisted !== "untitled" ? [unlisted, ...rows] : rows).map((t) => (
          <ThreadItem
            key={t.threadId}
            thread={t}
            current={t.threadId === currentId}
            shown={t.threadId === currentId ? here : undefined}
            age={ago(t.updatedAt, now)}
            onSelect={onSelect}
            onError={setError}
            onChanged={changed}
            onDelete={(threadId, title) => {
              deletes.remove(threadId, title, threadId === currentId);
              // The page's own thread is going: a new one takes its place (Undo comes back to it).
              if (threadId === currentId) onNew();
            }}
          />
        ))}
      </ul>
      {deletes.toast}
    </nav>
  );
}
