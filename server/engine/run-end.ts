/**
 * The one report of a run's end: a log line and the observer's runEnded, from whichever place
 * committed the terminal event (the executor's settle, a failure nobody owned, a recovery that
 * fails the run, the cancel of an orphan). One function, so that every end reads the same in
 * the log and counts the same in the metrics.
 */
import type { Logger } from "pino";
import type { WorkflowEvent } from "../../protocol/events.ts";
import { type EngineObserver, noTokens, type RunEnd, type RunEndOutcome, type RunFacts, type TokenTotals } from "./observer.ts";

/**
 * Logs "run ended" with what an operator filters on (agent, tenant, outcome, error code,
 * duration, tokens) and tells the observer. `log` is the run's logger: it names the thread, the
 * run and the request already.
 */
export function reportRunEnd(log: Logger, observer: EngineObserver, run: RunFacts, end: RunEnd): void {
  const { outcome, errorCode, durationMs, tokens } = end;
  const fields = { agentId: run.agentId, tenantId: run.tenantId, outcome, ...(errorCode !== undefined && { errorCode }), durationMs: Math.round(durationMs), tokens };
  if (outcome === "failed") log.warn(fields, "run ended");
  else log.info(fields, "run ended");
  observer.runEnded(run, end);
}

/** The outcome a terminal event records, and its error code; undefined for any other event. */
export function endOf(terminal: WorkflowEvent): { outcome: RunEndOutcome; errorCode?: string } | undefined {
  switch (terminal.type) {
    case "workflow.completed":
      return { outcome: "completed" };
    case "workflow.suspended":
      return { outcome: "waiting" };
    case "workflow.cancelled":
      return { outcome: "cancelled" };
    case "workflow.failed":
      return { outcome: "failed", errorCode: terminal.data.error.code };
    default:
      return undefined;
  }
}

/** The end of a run that did not execute here (recovery failed it, a cancel settled it): no time, no tokens. */
export function instantEnd(outcome: RunEndOutcome, errorCode?: string): RunEnd {
  return { outcome, ...(errorCode !== undefined && { errorCode }), durationMs: 0, tokens: noTokens() };
}

export function addTokens(into: TokenTotals, add: TokenTotals): void {
  into.inputTokens += add.inputTokens;
  into.outputTokens += add.outputTokens;
  into.totalTokens += add.totalTokens;
}
