/**
 * The threads the server knows, newest activity first, with their titles and status; plus "New
 * thread", a search by title and the archived threads on request (ThreadItem.tsx: one row).
 */
import { useEffect, useState } from "react";
import { listThreads, type ThreadListItem } from "../api.ts";
import { useThreadChrome } from "../chrome-context.ts";
import { UNTITLED } from "../thread-title.ts";
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
  // The page's own thread shows what the top bar shows, from the same owner (the thread's view
  // and the run this page sent), not the list's row: that one is as old as the last listing.
  const { status, chrome } = useThreadChrome();
  const here = { status, words: chrome };

  useEffect(() => {
    let live = true;
    const load = () =>
      listThreads(50, { q: query.trim() || undefined, archived })
        .then((t) => {
          if (!live) return;
          setThreads(t.filter((row) => row.agentId === agentId));
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

  // The page's thread before the server lists it (a new one) shows untitled; not in
  // a search or the archived list, which show what matched only.
  const listed = threads.some((t) => t.threadId === currentId) || archived || query.trim() !== "";
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
      <ul>
        {!listed && (
          <li data-testid="thread-item" data-thread-id={currentId} data-status={status} data-label={chrome.label}>
            <div className="thread current" aria-current="page">
              <span className="thread-title">{UNTITLED}</span>
              <StatusChip words={chrome} />
            </div>
          </li>
        )}
        {threads.map((t) => (
          <ThreadItem
            key={t.threadId}
            thread={t}
            current={t.threadId === currentId}
            shown={t.threadId === currentId ? here : undefined}
            age={ago(t.updatedAt, now)}
            onSelect={onSelect}
            onError={setError}
            onChanged={(removed) => {
              setChanges((n) => n + 1);
              onChanged();
              // The page's own thread left: a new one takes its place.
              if (removed && t.threadId === currentId) onNew();
            }}
          />
        ))}
      </ul>
    </nav>
  );
}
