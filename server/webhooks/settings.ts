/**
 * The webhook settings a Threadline runs with, from its configuration (README "Configuration",
 * docs/webhooks.md): who signs for which tenant, where ends go when a run names no URL, which
 * private hosts are allowed, and the bounds of a delivery.
 */
import { ConfigError, type Config } from "../config.ts";
import type { WebhookTargets } from "../store/webhook-store.ts";
import { allowedHostsOf, type AllowedHosts } from "./url-policy.ts";

export interface WebhookSettings {
  /** The key that signs a tenant's deliveries (its own, else WEBHOOK_SECRET); undefined: none. */
  secretFor(tenantId: string): string | undefined;
  allowed: AllowedHosts;
  targets: WebhookTargets;
  timeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
}

export function webhookSettings(config: Config): WebhookSettings {
  const tenantSecrets = config.WEBHOOK_TENANT_SECRETS;
  const secretFor = (tenantId: string) => tenantSecrets.get(tenantId) ?? config.WEBHOOK_SECRET;
  // A URL the configuration names must be signable: found at start, not at the first run's end.
  const unsigned = [...config.WEBHOOK_TENANT_URLS.keys()].filter((t) => secretFor(t) === undefined);
  if (config.WEBHOOK_URL !== undefined && config.WEBHOOK_SECRET === undefined) unsigned.unshift("(every tenant: WEBHOOK_URL)");
  if (unsigned.length > 0) {
    throw new ConfigError(
      ["WEBHOOK_SECRET"],
      `Invalid configuration: webhooks are configured for ${unsigned.join(", ")} but nothing signs them; set WEBHOOK_SECRET (or a WEBHOOK_TENANT_SECRETS entry per tenant) and start again.`,
    );
  }
  return {
    secretFor,
    allowed: allowedHostsOf(config.WEBHOOK_ALLOWED_HOSTS),
    targets: { serverUrl: config.WEBHOOK_URL ?? null, tenantUrls: config.WEBHOOK_TENANT_URLS },
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    maxAttempts: config.WEBHOOK_MAX_ATTEMPTS,
    retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
  };
}

/** A router built without settings: no secret, so no run may name a webhook. */
export const NO_WEBHOOKS: WebhookSettings = {
  secretFor: () => undefined,
  allowed: new Set(),
  targets: { serverUrl: null, tenantUrls: new Map() },
  timeoutMs: 10_000,
  maxAttempts: 1,
  retryBaseMs: 1_000,
};

/** The longest wait between two attempts: past an hour, a receiver that is down is down. */
export const WEBHOOK_RETRY_MAX_MS = 3_600_000;

/** When attempt `attempt` (1-based) that failed is tried again: base, doubling, capped, ±20% jitter. */
export function retryDelayMs(attempt: number, baseMs: number, random: () => number = Math.random): number {
  const plain = Math.min(WEBHOOK_RETRY_MAX_MS, baseMs * 2 ** Math.min(attempt - 1, 30));
  // Jitter spreads the retries of many deliveries that failed together (a receiver's outage).
  return Math.round(plain * (0.8 + 0.4 * random()));
}
