/**
 * The Threadline app: threads on the left, the thread's shared state and raw events in the
 * middle, the chat on the right; the status chrome on top follows the thread's durable status.
 */
import { useAgent, useCopilotKit } from "@copilotkit/react-core/v2";
import { useEffect, useMemo, useRef, useState } from "react";
import { isActive } from "../../protocol/lifecycle.ts";
import { cancelThread } from "./api.ts";
import { ThreadChromeContext, type ThreadChrome } from "./chrome-context.ts";
import { Chat } from "./components/Chat.tsx";
import { backgroundFrom, useFrontendTools } from "./components/FrontendTools.tsx";
import { Inspector } from "./components/Inspector.tsx";
import { StatePanel } from "./components/StatePanel.tsx";
import { StatusBar } from "./components/StatusBar.tsx";
import { ThreadList } from "./components/ThreadList.tsx";
import { useToolCards } from "./components/ToolCards.tsx";
import { chromeFor, settled, type ChromeStatus } from "./status.ts";
import { useThread } from "./useThread.ts";

interface Props {
  threadId: string;
  navigate(threadId: string): void;
  newThread(): void;
}

export function App({ threadId, navigate, newThread }: Props) {
  const view = useThread(threadId);
  const { agent } = useAgent();
  const { copilotkit } = useCopilotKit();
  useToolCards();
  useFrontendTools();

  // The browser knows a run started before the server's row says so: bridge the gap.
  const [submitted, setSubmitted] = useState(false);
  useEffect(() => setSubmitted(false), [threadId]);
  const server = view.detail?.status;
  useEffect(() => {
    if (server && isActive(server)) setSubmitted(false);
  }, [server]);
  useEffect(() => {
    const sub = agent.subscribe({
      onRunFinalized: () => {
        setSubmitted(false);
        view.refresh();
      },
      onRunFailed: () => {
        setSubmitted(false);
        view.refresh();
      },
    });
    return () => sub.unsubscribe();
  }, [agent, view.refresh]);

  // A run this page did not start (another tab, another client, another server instance): once
  // the log says it is active and nothing streams here, attach to it through CopilotKit's connect.
  const attachedRun = useRef<string | null>(null);
  const activeRunId = view.detail?.activeRunId ?? null;
  useEffect(() => {
    if (server !== "RUNNING" || !activeRunId || submitted || attachedRun.current === activeRunId) return;
    const timer = setTimeout(() => {
      if (agent.isRunning || attachedRun.current === activeRunId) return;
      attachedRun.current = activeRunId;
      void copilotkit.connectAgent({ agent }).catch(() => undefined);
    }, 400);
    return () => clearTimeout(timer);
  }, [server, activeRunId, submitted, agent, copilotkit]);

  let status: ChromeStatus = server ?? (view.loaded ? "NEW" : "LOADING");
  if (submitted && (status === "NEW" || settled(status))) status = "PENDING";
  const chrome = chromeFor(status, view.detail?.toolCalls);

  const cancel = () => {
    // CopilotKit's stop goes through the runtime to our runner, which cancels durably; if the
    // status has not moved a moment later, ask our cancel endpoint directly.
    copilotkit.stopAgent({ agent });
    setTimeout(() => {
      void cancelThread(threadId).catch(() => undefined);
    }, 1500);
  };

  const context = useMemo<ThreadChrome>(
    () => ({
      threadId,
      status,
      chrome,
      detail: view.detail,
      terminal: view.terminal,
      onSubmitted: () => setSubmitted(true),
    }),
    [threadId, status, chrome, view.detail, view.terminal],
  );

  const background = backgroundFrom(agent.messages as never[]);
  return (
    <ThreadChromeContext.Provider value={context}>
      <div className="app" data-testid="app" data-background={background ?? ""} style={background ? { background } : undefined}>
        <header className="topbar">
          <span className="brand">Threadline</span>
          <span className="thread-id" data-testid="thread-id" title={threadId}>
            {threadId}
          </span>
          <StatusBar status={status} chrome={chrome} events={view.events} onCancel={cancel} onNew={newThread} />
          <a className="v1-link" href="/v1">
            v1 page
          </a>
        </header>
        <ThreadList currentId={threadId} pulse={`${threadId}:${server ?? "NEW"}`} onSelect={navigate} onNew={newThread} />
        <main className="middle">
          <StatePanel editable={chrome.inputEnabled} live={isActive(status)} />
          <Inspector events={view.events} connected={view.connected} />
        </main>
        <aside className="chat-sidebar">
          <Chat />
        </aside>
      </div>
    </ThreadChromeContext.Provider>
  );
}
