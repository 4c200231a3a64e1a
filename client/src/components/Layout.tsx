/**
 * The parts of the layout that a narrow window needs (styles.css, "Narrow windows"): below
 * 1100 px the state and events panel, below 760 px also the agents and threads, become drawers
 * opened from the top bar, so the chat keeps the screen. On a wide screen the toggles are hidden
 * and the drawers are plain columns. The skip link takes a keyboard user to the input at once.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { focusMessageInput } from "./Chat.tsx";

export type DrawerName = "nav" | "panels";

export interface Drawer {
  open: DrawerName | null;
  toggle(which: DrawerName): void;
  close(): void;
}

/** Which drawer is open; closed again by Escape, by the scrim, and when the thread changes. */
export function useDrawer(threadId: string): Drawer {
  const [open, setOpen] = useState<DrawerName | null>(null);
  const close = useCallback(() => setOpen(null), []);
  const toggle = useCallback((which: DrawerName) => setOpen((cur) => (cur === which ? null : which)), []);
  useEffect(() => setOpen(null), [threadId]);
  // Focus follows the drawer: into it when it opens, back to its toggle when it closes.
  const previous = useRef<DrawerName | null>(null);
  useEffect(() => {
    const was = previous.current;
    previous.current = open;
    if (open) document.querySelector<HTMLElement>(`#drawer-${open} [data-testid="drawer-close"]`)?.focus();
    else if (was && document.activeElement === document.body) document.querySelector<HTMLElement>(`[aria-controls="drawer-${was}"]`)?.focus();
  }, [open]);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") setOpen(null);
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, [open]);
  return { open, toggle, close };
}

const ICONS: Record<DrawerName, string> = {
  // Three lines: a menu of agents and threads.
  nav: "M4 6h16M4 12h16M4 18h16",
  // A panel at the right of a window.
  panels: "M4 5h16v14H4zM14 5v14",
};

export function DrawerToggle({ drawer, which, label }: { drawer: Drawer; which: DrawerName; label: string }) {
  return (
    <button
      type="button"
      className={`drawer-toggle drawer-toggle-${which}`}
      data-testid={`toggle-${which}`}
      aria-controls={`drawer-${which}`}
      aria-expanded={drawer.open === which}
      aria-label={label}
      title={label}
      onClick={() => drawer.toggle(which)}
    >
      <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
        <path d={ICONS[which]} />
      </svg>
    </button>
  );
}

/** The first thing Tab reaches: a button (it moves the focus, it goes nowhere), shown only when focused. */
export function SkipToInput() {
  return (
    <button type="button" className="skip-link" data-testid="skip-to-input" onClick={focusMessageInput}>
      Skip to the message box
    </button>
  );
}
