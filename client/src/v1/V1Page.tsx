/**
 * The v1 compatibility page: the deprecated-but-supported v1 API (CopilotKit provider with a
 * thread, react-ui's CopilotSidebar, useCoAgent, useCopilotAction) against the same runtime,
 * to show that apps written for v1 keep working on Threadline.
 */
import "@copilotkit/react-ui/styles.css";
import { CopilotKit, useCoAgent, useCopilotAction } from "@copilotkit/react-core";
import { CopilotSidebar } from "@copilotkit/react-ui";
import { useState } from "react";
import { authHeaders } from "../api.ts";

interface Task {
  id: string;
  title: string;
  done: boolean;
}

function threadFromQuery(): string {
  const params = new URLSearchParams(location.search);
  const existing = params.get("thread");
  if (existing) return existing;
  const id = crypto.randomUUID();
  params.set("thread", id);
  history.replaceState(null, "", `${location.pathname}?${params}`);
  return id;
}

function V1Content() {
  const [background, setBackground] = useState<string | undefined>();
  const { state, running } = useCoAgent<{ tasks?: Task[] }>({ name: "default" });

  useCopilotAction({
    name: "change_background",
    description: "Change the background of the user's page.",
    parameters: [{ name: "background", type: "string", description: "Any CSS background value", required: true }],
    handler: async ({ background }: { background: string }) => {
      setBackground(background);
      return { ok: true, background };
    },
  });

  const tasks = state?.tasks ?? [];
  return (
    <div className="v1-page" data-testid="v1-page" data-background={background ?? ""} style={background ? { background } : undefined}>
      <header className="panel v1-intro">
      <h1>Threadline · v1 API</h1>
      <p className="muted">
        This page uses <code>@copilotkit/react-ui</code>'s <code>CopilotSidebar</code>, <code>useCoAgent</code> and{" "}
        <code>useCopilotAction</code>. <a href="/">Back to the app</a>
      </p>
      </header>
      <section className="panel" data-testid="v1-state">
        <h2>Agent state {running && <span className="spinner" aria-hidden />}</h2>
        {tasks.length === 0 ? (
          <p className="muted">No tasks. Ask: “Add a task: water the plants”.</p>
        ) : (
          <ul className="tasks">
            {tasks.map((t) => (
              <li key={t.id} data-testid="v1-task">
                {t.done ? "✓" : "○"} {t.title}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

export default function V1Page() {
  const [threadId] = useState(threadFromQuery);
  return (
    <CopilotKit runtimeUrl="/api/copilotkit" agent="default" threadId={threadId} headers={authHeaders()} showDevConsole={false} enableInspector={false}>
      <CopilotSidebar defaultOpen labels={{ title: "Threadline (v1)", initial: "Hi! This chat uses the v1 API." }}>
        <V1Content />
      </CopilotSidebar>
    </CopilotKit>
  );
}
