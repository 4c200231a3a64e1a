/**
 * The status chrome, one row per thread status: label and spinner, and banners. Stop lives in
 * the chat's input (Chat.tsx), where the eye is while a run goes. After a failure or a cancel the
 * banner offers Retry (the last turn again) first; the input stays usable too, so the
 * conversation goes on either way.
 */
import type { WorkflowEvent } from "../api.ts";
import { useThreadChrome } from "../chrome-context.ts";
import type { Chrome, ChromeStatus } from "../status.ts";
import { useSteering } from "./steering.ts";

interface Props {
  status: ChromeStatus;
  chrome: Chrome;
  events: WorkflowEvent[];
  onNew(): void;
}

function failure(events: WorkflowEvent[]): string {
  const failed = events.findLast((e) => e.type === "workflow.failed");
  const error = failed?.data.error as { code?: string; message?: string } | undefined;
  if (!error) return "The run failed.";
  return error.code ? `${error.message} (${error.code})` : (error.message ?? "The run failed.");
}

function RetryButton() {
  const { agentId } = useThreadChrome();
  const { retry } = useSteering(agentId);
  return (
    <button type="button" className="btn btn-primary" data-testid="retry-button" onClick={retry}>
      Retry
    </button>
  );
}

export function StatusBar({ status, chrome, events, onNew }: Props) {
  return (
    <>
      <div className="status-bar">
        <span className={`status chip-${chrome.tone}`} data-testid="thread-status" data-status={status} data-label={chrome.label} role="status">
          {chrome.spinner && <span className="spinner" aria-hidden />}
          {chrome.label}
        </span>
      </div>
      {chrome.banner === "error" && (
        <div className="banner banner-error" role="alert" data-testid="error-banner">
          <strong>Something went wrong.</strong> {failure(events)} <RetryButton />{" "}
          <button type="button" className="link" onClick={onNew}>
            Start a new thread
          </button>
        </div>
      )}
      {chrome.banner === "cancelled" && (
        <div className="banner banner-cancelled" role="status" data-testid="cancelled-banner">
          <strong>Cancelled.</strong> This conversation was stopped. <RetryButton />{" "}
          <button type="button" className="link" onClick={onNew}>
            Start a new thread
          </button>
        </div>
      )}
    </>
  );
}
