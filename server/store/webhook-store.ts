/**
 * The webhook outbox as the store offers it (EventStore.webhooks): where run ends are posted when
 * the run named no URL (set by the Threadline that owns the store), and the worker's steps over
 * the rows (sql/webhook-outbox.ts). Writes retry transient errors; each is fenced, so a retry of
 * one that did commit changes nothing more.
 */
import type { Db } from "./db.ts";
import { claimDelivery, markDelivered, markFailed, selectDueDeliveries, type OutboxRow, type WebhookTargets } from "./sql/webhook-outbox.ts";

export type { OutboxRow, WebhookTargets } from "./sql/webhook-outbox.ts";

export interface WebhookFailure {
  threadId: string;
  runId: string;
  attempt: number;
  now: number;
  /** when to try again; null: this was the last attempt */
  retryAt: number | null;
  httpStatus: number | null;
  error: string;
}

export interface WebhookOutbox {
  /** Where ends go when the run named no URL; read by every later flush that ends a run. */
  setTargets(targets: WebhookTargets): void;
  targets(): WebhookTargets;
  due(now: number, limit: number): Promise<{ threadId: string; runId: string }[]>;
  claim(threadId: string, runId: string, now: number, claimMs: number): Promise<OutboxRow | null>;
  delivered(threadId: string, runId: string, attempt: number, now: number, httpStatus: number): Promise<boolean>;
  failed(failure: WebhookFailure): Promise<boolean>;
}

export const NO_WEBHOOK_TARGETS: WebhookTargets = { serverUrl: null, tenantUrls: new Map() };

export function webhookOutbox(db: Db, s: string, retry: <T>(fn: () => Promise<T>) => Promise<T>): WebhookOutbox {
  let targets = NO_WEBHOOK_TARGETS;
  return {
    setTargets(given) {
      targets = given;
    },
    targets: () => targets,
    due: (now, limit) => retry(() => selectDueDeliveries(db, s, now, limit)),
    claim: (threadId, runId, now, claimMs) => retry(() => claimDelivery(db, s, threadId, runId, now, claimMs)),
    delivered: (threadId, runId, attempt, now, httpStatus) => retry(() => markDelivered(db, s, threadId, runId, attempt, now, httpStatus)),
    failed: (failure) => retry(() => markFailed(db, s, failure)),
  };
}
