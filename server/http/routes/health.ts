/**
 * Liveness, readiness and Prometheus metrics. Ready means a run sent now would be accepted:
 * start() has finished and close() has not begun (serving.ts, the one owner of that), and the
 * database answers and is migrated.
 */
import { Router } from "express";
import type { Metrics } from "../../metrics.ts";
import { DatabaseUnavailableError, SchemaTooNewError, StoreError, StoreNotReadyError } from "../../store/errors.ts";
import type { EventStore } from "../../store/types.ts";
import type { Serving } from "../../serving.ts";
import { DATABASE_RETRY_AFTER_SECONDS } from "../errors.ts";

/**
 * How long /readyz waits for the database. A silent socket would otherwise hold the probe until
 * the client query timeout (DB_STATEMENT_TIMEOUT_MS + 1 s), and a pool with no free connection
 * until the pool-acquire bound (DB_CONNECT_TIMEOUT_MS, 5 s): both longer than a load balancer
 * waits for a probe.
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

/**
 * Why the server is not ready, always naming the database: `cause` "database" and the code a
 * request would get (DATABASE_UNAVAILABLE when it cannot be reached or does not answer,
 * STORE_NOT_READY when it answers but is not migrated yet, SCHEMA_TOO_NEW when a later release
 * migrated it past what this code runs on).
 */
function notReady(err: unknown): { cause: "database"; code: string; error: string } {
  if (err instanceof PingTimeoutError) {
    return {
      cause: "database",
      code: "DATABASE_UNAVAILABLE",
      error: `The database did not answer (${err.message}). Check that it is up and reachable from this host (network, failover, connection limits); runs pause meanwhile.`,
    };
  }
  if (err instanceof DatabaseUnavailableError) {
    return {
      cause: "database",
      code: err.code,
      error: `${err.message} Check that it is up and reachable from this host (DATABASE_URL, network, failover, connection limits); runs pause meanwhile.`,
    };
  }
  // Its schema is another release's: the message names both versions and what to do, and
  // DATABASE_URL is not the fault.
  if (err instanceof SchemaTooNewError || err instanceof StoreNotReadyError) return { cause: "database", code: err.code, error: `${err.message}.` };
  const what = err instanceof Error ? err.message : String(err);
  return {
    cause: "database",
    code: err instanceof StoreError ? err.code : "STORE_NOT_READY",
    error: `The database is not ready: ${what}. Check DATABASE_URL and that the database accepts connections.`,
  };
}

export function healthRoutes({ store, metrics, serving }: { store: EventStore; metrics: Metrics; serving: Serving }): Router {
  const router = Router();
  const ping = pinger(store, READY_TIMEOUT_MS);
  router.get("/healthz", (_req, res) => {
    res.json({ ok: true });
  });
  router.get("/readyz", async (_req, res) => {
    // The life cycle first, without a round trip: a starting or draining instance is not ready
    // whatever the database says, and says why with the code a run would get.
    const refused = serving.refusal();
    if (refused) {
      res.setHeader("Retry-After", String(refused.retryAfterSeconds));
      res.status(503).json({ ok: false, store: store.kind, cause: serving.phase, code: refused.code, error: refused.message });
      return;
    }
    try {
      await ping();
      res.json({ ok: true, store: store.kind });
    } catch (err) {
      res.setHeader("Retry-After", String(DATABASE_RETRY_AFTER_SECONDS));
      res.status(503).json({ ok: false, store: store.kind, ...notReady(err) });
    }
  });
  router.get("/metrics", async (_req, res) => {
    res.setHeader("Content-Type", metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  });
  return router;
}
