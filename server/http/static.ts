/**
 * The client app (dist/client, built by Vite from client/) at `/`, with a single-page fallback: any GET for a
 * page (not /api, not a file) gets index.html, so /t/<threadId> and /v1 load the app.
 * Hashed assets are cached for good; index.html never is, so a new build shows at once.
 * Files are sent compressed when the browser accepts it: the build wrote a Brotli copy next to
 * each (and a gzip one for the first load: client/precompress.ts), so nothing is compressed per
 * request. A file the build kept only as Brotli (every large asset but index.html: the package
 * ships each once) is decompressed on the way out, as a stream, for a client that does not
 * accept br (curl without --compressed, a proxy that rewrites Accept-Encoding).
 */
import { createReadStream, existsSync, statSync } from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { createBrotliDecompress } from "node:zlib";
import express, { type Request, type Response, Router } from "express";
import { PACKAGE_ROOT } from "../package-root.ts";

/** The bundle sits at <package root>/dist/client. */
export const DEFAULT_CLIENT_DIST = path.join(PACKAGE_ROOT, "dist", "client");

const NOT_PAGES = /^\/(api|healthz|readyz|metrics)(\/|$)/;

/** Vite puts every hashed file under assets/; their names change with their content. */
const IMMUTABLE = "public, max-age=31536000, immutable";

/** The precompressed copies, best first, by the suffix the build gave them. */
const ENCODINGS = [
  { name: "br", suffix: ".br" },
  { name: "gzip", suffix: ".gz" },
] as const;

function cacheControl(file: string): string {
  return file.includes(`${path.sep}assets${path.sep}`) ? IMMUTABLE : "no-cache";
}

function isFile(file: string): boolean {
  return statSync(file, { throwIfNoEntry: false })?.isFile() === true;
}

/** A file of the build: on disk as it is, or only as its Brotli copy. */
function isBuilt(file: string): boolean {
  return isFile(file) || isFile(`${file}.br`);
}

/**
 * Sends `file` (inside distDir, already checked) as the best copy the request accepts: the
 * Brotli or gzip one when it was written, else the file itself, else the Brotli copy
 * decompressed. `Vary` tells caches in between that the answer depends on Accept-Encoding even
 * when it is the plain file.
 */
function sendBest(req: Request, res: Response, file: string): void {
  res.setHeader("Vary", "Accept-Encoding");
  res.setHeader("Cache-Control", cacheControl(file));
  const encoding = preferredEncoding(req.headers["accept-encoding"], ENCODINGS.filter((e) => isFile(file + e.suffix)));
  if (!encoding && !isFile(file)) {
    sendDecompressed(req, res, file);
    return;
  }
  if (!encoding) {
    res.sendFile(file);
    return;
  }
  res.type(path.extname(file));
  res.setHeader("Content-Encoding", encoding.name);
  res.sendFile(file + encoding.suffix);
}

/**
 * The Brotli copy of `file`, decompressed as it streams: memory is zlib's window and a chunk or
 * two, whatever the file's size. Rejected: a cache of decompressed files (memory for clients
 * that are rare), and shipping every file twice (the package's size, for those same clients).
 */
function sendDecompressed(req: Request, res: Response, file: string): void {
  res.type(path.extname(file));
  if (req.method === "HEAD") {
    res.end();
    return;
  }
  pipeline(createReadStream(`${file}.br`), createBrotliDecompress(), res).catch(() => {
    // A broken copy or a client gone mid-way: the response can only be cut (headers are out).
    res.destroy();
  });
}

/**
 * The copy to send: the accepted one with the highest q, Brotli before gzip on a tie. Written
 * here rather than with req.acceptsEncodings, which breaks ties by the header's order, and
 * browsers list gzip first ("gzip, deflate, br, zstd"), so Brotli would never be chosen.
 */
function preferredEncoding<E extends { name: string }>(header: string | undefined, available: E[]): E | undefined {
  const q = new Map<string, number>();
  for (const part of (header ?? "").split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const value = qParam ? Number(qParam.slice(2)) : 1;
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  let best: E | undefined;
  let bestQ = 0;
  for (const e of available) {
    const value = q.get(e.name) ?? q.get("*") ?? 0;
    if (value > bestQ) [best, bestQ] = [e, value];
  }
  return best;
}

/** The file a request names inside distDir, or null (outside it, hidden, or not a file). */
function fileFor(distDir: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes("\0") || decoded.split("/").some((part) => part.startsWith("."))) return null;
  const file = path.join(distDir, decoded);
  if (!file.startsWith(distDir + path.sep) || !isBuilt(file)) return null;
  return file;
}

export function clientApp({ distDir = DEFAULT_CLIENT_DIST }: { distDir?: string } = {}): Router {
  const router = Router();
  const root = path.resolve(distDir);
  const index = path.join(root, "index.html");
  router.use((req, res, next) => {
    if ((req.method !== "GET" && req.method !== "HEAD") || NOT_PAGES.test(req.path) || req.path.endsWith("/")) return next();
    const file = fileFor(root, req.path);
    if (!file) return next();
    sendBest(req, res, file);
  });
  // What the handler above does not send: a request for a directory, or any other method.
  router.use(express.static(root, { index: false, setHeaders: (res, file) => res.setHeader("Cache-Control", cacheControl(file)) }));
  router.get(/.*/, (req, res, next) => {
    if (NOT_PAGES.test(req.path) || path.extname(req.path) !== "" || !req.accepts("html")) return next();
    if (!existsSync(index)) {
      res
        .status(503)
        .type("text/plain")
        .send("The client app is not built. Run `npm run build` (npm start does it for you), or `npm run dev` for the Vite dev server.");
      return;
    }
    sendBest(req, res, index);
  });
  return router;
}
