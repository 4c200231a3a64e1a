/**
 * The delivery worker, one per instance: finds due outbox rows (sql/webhook-outbox.ts), claims
 * each one alone, posts it (deliver.ts), and records the outcome, fenced by the attempt it
 * claimed. Every instance polls; a row is delivered by whichever claims it, and again by another
 * if that one dies before recording it (at least once: the Idempotency-Key lets the receiver
 * drop the second). A run's end committed here wakes the worker at once (wake()).
 */
import { createHash } from "node:crypto";
import type { Logger } from "pino";
import { wireRunId } from "../../protocol/run-ids.ts";
import type { WebhookMetrics } from "../metrics/webhooks.ts";
import type { OutboxRow } from "../store/webhook-store.ts";
import type { EventStore } from "../store/types.ts";
import { postWebhook, type AttemptOutcome } from "./deliver.ts";
import { retryDelayMs, type WebhookSettings } from "./settings.ts";
import { IDEMPOTENCY_HEADER, SIGNATURE_HEADER, signatureHeader } from "./signature.ts";

/**
 * How often an instance looks for due rows: the delay of a retry past its due time, and of an end
 * another instance committed and could not deliver (it died). Its own ends wake it at once.
 */
export const WEBHOOK_POLL_MS = 1_000;
/** Rows claimed per poll, and so posted at once by one instance at most. */
export const WEBHOOK_BATCH = 16;

/** What a receiver gets: the fixed body of docs/webhooks.md. */
export interface WebhookBody {
  threadId: string;
  runId: string;
  status: string;
  error?: { code: string; message: string };
  at: string;
}

export function webhookBody(row: Pick<OutboxRow, "threadId" | "runId" | "status" | "error" | "endedAt">): string {
  const body: WebhookBody = {
    threadId: row.threadId,
    runId: wireRunId(row.runId),
    status: row.status,
    ...(row.error && { error: { code: row.error.code, message: row.error.message } }),
    at: new Date(row.endedAt).toISOString(),
  };
  return JSON.stringify(body);
}

/** Stable per run end: the same for every attempt of it, different for every other end. */
export function idempotencyKey(threadId: string, logRunId: string): string {
  return createHash("sha256").update(`${threadId}\u0000${logRunId}`).digest("hex").slice(0, 32);
}

export interface WebhookWorkerDeps {
  store: EventStore;
  settings: WebhookSettings;
  logger: Logger;
  metrics: WebhookMetrics;
}

export class WebhookWorker {
  readonly #deps: WebhookWorkerDeps;
  readonly #stop = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #polling: Promise<void> | undefined;
  #again = false;

  constructor(deps: WebhookWorkerDeps) {
    this.#deps = deps;
  }

  start(): void {
    this.wake();
  }

  /** Polls now (or right after the poll in flight). */
  wake(): void {
    if (this.#stop.signal.aborted) return;
    if (this.#polling) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#timer);
    this.#polling = this.#poll()
      .catch((err: unknown) => this.#deps.logger.warn({ err }, "webhook poll failed; the next poll tries again"))
      .finally(() => {
        this.#polling = undefined;
        if (this.#stop.signal.aborted) return;
        if (this.#again) {
          this.#again = false;
          this.wake();
        } else this.#timer = setTimeout(() => this.wake(), WEBHOOK_POLL_MS);
      });
  }

  /**
   * Stops polling and cuts the attempts in flight: their rows stay claimed until the claim
   * expires, then any instance delivers them (the receiver may see that attempt twice).
   */
  async close(): Promise<void> {
    this.#stop.abort();
    clearTimeout(this.#timer);
    await this.#polling;
  }

  async #poll(): Promise<void> {
    const { store } = this.#deps;
    const due = await store.webhooks.due(Date.now(), WEBHOOK_BATCH);
    await Promise.all(due.map((d) => this.#attempt(d.threadId, d.runId)));
  }

  async #attempt(threadId: string, runId: string): Promise<void> {
    const { store, settings, logger, metrics } = this.#deps;
    // The claim outlasts the attempt's own bound twice over: a claim that expires during a slow
    // attempt (a process given a tenth of a core) only means a second delivery, never a lost one.
    const claimMs = 2 * settings.timeoutMs + 5_000;
    const row = await store.webhooks.claim(threadId, runId, Date.now(), claimMs);
    if (!row || this.#stop.signal.aborted) return;
    const log = logger.child({ threadId, runId: wireRunId(runId), attempt: row.attempts, webhook: hostOf(row.url) });
    const secret = settings.secretFor(row.tenantId);
    const body = webhookBody(row);
    const outcome: AttemptOutcome = secret
      ? await postWebhook(
          row.url,
          body,
          { [SIGNATURE_HEADER]: signatureHeader(secret, Math.floor(Date.now() / 1000), body), [IDEMPOTENCY_HEADER]: idempotencyKey(threadId, runId), "User-Agent": "Threadline-Webhooks/1" },
          { timeoutMs: settings.timeoutMs, allowed: settings.allowed, signal: this.#stop.signal },
        )
      : { ok: false, status: null, error: `nothing signs tenant "${row.tenantId}"'s webhooks: set WEBHOOK_SECRET or a WEBHOOK_TENANT_SECRETS entry` };
    // Cut by close(): the claim stands, and the row is due again when it expires.
    if (this.#stop.signal.aborted) return;
    const now = Date.now();
    if (outcome.ok) {
      await store.webhooks.delivered(threadId, runId, row.attempts, now, outcome.status);
      metrics.webhookAttempts.inc({ outcome: "delivered" });
      log.info({ status: outcome.status }, "webhook delivered");
      return;
    }
    const last = row.attempts >= settings.maxAttempts || !secret;
    const retryAt = last ? null : now + retryDelayMs(row.attempts, settings.retryBaseMs);
    await store.webhooks.failed({ threadId, runId, attempt: row.attempts, now, retryAt, httpStatus: outcome.status, error: outcome.error.slice(0, 2000) });
    metrics.webhookAttempts.inc({ outcome: last ? "gave_up" : "failed" });
    if (last) log.error({ error: outcome.error, attempts: row.attempts }, "webhook given up after its last attempt");
    else log.warn({ error: outcome.error, retryInMs: retryAt! - now }, "webhook attempt failed; it is tried again");
  }
}

/** The URL's host, for log lines: its path or query may carry a token. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "(invalid URL)";
  }
}
