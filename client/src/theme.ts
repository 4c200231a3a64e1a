/**
 * Light or dark: the system's setting (prefers-color-scheme) until the person picks one with the
 * top bar's toggle, then theirs, remembered per browser (localStorage). The choice is the `dark`
 * class on <html>, which is also what CopilotKit's own dark styles key on (`.dark *`), so the
 * chat and the app change together. Applied before the first render (main.tsx), so a dark page
 * does not flash white. Rejected: following the system only (no way out of a theme one dislikes
 * in one app) and three states with "system" as a button (a toggle that sometimes does nothing
 * visible).
 */
import { useCallback, useSyncExternalStore } from "react";

export type Theme = "light" | "dark";

const KEY = "threadline.theme";
const SYSTEM_DARK = "(prefers-color-scheme: dark)";

function stored(): Theme | null {
  try {
    const v = localStorage.getItem(KEY);
    return v === "light" || v === "dark" ? v : null;
  } catch {
    return null; // storage refused: the system's setting
  }
}

/** The person's pick, read once per page; null: the system's setting. */
let picked: Theme | null = stored();

export function currentTheme(): Theme {
  return picked ?? (matchMedia(SYSTEM_DARK).matches ? "dark" : "light");
}

const listeners = new Set<() => void>();

function applyTheme(): void {
  const theme = currentTheme();
  document.documentElement.classList.toggle("dark", theme === "dark");
  document.documentElement.dataset.theme = theme;
  for (const l of listeners) l();
}

/** Follows the system's setting as it changes, until the person chose. Call once, before rendering. */
export function startTheme(): void {
  applyTheme();
  matchMedia(SYSTEM_DARK).addEventListener("change", applyTheme);
}

export function useTheme(): [Theme, () => void] {
  const theme = useSyncExternalStore((onChange) => {
    listeners.add(onChange);
    return () => listeners.delete(onChange);
  }, currentTheme);
  const toggle = useCallback(() => {
    picked = currentTheme() === "dark" ? "light" : "dark";
    try {
      localStorage.setItem(KEY, picked);
    } catch {
      // Storage refused (a private window): the pick holds for this page's life.
    }
    applyTheme();
  }, []);
  return [theme, toggle];
}
