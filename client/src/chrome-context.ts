/** What the chat's parts need to know about the thread, without prop drilling through CopilotKit slots. */
import { createContext, useContext } from "react";
import type { ThreadDetail } from "./api.ts";
import type { Chrome, ChromeStatus } from "./status.ts";

export interface ThreadChrome {
  /** The agent this page talks to (`default`, or a feature demo's). */
  agentId: string;
  threadId: string;
  status: ChromeStatus;
  chrome: Chrome;
  detail: ThreadDetail | null;
  terminal: Record<string, string>;
  /** Called when the user sends a message (the row lags the browser by a few ms). */
  onSubmitted(): void;
  /** Stops the running run, durably (the input's Stop button). */
  onCancel(): void;
  /** What the thread's last `workflow.failed` event says, while the thread is FAILED. */
  failure: { code?: string; message?: string } | null;
  /** Opens a new thread. */
  onNew(): void;
}

export const ThreadChromeContext = createContext<ThreadChrome | null>(null);

export function useThreadChrome(): ThreadChrome {
  const value = useContext(ThreadChromeContext);
  if (!value) throw new Error("useThreadChrome() must be used inside <ThreadChromeContext.Provider>.");
  return value;
}
