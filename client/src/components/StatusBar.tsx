/**
 * The status chrome, one row per thread status: label and spinner, and the cancelled banner.
 * Stop lives in the chat's input (Chat.tsx), where the eye is while a run goes; a failure shows
 * under the thread's last message (Problems.tsx). After a cancel the banner offers Retry (the
 * last turn again) first; the input stays usable too, so the conversation goes on either way.
 */
import { useThreadChrome } from "../chrome-context.ts";
import type { Chrome, ChromeStatus } from "../status.ts";
import { useSteering } from "./steering.ts";

interface Props {
  status: ChromeStatus;
  chrome: Chrome;
  onNew(): void;
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

export function StatusBar({ status, chrome, onNew }: Props) {
  return (
    <>
      <div className="status-bar">
        <span className={`status chip-${chrome.tone}`} data-testid="thread-status" data-status={status} data-label={chrome.label} role="status">
          {chrome.spinner && <span className="spinner" aria-hidden />}
          {chrome.label}
        </span>
      </div>
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
