/** The threads the server knows, newest activity first, with their status; plus "New thread". */
import { useEffect, useState } from "react";
import { listThreads, type ThreadRow } from "../api.ts";

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
}

export function ThreadList({ agentId, currentId, pulse, onSelect, onNew }: Props) {
  const [threads, setThreads] = useState<ThreadRow[]>([]);
  const [now, setNow] = useState(Date.now());
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    const load = () =>
      listThreads()
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
  }, [pulse, agentId]);

  const listed = threads.some((t) => t.threadId === currentId);
  return (
    <nav className="threads" data-testid="thread-list">
      <button type="button" className="btn btn-primary new-thread" data-testid="new-thread" onClick={onNew}>
        + New thread
      </button>
      {error && <p className="error-text">{error}</p>}
      <ul>
        {!listed && (
          <li className="thread current" data-testid="thread-item" data-thread-id={currentId} data-status="NEW">
            <span className="thread-title">New conversation</span>
            <span className="chip chip-new">new</span>
          </li>
        )}
        {threads.map((t) => (
          <li
            key={t.threadId}
            className={`thread ${t.threadId === currentId ? "current" : ""}`}
            data-testid="thread-item"
            data-thread-id={t.threadId}
            data-status={t.status}
            onClick={() => onSelect(t.threadId)}
            onKeyDown={(e) => {
              if (e.key === "Enter") onSelect(t.threadId);
            }}
          >
            <span className="thread-title">{t.threadId.slice(0, 8)}</span>
            <span className={`chip chip-status chip-${t.status.toLowerCase()}`}>{t.status.toLowerCase()}</span>
            <span className="thread-time">{ago(t.updatedAt, now)}</span>
          </li>
        ))}
      </ul>
    </nav>
  );
}
