/**
 * Browser rules for state-changing requests under /api (POST, PUT, PATCH, DELETE, CopilotKit's
 * routes included): a body must be `application/json`, and a request that carries an `Origin`
 * must come from this server's own origin (the address the connection reached, never the `Host`
 * header) or one listed in ALLOWED_ORIGINS.
 *
 * JSON-only is what makes a cross-site form harmless: a page can POST `text/plain` or a form to
 * any URL without a CORS preflight, but not `application/json`. The Origin check covers the
 * requests that need no body at all (cancel, DELETE). CORS headers alone would not do: the
 * browser still sends a simple request, it only hides the answer, after the run has started.
 */
import type { Request, RequestHandler } from "express";
import { ForbiddenError, UnsupportedMediaTypeError } from "../errors.ts";

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

function hasBody(req: Request): boolean {
  const length = req.get("content-length");
  return req.get("transfer-encoding") !== undefined || (length !== undefined && length.trim() !== "0");
}

/** 415 unless the request has no body and names no type, or is `application/json`. */
export function requireJsonBodies(): RequestHandler {
  return (req, _res, next) => {
    if (!STATE_CHANGING.has(req.method)) return next();
    if (!hasBody(req) && req.get("content-type") === undefined) return next();
    // The media type itself, not req.is(): that answers null for an empty body with a JSON type.
    const type = (req.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (type === "application/json") return next();
    next(
      new UnsupportedMediaTypeError(
        "UNSUPPORTED_MEDIA_TYPE",
        `${req.method} ${req.path} accepts only JSON: send the body with \`Content-Type: application/json\` (got ${req.get("content-type") ? `"${req.get("content-type")}"` : "no Content-Type"}).`,
      ),
    );
  };
}

/** `scheme://host[:port]`, lower-cased, as browsers send it; null for anything else. */
export function normalizeOrigin(origin: string): string | null {
  try {
    const u = new URL(origin);
    if (u.protocol !== "http:" && u.protocol !== "https:") return null;
    return u.origin.toLowerCase();
  } catch {
    return null;
  }
}

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/** 127.0.0.0/8 and ::1 (an IPv4 address already unmapped from ::ffff:). */
function isLoopback(address: string): boolean {
  return address.startsWith("127.") || address === "::1";
}

/**
 * The origins of this server as the connection reached it, from the socket's local address and
 * port (which the kernel reports and no client chooses): on loopback, localhost, 127.0.0.1 and
 * [::1] at that port; on another interface, that address itself at that port. Rejected: the
 * `Host` header, which the browser fills in from the page's URL: a page of evil.example whose
 * name an attacker re-points at 127.0.0.1 (DNS rebinding) sends `Host: evil.example:3000` with
 * `Origin: http://evil.example:3000`, and a Host comparison let it through.
 */
export function socketOrigins(localAddress: string | undefined, localPort: number | undefined): string[] {
  if (!localAddress || !localPort) return [];
  // A socket bound to "::" reports an IPv4 peer's connection as ::ffff:a.b.c.d.
  const address = localAddress.startsWith("::ffff:") ? localAddress.slice(7) : localAddress;
  const hosts = isLoopback(address) ? LOOPBACK_NAMES : [address.includes(":") ? `[${address}]` : address];
  const origins = [];
  for (const host of hosts) {
    for (const scheme of ["http", "https"]) {
      const o = normalizeOrigin(`${scheme}://${host}:${localPort}`);
      if (o) origins.push(o);
    }
  }
  return origins;
}

/**
 * 403 for a state-changing request whose `Origin` is neither one of this server's own (the
 * address and port the connection reached: socketOrigins) nor listed in `allowed`
 * (ALLOWED_ORIGINS: a public origin behind a proxy or a port mapping, a dev server). Requests
 * without `Origin` (curl, servers, same-origin GETs) pass: they are not a browser acting for
 * another site.
 */
export function checkOrigin(allowed: readonly string[]): RequestHandler {
  const allow = new Set(allowed.map(normalizeOrigin).filter((o): o is string => o !== null));
  return (req, _res, next) => {
    if (!STATE_CHANGING.has(req.method)) return next();
    const origin = req.get("origin");
    if (origin === undefined) return next();
    const normalized = normalizeOrigin(origin);
    if (normalized && (allow.has(normalized) || socketOrigins(req.socket.localAddress, req.socket.localPort).includes(normalized))) return next();
    next(
      new ForbiddenError(
        "ORIGIN_NOT_ALLOWED",
        `Requests from the origin "${origin}" may not change anything on this server. If that page is yours (served through a proxy, a port mapping or another host name), add its origin to the ALLOWED_ORIGINS setting (comma-separated, e.g. ALLOWED_ORIGINS=${normalized ?? "https://app.example.com"}) and restart.`,
        { origin },
      ),
    );
  };
}
