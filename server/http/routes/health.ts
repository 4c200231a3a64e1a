/** Liveness, readiness (the database answers and is migrated) and Prometheus metrics. */
import { Router } from "express";
import type { Metrics } from "../../metrics.ts";
import type { EventStore } from "../../store/types.ts";

export function healthRoutes({ store, metrics }: { store: EventStore; metrics: Metrics }): Router {
  const router = Router();
  router.get("/healthz", (_req, res) => {
    res.json({ ok: true });
  });
  router.get("/readyz", async (_req, res) => {
    try {
      await store.ping();
      res.json({ ok: true, store: store.kind });
    } catch (err) {
      res.status(503).json({
        ok: false,
        store: store.kind,
        error: `The database is not ready: ${err instanceof Error ? err.message : String(err)}. Check DATABASE_URL and that the database accepts connections.`,
      });
    }
  });
  router.get("/metrics", async (_req, res) => {
    res.setHeader("Content-Type", metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  });
  return router;
}
