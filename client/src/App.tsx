/**
 * The Threadline app: the chat is the page's main column, at a readable width; the agents and
 * threads are on the left; the thread's shared state (or the demo feature's panel) and its raw
 * events are a side column a person opens from the top bar (panels.ts: closed at first on the
 * Threadline agent's page, open on a demo's). The status chrome on top follows the thread's
 * durable status. In a narrow window the chat has the screen and the other two open as drawers
 * (Layout.tsx).
 */
import { useAgent, useCopilotKit } from "@copilotkit/react-core/v2";
import { Fragment, type ReactNode, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { isActive } from "../../protocol/lifecycle.ts";
import { cancelThread, type WorkflowEvent } from "./api.ts";
import { ThreadChromeContext, type ThreadChrome } from "./chrome-context.ts";
import { Chat } from "./components/Chat.tsx";
import { PanelHead, SidePanels } from "./components/SidePanels.tsx";
import { type Drawer, SkipToInput, useDrawer, useWideWindow } from "./components/Layout.tsx";
import { backgroundFrom, DefaultFrontendTools } from "./components/FrontendTools.tsx";
import { ThreadList } from "./components/ThreadList.tsx";
import { useToolCards } from "./components/ToolCards.tsx";
import { TopBar } from "./components/TopBar.tsx";
import type { DemoFeature } from "./demos/feature.ts";
import { ChatSkeleton } from "./components/Skeleton.tsx";
import { isFresh, markStarted } from "./fresh-threads.ts";
import { useRuntimeStatus } from "./runtime-ready.ts";
import { type Panels, usePanels } from "./panels.ts";
import { useRunNotStarted } from "./run-not-started.ts";
import { chromeFor, settled, type ChromeStatus } from "./status.ts";
import { SubagentsContext, useSubagentIndex } from "./subagents.ts";
import { type ThreadView, useThread } from "./useThread.ts";

interface Props {
  agentId: string;
  /** The demo feature this page shows; none for the Threadline agent's page. */
  demo?: DemoFeature;
  /** The agents picker (the agents the server hosts). */
  picker: ReactNode;
  threadId: string;
  navigate(threadId: string): void;
  newThread(): void;
}

type Agent = ReturnType<typeof useAgent>["agent"];
type CopilotKit = ReturnType<typeof useCopilotKit>["copilotkit"];

export function App({ agentId, demo, picker, threadId, navigate, newThread }: Props) {
  const view = useThread(threadId, !isFresh(threadId));
  const { agent } = useAgent({ agentId });
  const { copilotkit } = useCopilotKit();
  useToolCards();
  const subagents = useSubagentIndex(agent, threadId, view.events, view.detail);
  const server = view.detail?.status;
  const [submitted, setSubmitted] = useSubmitted(copilotkit, agent, threadId, view);

  const cancel = useCallback(() => cancelRun(copilotkit, agent, threadId), [copilotkit, agent, threadId]);
  const context = useChromeContext(agentId, threadId, view, submitted, setSubmitted, cancel, newThread);
  const runtime = useRuntimeStatus();
  const pulse = useListPulse(threadId, server, view.loaded);
  const { status, chrome } = context;
  const drawer = useDrawer(threadId);
  const panels = usePanels(demo ? `demo:${demo.slug}` : `agent:${agentId}`, demo !== undefined);
  const side = useSideColumn(panels, drawer);

  const background = backgroundFrom(agent.messages as never[]);
  const Tools = demo ? demo.Tools : DefaultFrontendTools;
  const Provider = demo?.Provider ?? Fragment;
  const sideTitle = demo ? `${demo.title}: panel and events` : "Shared state and events";
  return (
    <ThreadChromeContext.Provider value={context}>
      <SubagentsContext.Provider value={subagents}>
      <Provider>
        {Tools && <Tools />}
        <div
          className={`app${drawer.open ? ` drawer-${drawer.open}` : ""}${panels.side ? " side-open" : ""}`}
          data-testid="app"
          data-agent={agentId}
          data-background={background ?? ""}
          data-drawer={drawer.open ?? ""}
          data-side={panels.side ? "open" : "closed"}
          style={background ? { background } : undefined}
        >
          <SkipToInput />
          <TopBar
            demo={demo}
            threadId={threadId}
            title={view.detail?.title ?? null}
            archived={view.detail?.archived ?? false}
            status={status}
            chrome={chrome}
            onNew={newThread}
            nav={{ expanded: drawer.open === "nav", onToggle: () => drawer.toggle("nav") }}
            side={{ ...side, label: sideTitle }}
          />
          {/* The chat comes first in the document, so it is first for the keyboard and on a phone. */}
          <main className="chat-column" aria-label="Conversation">
            {runtime === "connected" ? <Chat /> : runtime === "error" ? <RuntimeDown /> : <ChatSkeleton />}
          </main>
          <div className="left drawer" id="drawer-nav" data-testid="drawer-nav">
            <PanelHead title="Agents and threads" onClose={drawer.close} />
            {picker}
            <ThreadList agentId={agentId} currentId={threadId} pulse={pulse} onSelect={navigate} onNew={newThread} onChanged={view.refresh} />
            {/* A developer's page (the v1 API), so at the foot of the column rather than in the top bar. */}
            <a className="v1-link" href="/v1">
              The same agent on the v1 API
            </a>
          </div>
          <SidePanels
            demo={demo}
            title={sideTitle}
            editable={chrome.inputEnabled}
            live={isActive(status)}
            events={view.events}
            connected={view.connected}
            eventsOpen={panels.events}
            onEventsToggle={() => panels.set({ events: !panels.events })}
            onClose={side.close}
          />
          {drawer.open && <div className="scrim" data-testid="scrim" onClick={drawer.close} aria-hidden="true" />}
        </div>
      </Provider>
      </SubagentsContext.Provider>
    </ThreadChromeContext.Provider>
  );
}

/**
 * The side column's toggle and Close: in a wide window they open and close the column beside the
 * chat (remembered); in a narrow one the drawer over it (not remembered: it covers the chat).
 */
function useSideColumn(panels: Panels, drawer: Drawer): { expanded: boolean; onToggle(): void; close(): void } {
  const wide = useWideWindow();
  if (wide) return { expanded: panels.side, onToggle: () => panels.set({ side: !panels.side }), close: () => panels.set({ side: false }) };
  return { expanded: drawer.open === "panels", onToggle: () => drawer.toggle("panels"), close: drawer.close };
}

/**
 * What the thread's chrome shows: the server's row, or PENDING while a run this page submitted
 * has not reached it yet (the row would otherwise show NEW, or the last run's end, until then).
 */
function useChromeContext(
  agentId: string,
  threadId: string,
  view: ThreadView,
  submitted: boolean,
  setSubmitted: (submitted: boolean) => void,
  onCancel: () => void,
  onNew: () => void,
): ThreadChrome {
  let status: ChromeStatus = view.detail?.status ?? (view.loaded ? "NEW" : "LOADING");
  if (submitted && (status === "NEW" || settled(status))) status = "PENDING";
  const chrome = chromeFor(status, view.detail?.waitingForYou);
  const failure = useMemo(() => (chrome.banner === "error" ? failureOf(view.events) : null), [chrome.banner, view.events]);
  return useMemo<ThreadChrome>(
    () => ({
      agentId,
      threadId,
      status,
      chrome,
      detail: view.detail,
      terminal: view.terminal,
      onSubmitted: () => setSubmitted(true),
      onCancel,
      failure,
      onNew,
    }),
    [agentId, threadId, status, chrome, view.detail, view.terminal, onCancel, failure, onNew],
  );
}

/** What the thread's last `workflow.failed` event says happened. */
function failureOf(events: WorkflowEvent[]): ThreadChrome["failure"] {
  const failed = events.findLast((e) => e.type === "workflow.failed");
  return (failed?.data.error as { code?: string; message?: string } | undefined) ?? null;
}

/**
 * What tells the thread list to ask again at once (it also asks every few seconds): the page's
 * thread, and each change of its status after the first answer for it. The first answer itself
 * is no change (the list was asked at the same moment), which had the list asked twice per load.
 */
function useListPulse(threadId: string, server: string | undefined, loaded: boolean): string {
  const seen = useRef({ threadId, server, loaded, n: 0 });
  const was = seen.current;
  if (was.threadId !== threadId) seen.current = { threadId, server, loaded, n: 0 };
  else if (was.server !== server) seen.current = { threadId, server, loaded, n: was.loaded ? was.n + 1 : was.n };
  else if (was.loaded !== loaded) seen.current = { ...was, loaded };
  return `${threadId}:${seen.current.n}`;
}

/** CopilotKit's runtime did not answer /api/copilotkit/info: the chat cannot start without it. */
function RuntimeDown() {
  return (
    <div className="problem runtime-down" data-testid="runtime-down" role="alert">
      <p>
        <strong>The chat could not reach the server's CopilotKit runtime</strong> (GET /api/copilotkit/info failed).
      </p>
      <p className="problem-fix">Check that the server is up (its /readyz), then reload the page.</p>
      <div className="problem-actions">
        <button type="button" className="btn btn-primary" onClick={() => location.reload()}>
          Reload
        </button>
      </div>
    </div>
  );
}

/**
 * CopilotKit's stop goes through the runtime to our runner, which cancels durably; if the
 * status has not moved a moment later, ask our cancel endpoint directly.
 */
function cancelRun(copilotkit: CopilotKit, agent: Agent, threadId: string): void {
  copilotkit.stopAgent({ agent });
  setTimeout(() => {
    // A refusal here usually means the run already ended through the first path; it is logged
    // (not shown), since the status chip is what tells the user whether the run stopped.
    void cancelThread(threadId).catch((err: unknown) => console.warn("cancel fallback failed", err));
  }, 1500);
}

/**
 * Whether a run this page submitted is on its way: the browser knows a run started before the
 * server's row says so, and this bridges the gap until the row is active or the run ends. Also
 * follows the agent's run events that move the view: RUN_STARTED makes a fresh thread real; a
 * run's end comes with its events on the thread's live feed, which refreshes the row (a refresh
 * here too was a third GET of the thread per load, after CopilotKit's connect); a refused run
 * writes none, so its failure refreshes. A run CopilotKit refused before it started (an interrupt
 * it does not answer is pending) has none of those callbacks: its core error ends it here too.
 */
function useSubmitted(copilotkit: CopilotKit, agent: Agent, threadId: string, view: ThreadView): [boolean, (submitted: boolean) => void] {
  // A thread this tab minted does not exist on the server before its first run starts: asking
  // for it would only earn 404s (logged by the browser as errors), so the view waits for that.
  // isFresh is read on every render, not kept in state: a state would lag one render behind a
  // thread switch; this state only re-renders once the thread exists.
  const [, setStarted] = useState<string | null>(null);
  const [submitted, setSubmitted] = useState(false);
  useEffect(() => setSubmitted(false), [threadId]);
  const server = view.detail?.status;
  useEffect(() => {
    if (server && isActive(server)) setSubmitted(false);
  }, [server]);
  useEffect(() => {
    const sub = agent.subscribe({
      // RUN_STARTED is projected from the committed log: the thread exists from here on.
      onRunStartedEvent: () => {
        markStarted(threadId);
        setStarted(threadId); // re-render: the thread is no longer fresh
      },
      onRunFinalized: () => setSubmitted(false),
      onRunFailed: () => {
        setSubmitted(false);
        view.refresh();
      },
    });
    return () => sub.unsubscribe();
  }, [agent, threadId, view.refresh]);
  useRunNotStarted(copilotkit, agent, () => setSubmitted(false));
  return [submitted, setSubmitted];
}
