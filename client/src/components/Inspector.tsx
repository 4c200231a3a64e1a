/** The thread's raw workflow events, live from the log (GET /api/threads/:id/events as SSE). */
import { useEffect, useRef, useState } from "react";
import type { WorkflowEvent } from "../api.ts";

const STREAM = /^(text|reasoning)\.|^toolcall\.args$/;

function summary(e: WorkflowEvent): string {
  const d = { ...e.data };
  delete d.runId;
  const text = JSON.stringify(d);
  return text.length > 140 ? `${text.slice(0, 140)}…` : text;
}

export function Inspector({ events, connected }: { events: WorkflowEvent[]; connected: boolean }) {
  const [showStream, setShowStream] = useState(false);
  const list = useRef<HTMLOListElement>(null);
  const shown = (showStream ? events : events.filter((e) => !STREAM.test(e.type))).slice(-400);

  useEffect(() => {
    const el = list.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [shown.length]);

  return (
    <section className="panel inspector" data-testid="inspector">
      <h2>
        Workflow events <span className={`live ${connected ? "on" : ""}`}>{connected ? "live" : "offline"}</span>
        <label className="toggle">
          <input type="checkbox" checked={showStream} onChange={(e) => setShowStream(e.target.checked)} /> stream events
        </label>
      </h2>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the list scrolls, and a keyboard can only scroll what it can focus (axe: scrollable-region-focusable). */}
      <ol className="events" ref={list} data-testid="event-list" data-count={events.length} tabIndex={0} aria-label="Workflow events of this thread">
        {shown.map((e) => (
          <li key={e.seq} data-testid="event" data-type={e.type}>
            <span className="seq">{e.seq}</span>
            <span className={`type type-${e.type.split(".")[0]}`}>{e.type}</span>
            <span className="data">{summary(e)}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
