/**
 * The client app (dist/client, built by Vite from client/) at `/`, with a single-page fallback: any GET for a
 * page (not /api, not a file) gets index.html, so /t/<threadId> and /v1 load the app.
 * Hashed assets are cached for good; index.html never is, so a new build shows at once.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import express, { Router } from "express";

/**
 * The bundle sits at <package root>/dist/client. This file runs from server/http (tsx, from
 * source) or from dist/server/http (npm start, an installed package), so the root is the nearest
 * directory above it with a package.json (dist/ has none), not a fixed number of `..`.
 */
export const DEFAULT_CLIENT_DIST = path.join(packageRoot(path.dirname(fileURLToPath(import.meta.url))), "dist", "client");

function packageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) return from;
  }
}

const NOT_PAGES = /^\/(api|healthz|readyz|metrics)(\/|$)/;

export function clientApp({ distDir = DEFAULT_CLIENT_DIST }: { distDir?: string } = {}): Router {
  const router = Router();
  const index = path.join(distDir, "index.html");
  router.use(
    express.static(distDir, {
      index: false,
      setHeaders(res, file) {
        const hashed = file.includes(`${path.sep}assets${path.sep}`);
        res.setHeader("Cache-Control", hashed ? "public, max-age=31536000, immutable" : "no-cache");
      },
    }),
  );
  router.get(/.*/, (req, res, next) => {
    if (NOT_PAGES.test(req.path) || path.extname(req.path) !== "" || !req.accepts("html")) return next();
    if (!existsSync(index)) {
      res
        .status(503)
        .type("text/plain")
        .send("The client app is not built. Run `npm run build` (npm start does it for you), or `npm run dev` for the Vite dev server.");
      return;
    }
    res.setHeader("Cache-Control", "no-cache");
    res.sendFile(index);
  });
  return router;
}
