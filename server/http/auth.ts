/**
 * Bearer-token check for /api when API_KEYS is set. Keys are compared in constant time so that
 * response timing does not leak how much of a key was right.
 */
import { timingSafeEqual } from "node:crypto";
import type { RequestHandler } from "express";
import { sendError } from "./errors.ts";

function sameKey(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function requireApiKey(keys: string[]): RequestHandler {
  return (req, res, next) => {
    if (keys.length === 0) return next();
    const header = req.get("authorization") ?? "";
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (match && keys.some((k) => sameKey(k, match[1]!.trim()))) return next();
    res.setHeader("WWW-Authenticate", 'Bearer realm="threadline"');
    sendError(res, 401, "UNAUTHORIZED", "This server needs an API key: send the header `Authorization: Bearer <key>` with one of the keys in its API_KEYS setting.");
  };
}

/**
 * Guards GET /metrics: with METRICS_TOKEN set, that bearer token; else, when API_KEYS is set,
 * any API key (metrics name agents and counts of runs); else open, as Prometheus scrapers
 * expect on a private network.
 */
export function requireMetricsToken(metricsToken: string | undefined, apiKeys: string[]): RequestHandler {
  const keys = metricsToken !== undefined ? [metricsToken] : apiKeys;
  return (req, res, next) => {
    if (keys.length === 0) return next();
    const match = /^Bearer\s+(.+)$/i.exec(req.get("authorization") ?? "");
    if (match && keys.some((k) => sameKey(k, match[1]!.trim()))) return next();
    res.setHeader("WWW-Authenticate", 'Bearer realm="threadline-metrics"');
    sendError(
      res,
      401,
      "UNAUTHORIZED",
      metricsToken !== undefined
        ? "GET /metrics needs `Authorization: Bearer <token>` with the server's METRICS_TOKEN; configure your scraper's bearer token."
        : "GET /metrics needs `Authorization: Bearer <key>` with one of the keys in API_KEYS (or set METRICS_TOKEN for a scraper-only token).",
    );
  };
}
