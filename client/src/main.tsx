/**
 * Routes: /t/<threadId> is the app on that thread (a reload restores it), / starts a new one,
 * /v1 is the v1-API compatibility page (its own bundle chunk).
 */
import "@copilotkit/react-core/v2/styles.css";
import "./styles.css";
import { CopilotKitProvider } from "@copilotkit/react-core/v2";
import { lazy, StrictMode, Suspense, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { authHeaders } from "./api.ts";
import { App } from "./App.tsx";

const V1Page = lazy(() => import("./v1/V1Page.tsx"));

export const RUNTIME_URL = "/api/copilotkit";

function threadFromPath(): string | null {
  const m = /^\/t\/([^/]+)\/?$/.exec(location.pathname);
  return m ? decodeURIComponent(m[1]!) : null;
}

function useThreadRoute(): [string, (id: string) => void, () => void] {
  const [threadId, setThreadId] = useState(() => {
    const existing = threadFromPath();
    if (existing) return existing;
    const id = crypto.randomUUID();
    history.replaceState(null, "", `/t/${id}${location.search}`);
    return id;
  });
  useEffect(() => {
    const onPop = () => setThreadId(threadFromPath() ?? crypto.randomUUID());
    addEventListener("popstate", onPop);
    return () => removeEventListener("popstate", onPop);
  }, []);
  const navigate = (id: string) => {
    history.pushState(null, "", `/t/${encodeURIComponent(id)}`);
    setThreadId(id);
  };
  return [threadId, navigate, () => navigate(crypto.randomUUID())];
}

function Main() {
  const [threadId, navigate, newThread] = useThreadRoute();
  return (
    <CopilotKitProvider runtimeUrl={RUNTIME_URL} headers={authHeaders} showDevConsole={false} enableInspector={false}>
      <App threadId={threadId} navigate={navigate} newThread={newThread} />
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
