/**
 * The module graph under a dynamic import, evaluated a piece at a time before the import itself.
 * Node evaluates the whole static graph under an `import()` in one synchronous step: CopilotKit's runtime (75 modules of
 * its own, ai, rxjs, the AI SDK providers, MCP...) held the event loop 1.8 s at load 8 and more
 * under busy loops (docs/startup.md). Here the graph is walked first (the static `import`/`export
 * ... from` lines of each ES module, read from disk), then each module is imported on its own,
 * leaves first, with a turn of the event loop between them, so the longest stall is the slowest
 * single module rather than the sum. The caller then imports the entry with its own specifier
 * (`await loadInSteps(url); await import("./handler.ts")`), which finds everything evaluated and
 * keeps the import's type and its error (a missing package) as they were.
 *
 * Resolution is Node's for ES modules (relative paths; packages by node_modules lookup, their
 * "exports" under the conditions node, import, module-sync, default, else "main"); a specifier it
 * cannot resolve is a leaf; a CommonJS file's require()s are followed as Node resolves them. A
 * module inside an import cycle is imported only through the cycle's first member, as the entry's
 * own import would reach it: imported from the middle, a cycle would evaluate in another order.
 * Anything the walk gets wrong costs only the split: the entry's import resolves what it needs.
 * Rejected: a loader hook that records the graph (hooks run on a thread of their own and slow
 * every import after), and importing in a worker (a module's instance cannot cross threads).
 */
import { readFile } from "node:fs/promises";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** A static import or re-export at the start of a line, as compilers and bundlers emit them; not `import type`. */
const STATIC_IMPORT = /^\s*(?:import|export)(?!\s+type\s)\s*(?:[\w*{}\s,$]*?\bfrom\s*)?["']([^"']+)["']/gm;
/**
 * A require() of a string literal. In a CommonJS file each is loaded on its own first, as the ES
 * modules are: one require() loads its whole tree atomically (a package without ES modules, such
 * as @ag-ui/a2ui-middleware, took @ag-ui/client and zod with it: 1.1 s under busy loops). A
 * require() inside a function is loaded early too: its time is paid at start instead of on first
 * use, and a module whose loading does more than define exports does it early (none in the trees
 * loaded this way; a failing one ends the steps, and the caller's import loads the rest whole).
 */
const REQUIRE = /\brequire\(\s*["']([^"']+)["']\s*\)/g;
/** What import() loads without import attributes: JSON or WASM is left to its importer. */
const SCRIPT = /\.[mc]?[jt]s$/;
const CONDITIONS = new Set(["node", "import", "module-sync", "default"]);
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function loadInSteps(entry: URL): Promise<void> {
  try {
    for (const url of await leavesFirst(entry)) {
      await import(url);
      await turn();
    }
  } catch {
    // A piece that fails to load fails the same way in the caller's import of the entry, whole.
  }
}

/** `./name` next to the calling module, with its extension: .ts from source (tsx, vitest), .js from dist. */
export function sibling(name: string, importMetaUrl: string): URL {
  return new URL(`${name}${path.extname(fileURLToPath(importMetaUrl))}`, importMetaUrl);
}

/** The ES modules under `entry`, each after what it imports, cycles' inner members left out, `entry` excluded. */
async function leavesFirst(entry: URL): Promise<string[]> {
  const order: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const skip = new Set<string>();
  const types = new Map<string, boolean>();
  const visit = async (file: string): Promise<void> => {
    state.set(file, "open");
    stack.push(file);
    for (const dep of await importsOf(file, isEsm(file, types))) {
      const s = state.get(dep);
      if (s === "open") for (const f of stack.slice(stack.indexOf(dep) + 1)) skip.add(f);
      else if (s === undefined) await visit(dep);
    }
    stack.pop();
    state.set(file, "done");
    order.push(file);
  };
  const root = fileURLToPath(entry);
  await visit(root);
  return order.filter((f) => f !== root && !skip.has(f)).map((f) => pathToFileURL(f).href);
}

/** What `file` loads: its static imports (an ES module), or the string literals it require()s (CommonJS). */
async function importsOf(file: string, esm: boolean): Promise<string[]> {
  const text = await readFile(file, "utf8");
  const out: string[] = [];
  const req = esm ? undefined : createRequire(file);
  for (const m of text.matchAll(esm ? STATIC_IMPORT : REQUIRE)) {
    const resolved = req ? requireResolve(req, m[1]!) : resolve(m[1]!, file);
    if (resolved && SCRIPT.test(resolved)) out.push(resolved);
  }
  return out;
}

/** A require() Node would make from that file; none for a builtin or what is not installed (an optional dependency). */
function requireResolve(req: NodeJS.Require, specifier: string): string | undefined {
  try {
    const resolved = req.resolve(specifier);
    return path.isAbsolute(resolved) ? resolved : undefined;
  } catch {
    return undefined;
  }
}

function resolve(specifier: string, from: string): string | undefined {
  if (specifier.startsWith("node:") || specifier.startsWith("data:")) return undefined;
  if (specifier.startsWith(".") || specifier.startsWith("/")) {
    const file = path.resolve(path.dirname(from), specifier);
    return existsSync(file) ? file : undefined;
  }
  const parts = specifier.split("/");
  const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
  const subpath = `.${specifier.slice(name.length)}`;
  for (let dir = path.dirname(from); ; dir = path.dirname(dir)) {
    const pkgDir = path.join(dir, "node_modules", name);
    if (existsSync(path.join(pkgDir, "package.json"))) return packageEntry(pkgDir, subpath);
    if (path.dirname(dir) === dir) return undefined; // a builtin without node:, or not installed
  }
}

/** Each package.json read once per process: a package imported from many files is resolved from memory. */
const manifests = new Map<string, { exports?: unknown; main?: string }>();

function packageEntry(pkgDir: string, subpath: string): string | undefined {
  let pkg = manifests.get(pkgDir);
  if (!pkg) {
    pkg = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8")) as { exports?: unknown; main?: string };
    manifests.set(pkgDir, pkg);
  }
  let target: string | undefined;
  if (pkg.exports !== undefined) {
    const exp = pkg.exports;
    const isMap = typeof exp === "object" && exp !== null && !Array.isArray(exp) && Object.keys(exp).some((k) => k.startsWith("."));
    target = conditional(isMap ? (exp as Record<string, unknown>)[subpath] : subpath === "." ? exp : undefined);
  } else target = subpath === "." ? (pkg.main ?? "index.js") : subpath;
  if (!target) return undefined; // a pattern export, or a condition this walk does not follow
  const file = path.resolve(pkgDir, target);
  return existsSync(file) ? file : undefined;
}

function conditional(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(conditional).find((v) => v !== undefined);
  if (typeof value === "object" && value !== null) {
    // The first condition that names a file, in the object's order, as Node takes them.
    for (const [k, v] of Object.entries(value)) {
      const target = CONDITIONS.has(k) ? conditional(v) : undefined;
      if (target !== undefined) return target;
    }
  }
  return undefined;
}

/** .mjs/.mts, or .js/.ts under a package.json of "type": "module" (each directory's answer kept). */
function isEsm(file: string, types: Map<string, boolean>): boolean {
  if (/\.m[jt]s$/.test(file)) return true;
  if (!/\.[jt]s$/.test(file)) return false;
  const seen: string[] = [];
  let esm = false;
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const known = types.get(dir);
    if (known !== undefined) {
      esm = known;
      break;
    }
    seen.push(dir);
    const pj = path.join(dir, "package.json");
    if (existsSync(pj)) {
      esm = (JSON.parse(readFileSync(pj, "utf8")) as { type?: string }).type === "module";
      break;
    }
    if (path.dirname(dir) === dir) break;
  }
  for (const d of seen) types.set(d, esm);
  return esm;
}
