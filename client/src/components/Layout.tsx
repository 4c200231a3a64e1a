/**
 * The parts of the layout that change with the window's width (styles.css, "Narrow windows"):
 * at 1100 px and wider the side column (state or a demo's panel, and the events) sits beside the
 * chat when the person opened it (panels.ts remembers); below, it is a drawer over the chat, and
 * below 760 px the agents and threads are one too, so the chat keeps the screen. The same top-bar
 * button opens the side column either way. The skip link takes a keyboard user to the input at once.
 */
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from "react";
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

/** The width at which the side column stops being a drawer (styles.css has the same number). */
const WIDE = "(min-width: 1100px)";

/** Whether the window is wide enough for the side column beside the chat; follows resizes. */
export function useWideWindow(): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const query = matchMedia(WIDE);
      query.addEventListener("change", onChange);
      return () => query.removeEventListener("change", onChange);
    },
    () => matchMedia(WIDE).matches,
  );
}

export function DrawerToggle({ which, label, expanded, onToggle }: { which: DrawerName; label: string; expanded: boolean; onToggle(): void }) {
  return (
    <button
      type="button"
      className={`drawer-toggle drawer-toggle-${which}`}
      data-testid={`toggle-${which}`}
      aria-controls={`drawer-${which}`}
      aria-expanded={expanded}
      aria-label={label}
      title={label}
      onClick={onToggle}
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
