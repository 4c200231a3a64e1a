/**
 * This package's root and version. Code runs from server/ (tsx, from source) or dist/server (npm
 * start, an installed package), so the root is the nearest directory above with a package.json
 * (dist/ has none), not a fixed number of `..`.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

function packageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) return from;
  }
}

export const PACKAGE_ROOT = packageRoot(path.dirname(fileURLToPath(import.meta.url)));

export const PACKAGE_VERSION = (JSON.parse(readFileSync(path.join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string }).version;
