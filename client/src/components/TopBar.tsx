/**
 * The top bar: the agents-and-threads toggle (a narrow window's drawer), the thread's title (its
 * name, else its first message: the list's title, GET /api/threads/:id), the status chip and
 * banners, and the toggle of the side column. The browser tab is titled after the thread too.
 */
import { useEffect } from "react";
import type { DemoFeature } from "../demos/feature.ts";
import type { Chrome, ChromeStatus } from "../status.ts";
import { threadTitle } from "../thread-title.ts";
import { DrawerToggle } from "./Layout.tsx";
import { ThemeToggle } from "./ThemeToggle.tsx";
import { StatusBar } from "./StatusBar.tsx";

interface Props {
  demo: DemoFeature | undefined;
  threadId: string;
  /** null: no title yet (a thread with no message) */
  title: string | null;
  archived: boolean;
  status: ChromeStatus;
  chrome: Chrome;
  onNew(): void;
  nav: { expanded: boolean; onToggle(): void };
  side: { expanded: boolean; onToggle(): void; label: string };
}

export function TopBar({ demo, threadId, title, archived, status, chrome, onNew, nav, side }: Props) {
  const shown = threadTitle(title);
  useEffect(() => {
    document.title = `${shown} · Threadline`;
  }, [shown]);
  return (
    <header className="topbar">
      <DrawerToggle which="nav" label="Agents and threads" expanded={nav.expanded} onToggle={nav.onToggle} />
      <span className="brand">Threadline</span>
      {demo && (
        <span className="demo-title" data-testid="demo-title">
          {demo.title}
        </span>
      )}
      {/* The id stays one hover away: it is what the address and the API name the thread by. */}
      <h1 className="thread-heading" data-testid="thread-heading" data-thread-id={threadId} title={`${shown} (${threadId})`}>
        {shown}
      </h1>
      {archived && (
        <span className="chip chip-archived" data-testid="thread-archived">
          Archived
        </span>
      )}
      <StatusBar status={status} chrome={chrome} onNew={onNew} />
      <ThemeToggle />
      <DrawerToggle which="panels" label={side.label} expanded={side.expanded} onToggle={side.onToggle} />
    </header>
  );
}
