/** The status chrome, one row per thread status: label and spinner, Cancel while RUNNING, and banners. */
import type { WorkflowEvent } from "../api.ts";
import type { Chrome, ChromeStatus } from "../status.ts";

interface Props {
  status: ChromeStatus;
  chrome: Chrome;
  events: WorkflowEvent[];
  onCancel(): void;
  onNew(): void;
}

function failure(events: WorkflowEvent[]): string {
  const failed = events.findLast((e) => e.type === "workflow.failed");
  const error = failed?.data.error as { code?: string; message?: string } | undefined;
  if (!error) return "The run failed.";
  return error.code ? `${error.message} (${error.code})` : (error.message ?? "The run failed.");
}

export function StatusBar({ status, chrome, events, onCancel, onNew }: Props) {
  return (
    <>
      <div className="status-bar">
        <span className={`status status-${status.toLowerCase()}`} data-testid="thread-status" data-status={status}>
          {chrome.spinner && <span className="spinner" aria-hidden />}
          {chrome.label}
        </span>
        {chrome.cancelVisible && (
          <button type="button" className="btn btn-danger" data-testid="cancel-button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
      {chrome.banner === "error" && (
        <div className="banner banner-error" role="alert" data-testid="error-banner">
          <strong>Something went wrong.</strong> {failure(events)}{" "}
          <button type="button" className="link" onClick={onNew}>
            Start a new thread
          </button>
        </div>
      )}
      {chrome.banner === "cancelled" && (
        <div className="banner banner-cancelled" role="status" data-testid="cancelled-banner">
          <strong>Cancelled.</strong> This conversation was stopped.{" "}
          <button type="button" className="link" onClick={onNew}>
            Start a new thread
          </button>
        </div>
      )}
    </>
  );
}
