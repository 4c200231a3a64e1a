/**
 * The side column: the thread's shared state (tasks and plan) or a demo's own panel, then the raw
 * workflow events, folded until asked for (panels.ts remembers). Beside the chat in a wide
 * window when opened; a drawer over it in a narrow one (Layout.tsx).
 */
import type { ReactNode } from "react";
import { DemoIntro } from "../demos/DemoIntro.tsx";
import type { DemoFeature } from "../demos/feature.ts";
import type { WorkflowEvent } from "../api.ts";
import { Inspector } from "./Inspector.tsx";
import { StatePanel } from "./StatePanel.tsx";

interface Props {
  demo: DemoFeature | undefined;
  title: string;
  editable: boolean;
  live: boolean;
  events: WorkflowEvent[];
  connected: boolean;
  eventsOpen: boolean;
  onEventsToggle(): void;
  onClose(): void;
}

export function SidePanels({ demo, title, editable, live, events, connected, eventsOpen, onEventsToggle, onClose }: Props) {
  return (
    <section className="side drawer" id="drawer-panels" data-testid="drawer-panels" aria-label={title}>
      <PanelHead title={title} onClose={onClose} />
      {demo ? <DemoPanel demo={demo} /> : <StatePanel editable={editable} live={live} />}
      <Inspector events={events} connected={connected} open={eventsOpen} onToggle={onEventsToggle} />
    </section>
  );
}

/** The column's title and Close: the way back to the chat alone, in a wide window or a drawer. */
export function PanelHead({ title, onClose }: { title: ReactNode; onClose(): void }) {
  return (
    <div className="drawer-head">
      <span className="drawer-title">{title}</span>
      <button type="button" className="btn" data-testid="drawer-close" onClick={onClose}>
        Close
      </button>
    </div>
  );
}

/** A demo feature's page: what it shows, then its own panel in place of the shared state. */
function DemoPanel({ demo }: { demo: DemoFeature }) {
  const Panel = demo.Panel;
  return (
    <>
      <DemoIntro feature={demo} />
      {Panel && <Panel />}
    </>
  );
}
