/** The top bar's light/dark switch (theme.ts): pressed is dark. */
import { useTheme } from "../theme.ts";

// A moon (switch to dark) and a sun (switch to light), drawn as the drawer toggles are.
const MOON = "M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8z";
const SUN = "M12 4V2M12 22v-2M4 12H2M22 12h-2M5.6 5.6 4.2 4.2M19.8 19.8l-1.4-1.4M5.6 18.4l-1.4 1.4M19.8 4.2l-1.4 1.4M12 8a4 4 0 1 0 0 8 4 4 0 0 0 0-8z";

export function ThemeToggle() {
  const [theme, toggle] = useTheme();
  const dark = theme === "dark";
  return (
    <button type="button" className="theme-toggle" data-testid="theme-toggle" aria-pressed={dark} aria-label="Dark mode" title={dark ? "Switch to light" : "Switch to dark"} onClick={toggle}>
      <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
        <path d={dark ? SUN : MOON} />
      </svg>
    </button>
  );
}
