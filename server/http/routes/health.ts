/** Liveness, readiness (the database answers and is migrated) and Prometheus metrics. */
import { Router } from "express";
import type { Metrics } from "../../metrics.ts";
import type { EventStore } from "../../store/types.ts";

/**
 * How long /readyz waits for the database. A silent socket would otherwise hold the probe until
 * the client query timeout (DB_STATEMENT_TIMEOUT_MS + 1 s), longer than a load balancer waits.
 */
export const READY_TIMEOUT_MS = 2_000;

class PingTimeoutError extends Error {
  override readonly name = "PingTimeoutError";
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

/** The store's ping, or PingTimeoutError once `ms` passed; at most one ping in flight. */
function pinger(store: EventStore, ms: number): () => Promise<void> {
  let inflight: Promise<void> | undefined;
  return () => {
    // Probes during an outage share the ping already waiting rather than each opening one.
    inflight ??= store.ping().finally(() => (inflight = undefined));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new PingTimeoutError(ms)), ms);
    });
    // The race keeps a handler on the ping, so its late rejection is not unhandled.
    return Promise.race([inflight, timeout]).finally(() => clearTimeout(timer));
  };
}

export function healthRoutes({ store, metrics }: { store: EventStore; metrics: Metrics }): Router {
  const router = Router();
  const ping = pinger(store, READY_TIMEOUT_MS);
  router.get("/healthz", (_req, res) => {
    res.json({ ok: true });
  });
  router.get("/readyz", async (_req, res) => {
    try {
      await ping();
      res.json({ ok: true, store: store.kind });
    } catch (err) {
      const what = err instanceof Error ? err.message : String(err);
      res.status(503).json({
        ok: false,
        store: store.kind,
        error:
          err instanceof PingTimeoutError
            ? `The database did not answer (${what}). Check that it is up and reachable from this host (network, failover, connection limits); runs pause meanwhile.`
            : `The database is not ready: ${what}. Check DATABASE_URL and that the database accepts connections.`,
      });
    }
  });
  router.get("/metrics", async (_req, res) => {
    res.setHeader("Content-Type", metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  });
  return router;
}
