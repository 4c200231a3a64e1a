/** Series of webhook deliveries (docs/webhooks.md): every attempt's outcome, and the deliveries given up. */
import { Counter, type Registry } from "prom-client";

export interface WebhookMetrics {
  /** outcome: delivered (2xx), failed (will retry), gave_up (its last attempt failed) */
  webhookAttempts: Counter<"outcome">;
}

export function webhookMetrics(registry: Registry): WebhookMetrics {
  const webhookAttempts = new Counter({
    name: "threadline_webhook_attempts_total",
    help: "Webhook delivery attempts by outcome: delivered (2xx), failed (retried later), gave_up (the last attempt failed)",
    labelNames: ["outcome"],
    registers: [registry],
  });
  // Every outcome from the start at 0: an alert on gave_up works before the first one happens.
  for (const outcome of ["delivered", "failed", "gave_up"]) webhookAttempts.inc({ outcome }, 0);
  return { webhookAttempts };
}
