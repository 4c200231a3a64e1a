/**
 * The client app (client/dist, built by Vite) at `/`, with a single-page fallback: any GET for a
 * page (not /api, not a file) gets index.html, so /t/<threadId> and /v1 load the app.
 * Hashed assets are cached for good; index.html never is, so a new build shows at once.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import express, { Router } from "express";

export const DEFAULT_CLIENT_DIST = fileURLToPath(new URL("../../client/dist", import.meta.url));

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
        .send("The client app is not built. Run `npm run build:client` (npm start does it for you), or `npm run dev` for the Vite dev server.");
      return;
    }
    res.setHeader("Cache-Control", "no-cache");
    res.sendFile(index);
  });
  return router;
}
