/**
 * A message the server did not take, kept for the person to send again: a run refused because
 * this page's copy of the thread was stale (409 STALE_HISTORY: another tab, device or API client
 * added to the thread meanwhile). The page catches up first, so that nothing of what the others
 * added is hidden, then offers the text again. Rejected: resending it at once, which would answer
 * a question the person asked before seeing what changed.
 */
import { useCopilotKit } from "@copilotkit/react-core/v2";
import { useEffect, useState } from "react";
import type { Agent } from "../agent-busy.ts";
import { catchUpNow } from "../catch-up.ts";

export interface Unsent {
  text: string;
  resend(): void;
  discard(): void;
}

export function useUnsent(agent: Agent, busy: boolean, onSubmitted: () => void): Unsent | null {
  const { copilotkit } = useCopilotKit();
  const [text, setText] = useState<string | null>(null);
  const [behind, setBehind] = useState(false);
  useEffect(() => {
    const sub = agent.subscribe({
      onRunErrorEvent: ({ event }) => {
        if ((event as { code?: string }).code !== "STALE_HISTORY") return;
        const last = agent.messages.findLast((m) => m.role === "user");
        setText(typeof last?.content === "string" ? last.content : "");
        setBehind(true);
      },
    });
    return () => sub.unsubscribe();
  }, [agent]);
  // Once the refused run is over: the thread as it is now replaces this page's stale copy.
  useEffect(() => {
    if (!behind || busy || agent.isRunning) return;
    setBehind(false);
    void catchUpNow(agent, copilotkit).catch((err: unknown) => console.warn("could not catch up with the thread", err));
  }, [behind, busy, agent, copilotkit]);
  if (text === null) return null;
  return {
    text,
    resend() {
      setText(null);
      agent.addMessage({ id: crypto.randomUUID(), role: "user", content: text });
      onSubmitted();
      void copilotkit.runAgent({ agent }).catch((err: unknown) => console.warn("could not send the message again", err));
    },
    discard: () => setText(null),
  };
}

export function UnsentNotice({ unsent, canSend }: { unsent: Unsent; canSend: boolean }) {
  return (
    <div className="unsent" data-testid="unsent" role="status">
      <p>
        The conversation moved on in another tab or device, so your message was not sent. The chat now shows the latest messages.
      </p>
      <blockquote data-testid="unsent-text">{unsent.text}</blockquote>
      <div className="unsent-actions">
        <button type="button" className="btn btn-primary" data-testid="unsent-resend" disabled={!canSend} onClick={unsent.resend}>
          Send it now
        </button>
        <button type="button" className="btn" data-testid="unsent-discard" onClick={unsent.discard}>
          Discard
        </button>
      </div>
    </div>
  );
}
