/**
 * Delete with a way back: the thread leaves the list at once and a toast offers "Undo" for
 * UNDO_MS; only then is the DELETE sent. One delete waits at a time: a second one sends the
 * first's DELETE at once. Leaving the page sends a waiting DELETE too (fetch keepalive), since the
 * person asked for it and did not take it back.
 *
 * Why the DELETE waits in the browser rather than "archive first, delete later": an archive is a
 * write the person did not ask for, its Undo another (an unarchive, which may fail on its own
 * and moves the thread's place in the list), and a browser that dies in between leaves behind an
 * archived thread the person believes deleted. A DELETE held back touches nothing until it is
 * sent; what the browser's death costs is a thread that stays, the safe side to fail on.
 * Rejected too: asking twice ("Delete for good?"), which guards against a slip but leaves no way
 * back from the second click.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { createPortal } from "react-dom";
import { authHeaders, deleteThread } from "../api.ts";

/** Long enough to read the toast and reach Undo by keyboard (its button has the focus) or a tap. */
export const UNDO_MS = 8000;

interface Pending {
  threadId: string;
  title: string;
  /** It was the page's thread: the page left it, and Undo comes back to it. */
  wasCurrent: boolean;
  timer: ReturnType<typeof setTimeout>;
}

export interface PendingDeletes {
  /** The thread whose DELETE waits, hidden from the list meanwhile. */
  pendingId: string | null;
  remove(threadId: string, title: string, wasCurrent: boolean): void;
  toast: React.ReactNode;
}

/**
 * `onSent`: the DELETE came back (ok or not: list again); `onError` with what to tell the person;
 * `onUndone`: the thread is back (the page returns to it if it was the page's).
 */
export function usePendingDeletes(opts: { onSent(): void; onError(message: string): void; onUndone(threadId: string, wasCurrent: boolean): void }): PendingDeletes {
  const [pending, setPending] = useState<Pending | null>(null);
  const current = useRef<Pending | null>(null);
  const callbacks = useRef(opts);
  callbacks.current = opts;

  const send = useCallback((p: Pending) => {
    clearTimeout(p.timer);
    if (current.current === p) current.current = null;
    // The toast leaves with the focus on its Undo: the list's first control takes it, not the page's body.
    if (document.activeElement?.closest('[data-testid="undo-toast"]')) document.querySelector<HTMLElement>('[data-testid="new-thread"]')?.focus();
    setPending((now) => (now === p ? null : now));
    deleteThread(p.threadId)
      .catch((err: Error) => callbacks.current.onError(`Could not delete "${p.title}": ${err.message}. It is back in the list; try again.`))
      .finally(() => callbacks.current.onSent());
  }, []);

  const remove = useCallback(
    (threadId: string, title: string, wasCurrent: boolean) => {
      if (current.current) send(current.current);
      const p: Pending = { threadId, title, wasCurrent, timer: setTimeout(() => send(p), UNDO_MS) };
      current.current = p;
      setPending(p);
    },
    [send],
  );

  const undo = useCallback(() => {
    const p = current.current;
    if (!p) return;
    clearTimeout(p.timer);
    current.current = null;
    setPending(null);
    callbacks.current.onUndone(p.threadId, p.wasCurrent);
  }, []);

  // The page goes away with a DELETE still waiting: send it now, on a request that outlives the page.
  useEffect(() => {
    const flush = () => {
      const p = current.current;
      if (!p) return;
      clearTimeout(p.timer);
      current.current = null;
      void fetch(`/api/threads/${encodeURIComponent(p.threadId)}`, { method: "DELETE", headers: authHeaders(), keepalive: true }).catch(() => {});
    };
    addEventListener("pagehide", flush);
    return () => {
      removeEventListener("pagehide", flush);
      flush();
    };
  }, []);

  const toast = pending ? createPortal(<UndoToast key={pending.threadId} title={pending.title} onUndo={undo} />, document.body) : null;
  return { pendingId: pending?.threadId ?? null, remove, toast };
}

/**
 * The toast: fixed at the foot of the window (a portal, so a closed drawer on a phone does not
 * hide it). The focus moves to Undo: the Delete button it was on has just left with its row.
 */
function UndoToast({ title, onUndo }: { title: string; onUndo(): void }) {
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => button.current?.focus(), []);
  return (
    <div className="undo-toast" data-testid="undo-toast" role="status">
      <span className="undo-toast-text">
        Deleted <q>{title}</q>
      </span>
      <button ref={button} type="button" className="btn undo-toast-undo" data-testid="undo-delete" onClick={onUndo}>
        Undo
      </button>
    </div>
  );
}
