/**
 * Who is calling, and as which tenant: the API keys (API_KEYS), or the application's own `auth`
 * hook when Threadline is mounted in an app that already knows its users. One middleware
 * resolves the tenant either way, so every route reads it the same way and the same tenant
 * rules hold. Keys are compared in constant time so that response timing does not leak how
 * much of a key was right.
 *
 * The tenant travels on `res.locals` (read it with `callerTenant`), one value per request: a
 * module-level "current tenant" would be shared by every request in flight.
 */
import { timingSafeEqual } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import { DEFAULT_TENANT, TENANT_NAME, type ApiKey } from "../tenant.ts";
import { sendError } from "./errors.ts";

function sameKey(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const TENANT_LOCAL = "threadlineTenant";

export function requireApiKey(keys: readonly ApiKey[]): RequestHandler {
  return (req, res, next) => {
    if (keys.length === 0) {
      res.locals[TENANT_LOCAL] = DEFAULT_TENANT;
      return next();
    }
    const header = req.get("authorization") ?? "";
    const match = /^Bearer\s+(.+)$/i.exec(header);
    const token = match?.[1]?.trim();
    // Every key is compared (no early exit), so timing does not tell which tenant's key was close.
    let tenant: string | undefined;
    if (token !== undefined) {
      for (const k of keys) if (sameKey(k.key, token)) tenant = k.tenant;
    }
    if (tenant !== undefined) {
      res.locals[TENANT_LOCAL] = tenant;
      return next();
    }
    res.setHeader("WWW-Authenticate", 'Bearer realm="threadline"');
    // Which of the two it was (no key, or one that is not in API_KEYS) tells a person what to fix.
    sendError(
      res,
      401,
      "UNAUTHORIZED",
      token === undefined
        ? "This server needs an API key: send the header `Authorization: Bearer <key>` with one of the keys in its API_KEYS setting (the part after `tenant:`)."
        : "The API key sent is not one of this server's keys: check it against the API_KEYS setting (the part after `tenant:`), and send it as `Authorization: Bearer <key>`.",
      { reason: token === undefined ? "missing" : "wrong" },
    );
  };
}

/** What an `auth` hook answers: the caller's tenant, or null to refuse the request (401). */
export type AuthResult = { tenantId: string } | null;

/**
 * The application's own check of a request (its session, its JWT...). Return `{ tenantId }` for
 * a caller it accepts (threads are scoped to that tenant, as with API keys; use "default" for a
 * single-tenant app), or null to answer 401. A throw is a 500 and is logged.
 */
export type AuthHook = (req: Request) => AuthResult | Promise<AuthResult>;

export class AuthHookError extends Error {
  override readonly name = "AuthHookError";
}

/**
 * The tenant of every request under the router: the hook's answer when there is a hook, else
 * the API key's (requireApiKey). Rejected: asking the hook only when no key matched, which made
 * a request's tenant depend on which of two mechanisms happened to accept it.
 */
export function resolveTenant({ apiKeys, auth }: { apiKeys: readonly ApiKey[]; auth?: AuthHook }): RequestHandler {
  if (!auth) return requireApiKey(apiKeys);
  return (req, res, next) => {
    Promise.resolve()
      .then(() => auth(req))
      .then((result) => {
        if (result === null || result === undefined) {
          return sendError(res, 401, "UNAUTHORIZED", "This server's authentication refused the request: sign in, or send the credentials your application expects.");
        }
        const tenantId: unknown = (result as { tenantId?: unknown }).tenantId;
        if (typeof tenantId !== "string" || !TENANT_NAME.test(tenantId)) {
          throw new AuthHookError(
            `The auth hook answered tenantId ${JSON.stringify(tenantId)}: return { tenantId } with 1-64 letters, digits, "_", "." or "-" (or null to refuse the request).`,
          );
        }
        res.locals[TENANT_LOCAL] = tenantId;
        next();
      })
      .catch(next);
  };
}

/**
 * The tenant requireApiKey admitted this request as. Throws when the middleware did not run:
 * answering for no tenant, or for the default one, would let a mis-mounted route read every
 * tenant's threads.
 */
/** The caller's tenant once auth decided it; undefined before (or for a request auth refused). */
export function tenantIfKnown(res: Response): string | undefined {
  const tenant: unknown = res.locals[TENANT_LOCAL];
  return typeof tenant === "string" ? tenant : undefined;
}

export function callerTenant(res: Response): string {
  const tenant: unknown = res.locals[TENANT_LOCAL];
  if (typeof tenant !== "string") {
    throw new Error("No tenant on this request: mount resolveTenant() in front of every route that touches threads.");
  }
  return tenant;
}

/**
 * Guards GET /metrics: with METRICS_TOKEN set, that bearer token; else, when API_KEYS is set,
 * any API key (metrics name agents and counts of runs); else open, as Prometheus scrapers
 * expect on a private network.
 */
export function requireMetricsToken(metricsToken: string | undefined, apiKeys: readonly ApiKey[]): RequestHandler {
  const keys = metricsToken !== undefined ? [metricsToken] : apiKeys.map((k) => k.key);
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
