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
