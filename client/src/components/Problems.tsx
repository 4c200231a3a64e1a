/**
 * What went wrong, said where the person is looking, with what to do about it:
 *
 * - a refused request: the server answered a run with 4xx or 5xx before it started (an origin
 *   not in ALLOWED_ORIGINS behind a forwarded port, a limit, a key), so nothing was written. The
 *   server's own sentence, the fix, and the message kept to send again; it is taken out of the
 *   chat, which would otherwise show it as sent. A 401 also opens the key form (keys.ts). The
 *   same for a run CopilotKit's client would not start (run-not-started.ts): its reason, status 0.
 * - a failed run: the run started and failed (the model's provider, a tool, a lost instance).
 *   Under the thread's last message: what the log says happened, what to do, and Retry.
 *
 * Rejected: the top bar's banner for both, which was far from the message it was about and, on
 * a phone, off the screen once the chat scrolled.
 */
import { useAgent, useCopilotKit } from "@copilotkit/react-core/v2";
import { useEffect, useState } from "react";
import type { Agent } from "../agent-busy.ts";
import { useThreadChrome } from "../chrome-context.ts";
import { reportUnauthorized } from "../keys.ts";
import { useRunNotStarted } from "../run-not-started.ts";
import { useSteering } from "./steering.ts";

/** The error CopilotKit's HTTP agent throws for a non-2xx answer: the status and the parsed body. */
interface HttpRefusal {
  status: number;
  code: string;
  message: string;
}

function refusalOf(error: unknown): HttpRefusal | null {
  const e = error as { status?: unknown; payload?: unknown; message?: unknown } | null;
  if (!e || typeof e.status !== "number" || e.status < 400) return null;
  const body = (e.payload as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  const code = typeof body?.code === "string" ? body.code : `HTTP_${e.status}`;
  const message = typeof body?.message === "string" ? body.message : `The server answered ${e.status}.`;
  return { status: e.status, code, message };
}

/** What to do about a refusal, beyond what the server's sentence says. */
function fixForRefusal(r: HttpRefusal): string {
  if (r.status === 0) return NOT_STARTED_FIX;
  if (r.code === "ORIGIN_NOT_ALLOWED") return "Once the server is restarted with that setting, send the message again.";
  if (r.status === 401) return "Enter a key the server accepts in the form, then send the message again.";
  if (r.status === 429) return "Wait a moment, then send the message again.";
  if (r.status >= 500) return "The server could not take it just now: send it again in a moment. If it keeps failing, the server's log says why.";
  return "Change what the server objects to, then send the message again.";
}

export interface Refused extends HttpRefusal {
  text: string;
}

/** What to do about a run the browser would not start: answering the question is the way on. */
const NOT_STARTED_FIX = "Answer the question above first (or deny it), then send the message again.";

export function useRefusedRun(agent: Agent): [Refused | null, (r: Refused | null) => void] {
  const { copilotkit } = useCopilotKit();
  const [refused, setRefused] = useState<Refused | null>(null);
  useRunNotStarted(copilotkit, agent, (error) => {
    const last = agent.messages.findLast((m) => m.role === "user");
    // Never sent: the chat shows what the server holds.
    if (last) agent.setMessages(agent.messages.filter((m) => m.id !== last.id));
    setRefused({ status: 0, code: "NOT_STARTED", message: error.message, text: typeof last?.content === "string" ? last.content : "" });
  });
  useEffect(() => {
    const sub = agent.subscribe({
      onRunFailed: ({ error }) => {
        const r = refusalOf(error);
        if (!r) return;
        if (r.status === 401) reportUnauthorized();
        const last = agent.messages.findLast((m) => m.role === "user");
        // Nothing of the run reached the thread: the chat shows what the server holds.
        if (last) agent.setMessages(agent.messages.filter((m) => m.id !== last.id));
        setRefused({ ...r, text: typeof last?.content === "string" ? last.content : "" });
      },
      onRunInitialized: () => setRefused(null),
    });
    return () => sub.unsubscribe();
  }, [agent]);
  return [refused, setRefused];
}

export function RefusedNotice({ refused, canSend, onResend, onDismiss }: { refused: Refused; canSend: boolean; onResend(): void; onDismiss(): void }) {
  return (
    <div className="problem refused" data-testid="refused" data-code={refused.code} role="alert">
      <p data-testid="refused-message">
        <strong>{refused.status === 0 ? "The message was not sent." : `The server refused the message (${refused.status}).`}</strong> {refused.message}
      </p>
      <p className="problem-fix" data-testid="refused-fix">
        {fixForRefusal(refused)}
      </p>
      {refused.text && <blockquote data-testid="refused-text">{refused.text}</blockquote>}
      <div className="problem-actions">
        {refused.text && (
          <button type="button" className="btn btn-primary" data-testid="refused-resend" disabled={!canSend} onClick={onResend}>
            Send it again
          </button>
        )}
        <button type="button" className="btn" data-testid="refused-dismiss" onClick={onDismiss}>
          Dismiss
        </button>
      </div>
    </div>
  );
}

/** Sends a refused message again, as typed. */
export function useResend(agent: Agent, onSubmitted: () => void): (text: string) => void {
  const { copilotkit } = useCopilotKit();
  return (text: string) => {
    agent.addMessage({ id: crypto.randomUUID(), role: "user", content: text });
    onSubmitted();
    void copilotkit.runAgent({ agent }).catch((err: unknown) => console.warn("could not send the message again", err));
  };
}

/** What to do after a failed run, by the family of its code (protocol's and the models' codes). */
function fixForFailure(code: string | undefined): string {
  if (code?.startsWith("UPSTREAM_") || code === "LLM_ERROR")
    return "The model's provider failed or is overloaded. Retry sends your last message again; if it keeps failing, check the provider's status and the server's model settings (MODEL and its API key).";
  if (code === "MODEL_UNAVAILABLE") return "The server cannot use its model as configured: the message says what to install or set. Fix it, restart the server, then Retry.";
  if (code === "TOOL_ERROR" || code === "UNKNOWN_TOOL") return "A tool failed. Retry runs the turn again; rephrasing the message may lead the agent another way.";
  if (code === "RUNNER_RUN_LOST" || code === "INSTANCE_LOST" || code === "REMOTE_RUN_LOST") return "The server that ran it stopped. Retry runs it again on one that is up.";
  return "Retry sends your last message again; or start a new thread.";
}

/** The failure under the thread's last message, while the thread is FAILED. */
export function RunFailedNotice({ messageId }: { messageId: string }) {
  const { agentId, chrome, failure, onNew } = useThreadChrome();
  const { agent } = useAgent({ agentId });
  const { retry } = useSteering(agentId);
  if (chrome.banner !== "error") return null;
  const last = agent.messages.findLast((m) => m.role === "user" || m.role === "assistant");
  if (last?.id !== messageId) return null;
  const what = failure?.message ? `${failure.message}${failure.code ? ` (${failure.code})` : ""}` : "The run failed.";
  return (
    <div className="problem run-failed" data-testid="error-banner" data-code={failure?.code ?? ""} role="alert">
      <p data-testid="failure-message">
        <strong>The run failed.</strong> {what}
      </p>
      <p className="problem-fix" data-testid="failure-fix">
        {fixForFailure(failure?.code)}
      </p>
      <div className="problem-actions">
        <button type="button" className="btn btn-primary" data-testid="retry-button" onClick={retry}>
          Retry
        </button>
        <button type="button" className="link" onClick={onNew}>
          Start a new thread
        </button>
      </div>
    </div>
  );
}
