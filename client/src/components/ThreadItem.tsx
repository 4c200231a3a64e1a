/**
 * One thread in the list: its title (the name given, else its first message), its status in the
 * app's words (status.ts: "Waiting for you" when it waits for an approval or an answer), "Archived"
 * when it is, and its actions: rename (in place, the current title in the box and selected, so
 * typing replaces it; Enter saves, Escape cancels, an empty name goes back to the derived title),
 * archive or unarchive, and delete (DeleteUndo.tsx: undoable for a few seconds).
 */
import { useEffect, useRef, useState } from "react";
import { patchThread, type ThreadListItem } from "../api.ts";
import { type ChromeStatus, type StatusWords, statusWords } from "../status.ts";
import { threadTitle } from "../thread-title.ts";
import "./thread-list.css";

interface Props {
  thread: ThreadListItem;
  current: boolean;
  /** The page's own thread: its status as the top bar has it (fresher than this row's). */
  shown?: { status: ChromeStatus; words: StatusWords };
  /** e.g. "3m ago" */
  age: string;
  onSelect(threadId: string): void;
  /** Something changed on the server: list again. `removed`: the thread left this list. */
  onChanged(removed: boolean): void;
  /** Delete was asked for: the list hides the row and offers Undo before the DELETE goes. */
  onDelete(threadId: string, title: string): void;
  onError(message: string): void;
}

export function ThreadItem({ thread: t, current, shown, age, onSelect, onChanged, onDelete, onError }: Props) {
  const [renaming, setRenaming] = useState(false);
  const title = threadTitle(t.title);
  const status = shown?.status ?? t.status;
  const words = shown?.words ?? statusWords(t.status, t.waitingForYou);
  const act = (p: Promise<unknown>, removed: boolean) =>
    p.then(() => onChanged(removed)).catch((err: Error) => onError(err.message));
  return (
    <li
      className={`thread ${current ? "current" : ""}`}
      data-testid="thread-item"
      data-thread-id={t.threadId}
      data-status={status}
      data-label={words.label}
      data-waiting={words.tone === "you" ? "true" : "false"}
      data-archived={t.archived ? "true" : "false"}
      // The whole row selects, as before; the title is the button a keyboard reaches.
      onClick={() => !renaming && onSelect(t.threadId)}
      onKeyDown={(e) => {
        if (e.key === "Enter" && e.target === e.currentTarget) onSelect(t.threadId);
      }}
    >
      {renaming ? (
        <RenameBox
          initial={t.title ?? ""}
          onCancel={() => setRenaming(false)}
          onSave={(text) => {
            setRenaming(false);
            // Unchanged is no rename: saving a derived title would pin one the thread has anyway.
            if (text === (t.title ?? "")) return;
            void act(patchThread(t.threadId, { title: text.trim() === "" ? null : text }), false);
          }}
        />
      ) : (
        <button
          type="button"
          className="thread-title link"
          data-testid="thread-title"
          title={t.title ?? t.threadId}
          onClick={(e) => {
            e.stopPropagation();
            onSelect(t.threadId);
          }}
        >
          {title}
        </button>
      )}
      <span className="thread-chips">
        <StatusChip words={words} />
        {t.archived && (
          <span className="chip chip-archived" data-testid="thread-item-archived">
            Archived
          </span>
        )}
      </span>
      <span className="thread-time">{age}</span>
      {/* biome-ignore lint/a11y/useKeyWithClickEvents lint/a11y/noStaticElementInteractions: only keeps a click on an action from selecting the row */}
      <span className="thread-actions" onClick={(e) => e.stopPropagation()}>
        <button type="button" className="link small" data-testid="thread-rename" onClick={() => setRenaming(true)}>
          Rename
        </button>
        <button type="button" className="link small" data-testid="thread-archive" onClick={() => void act(patchThread(t.threadId, { archived: !t.archived }), true)}>
          {t.archived ? "Unarchive" : "Archive"}
        </button>
        <button type="button" className="link small" data-testid="thread-delete" onClick={() => onDelete(t.threadId, title)}>
          Delete
        </button>
      </span>
    </li>
  );
}

function RenameBox({ initial, onSave, onCancel }: { initial: string; onSave(text: string): void; onCancel(): void }) {
  const [text, setText] = useState(initial);
  const box = useRef<HTMLInputElement>(null);
  // Selected, so that typing replaces the title and an arrow key keeps it for an edit.
  useEffect(() => box.current?.select(), []);
  return (
    <input
      ref={box}
      className="thread-rename"
      data-testid="thread-rename-input"
      aria-label="Thread name"
      // biome-ignore lint/a11y/noAutofocus: the box appears because the user asked to rename; typing goes there
      autoFocus
      value={text}
      placeholder="Name this thread"
      maxLength={200}
      onChange={(e) => setText(e.target.value)}
      onKeyDown={(e) => {
        if (e.key === "Enter") onSave(text);
        else if (e.key === "Escape") {
          // This Escape is the rename's: not also the drawer's around it (a phone's), nor a run's Stop.
          e.stopPropagation();
          onCancel();
        }
      }}
      onBlur={onCancel}
    />
  );
}

/** A thread's status in the list, in the app's words and tone. */
export function StatusChip({ words }: { words: StatusWords }) {
  return (
    <span className={`chip chip-${words.tone}`} data-testid={words.tone === "you" ? "waiting-for-you" : "thread-item-status"}>
      {words.label}
    </span>
  );
}
