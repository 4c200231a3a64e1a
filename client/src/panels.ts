/**
 * Which of the page's panels a person has open beside the chat: the side column (the shared
 * state, or a demo's own panel) and, inside it, the raw workflow events. Remembered per browser
 * (localStorage) and per page: the Threadline agent's page opens with both closed, so the chat
 * has the window; a demo page opens with its panel, which is what it demonstrates, and the events
 * closed. Rejected: remembering per thread (a person who closed the panel would meet it again on
 * every new thread) and one setting for every page (closing the coding page's workspace would
 * hide the shared-state demo's recipe).
 *
 * This is the wide window's layout only: below 1100 px the side column is a drawer over the
 * chat (Layout.tsx), opened each time, never on its own at load.
 */
import { useCallback, useState } from "react";

export interface PanelPrefs {
  /** the side column beside the chat */
  side: boolean;
  /** the workflow events, inside the side column */
  events: boolean;
}

const KEY = "threadline.panels";

/** What a page shows before the person chose. */
export function defaultPanels(isDemo: boolean): PanelPrefs {
  return { side: isDemo, events: false };
}

type Stored = Record<string, Partial<PanelPrefs>>;

function readAll(): Stored {
  try {
    const parsed = JSON.parse(localStorage.getItem(KEY) ?? "{}") as unknown;
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Stored) : {};
  } catch {
    // Unreadable (hand-edited, or storage refused): the defaults, as for a first visit.
    return {};
  }
}

function read(page: string, fallback: PanelPrefs): PanelPrefs {
  const saved = readAll()[page] ?? {};
  return {
    side: typeof saved.side === "boolean" ? saved.side : fallback.side,
    events: typeof saved.events === "boolean" ? saved.events : fallback.events,
  };
}

function write(page: string, prefs: PanelPrefs): void {
  try {
    localStorage.setItem(KEY, JSON.stringify({ ...readAll(), [page]: prefs }));
  } catch {
    // Storage full or refused (a private window): the choice holds for this page's life only.
  }
}

export interface Panels extends PanelPrefs {
  set(change: Partial<PanelPrefs>): void;
}

/** `page`: one key per page of the app ("main", "demo:<slug>", "agent:<id>"). */
export function usePanels(page: string, isDemo: boolean): Panels {
  const [prefs, setPrefs] = useState(() => read(page, defaultPanels(isDemo)));
  const set = useCallback(
    (change: Partial<PanelPrefs>) =>
      setPrefs((cur) => {
        const next = { ...cur, ...change };
        write(page, next);
        return next;
      }),
    [page],
  );
  return { ...prefs, set };
}
