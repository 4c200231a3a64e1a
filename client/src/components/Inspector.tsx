/**
 * The thread's raw workflow events, live from the log (GET /api/threads/:id/events as SSE): a
 * developer's view, folded under its heading until asked for. Folded, it draws no row (a long
 * stream would otherwise keep re-rendering a list nobody sees); the heading counts the events.
 */
import { useEffect, useRef, useState } from "react";
import type { WorkflowEvent } from "../api.ts";

const STREAM = /^(text|reasoning)\.|^toolcall\.args$/;

function summary(e: WorkflowEvent): string {
  const d = { ...e.data };
  delete d.runId;
  const text = JSON.stringify(d);
  return text.length > 140 ? `${text.slice(0, 140)}…` : text;
}

export function Inspector({ events, connected, open, onToggle }: { events: WorkflowEvent[]; connected: boolean; open: boolean; onToggle(): void }) {
  const [showStream, setShowStream] = useState(false);
  const list = useRef<HTMLOListElement>(null);
  const shown = open ? (showStream ? events : events.filter((e) => !STREAM.test(e.type))).slice(-400) : [];

  useEffect(() => {
    const el = list.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [shown.length]);

  return (
    <section className="panel inspector" data-testid="inspector" data-open={open ? "true" : "false"}>
      <h2>
        <button type="button" className="disclosure" data-testid="events-toggle" aria-expanded={open} aria-controls="event-list" onClick={onToggle}>
          <span className="disclosure-mark" aria-hidden="true">
            {open ? "▾" : "▸"}
          </span>
          Workflow events <span className="muted small">({events.length})</span>
        </button>
        <span className={`live ${connected ? "on" : ""}`}>{connected ? "live" : "offline"}</span>
        {open && (
          <label className="toggle">
            <input type="checkbox" checked={showStream} onChange={(e) => setShowStream(e.target.checked)} /> stream events
          </label>
        )}
      </h2>
      {open && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the list scrolls, and a keyboard can only scroll what it can focus (axe: scrollable-region-focusable).
        <ol className="events" id="event-list" ref={list} data-testid="event-list" data-count={events.length} tabIndex={0} aria-label="Workflow events of this thread">
          {shown.map((e) => (
            <li key={e.seq} data-testid="event" data-type={e.type}>
              <span className="seq">{e.seq}</span>
              <span className={`type type-${e.type.split(".")[0]}`}>{e.type}</span>
              <span className="data">{summary(e)}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
