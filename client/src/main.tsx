/**
 * Routes (routes.ts): /t/<threadId> is the home agent on that thread (a reload restores it), /
 * starts a new one; /demos/<feature>[/t/<threadId>] the same for a feature demo agent,
 * /agents/<agentId>[/t/<threadId>] for any other agent the server hosts (agents.ts); /v1 is the
 * v1-API compatibility page (its own bundle chunk). A key in the address is taken out of it
 * before anything else reads the address (keys.ts).
 */
import "@copilotkit/react-core/v2/styles.css";
import "./theme.css";
import "./styles.css";
import "./feedback.css";
import { CopilotKitProvider } from "@copilotkit/react-core/v2";
import { lazy, StrictMode, Suspense, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { planPage } from "./agents.ts";
import { AttachmentLimitsContext } from "./attachments.ts";
import type { AgentInfo } from "./api.ts";
import { App } from "./App.tsx";
import { KeyGate } from "./components/KeyForm.tsx";
import { AppSkeleton } from "./components/Skeleton.tsx";
import { DemoPicker } from "./demos/DemoPicker.tsx";
import { mintThreadId } from "./fresh-threads.ts";
import { authHeaders, takeKeyFromUrl } from "./keys.ts";
import { type Place, parseRoute, pathFor } from "./routes.ts";
import { startTheme } from "./theme.ts";

takeKeyFromUrl();
startTheme();

const V1Page = lazy(() => import("./v1/V1Page.tsx"));

export const RUNTIME_URL = "/api/copilotkit";

/** The thread in the address; a new one (minted, so the app knows it is not on the server yet) when there is none. */
function useThreadRoute(feature: Place): [string, (id: string) => void, () => void] {
  const [threadId, setThreadId] = useState(() => {
    const existing = parseRoute(location.pathname).threadId;
    if (existing) return existing;
    const id = mintThreadId();
    history.replaceState(null, "", `${pathFor(feature, id)}${location.search}`);
    return id;
  });
  useEffect(() => {
    const onPop = () => {
      const id = parseRoute(location.pathname).threadId;
      if (id) return setThreadId(id);
      const minted = mintThreadId();
      history.replaceState(null, "", pathFor(feature, minted));
      setThreadId(minted);
    };
    addEventListener("popstate", onPop);
    return () => removeEventListener("popstate", onPop);
  }, [feature]);
  const navigate = (id: string) => {
    history.pushState(null, "", pathFor(feature, id));
    setThreadId(id);
  };
  return [threadId, navigate, () => navigate(mintThreadId())];
}

function Main({ agents }: { agents: AgentInfo[] }) {
  // The agent is fixed for the page's life: the picker's links load a new page.
  const [place] = useState(() => parseRoute(location.pathname).place);
  const plan = planPage(place, agents);
  if (!plan.ok) {
    return (
      <div className="app no-agent" data-testid="no-agent">
        <div className="left">
          <DemoPicker agents={agents} current={place} />
        </div>
        <main className="chat-column no-agent-reason">
          <p className="error-text">{plan.reason}</p>
        </main>
      </div>
    );
  }
  return <AgentPage agents={agents} place={place} agentId={plan.agentId} demo={plan.demo} />;
}

function AgentPage({ agents, place, agentId, demo }: { agents: AgentInfo[]; place: Place; agentId: string; demo: Parameters<typeof App>[0]["demo"] }) {
  const [threadId, navigate, newThread] = useThreadRoute(place);
  return (
    <CopilotKitProvider runtimeUrl={RUNTIME_URL} agentId={agentId} headers={authHeaders} showDevConsole={false} enableInspector={false}>
      <App agentId={agentId} demo={demo} picker={<DemoPicker agents={agents} current={place} />} threadId={threadId} navigate={navigate} newThread={newThread} />
    </CopilotKitProvider>
  );
}

const root = createRoot(document.getElementById("root")!);
root.render(
  <StrictMode>
    {location.pathname.replace(/\/+$/, "") === "/v1" ? (
      <Suspense fallback={<AppSkeleton />}>
        <V1Page />
      </Suspense>
    ) : (
      <KeyGate>
        {({ agents, attachments }) => (
          <AttachmentLimitsContext.Provider value={attachments}>
            <Main agents={agents} />
          </AttachmentLimitsContext.Provider>
        )}
      </KeyGate>
    )}
  </StrictMode>,
);
