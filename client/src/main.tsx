/**
 * Routes (routes.ts): /t/<threadId> is the Threadline agent on that thread (a reload restores
 * it), / starts a new one; /demos/<feature>[/t/<threadId>] the same for a feature demo agent;
 * /v1 is the v1-API compatibility page (its own bundle chunk).
 */
import "@copilotkit/react-core/v2/styles.css";
import "./styles.css";
import { CopilotKitProvider } from "@copilotkit/react-core/v2";
import { lazy, StrictMode, Suspense, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { authHeaders } from "./api.ts";
import { App } from "./App.tsx";
import { demoBySlug } from "./demos/index.ts";
import { mintThreadId } from "./fresh-threads.ts";
import { parseRoute, pathFor } from "./routes.ts";

const V1Page = lazy(() => import("./v1/V1Page.tsx"));

export const RUNTIME_URL = "/api/copilotkit";

/** The thread in the address; a new one (minted, so the app knows it is not on the server yet) when there is none. */
function useThreadRoute(feature: string | null): [string, (id: string) => void, () => void] {
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

function Main() {
  // The agent is fixed for the page's life: the picker's links load a new page.
  const [feature] = useState(() => parseRoute(location.pathname).feature);
  const demo = demoBySlug(feature);
  const agentId = demo?.agentId ?? "default";
  const [threadId, navigate, newThread] = useThreadRoute(demo ? feature : null);
  return (
    <CopilotKitProvider runtimeUrl={RUNTIME_URL} agentId={agentId} headers={authHeaders} showDevConsole={false} enableInspector={false}>
      <App agentId={agentId} demo={demo} threadId={threadId} navigate={navigate} newThread={newThread} />
    </CopilotKitProvider>
  );
}

const root = createRoot(document.getElementById("root")!);
root.render(
  <StrictMode>
    {location.pathname.replace(/\/+$/, "") === "/v1" ? (
      <Suspense fallback={<div className="loading">Loading…</div>}>
        <V1Page />
      </Suspense>
    ) : (
      <Main />
    )}
  </StrictMode>,
);
