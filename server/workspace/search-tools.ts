/**
 * The search tools: grep (contents, run as grep -E in the sandbox), find (names, by glob, walked
 * here) and ls. .git and node_modules are skipped; every result is bounded.
 */
import type { FileHandle } from "node:fs/promises";
import { z } from "zod";
import { defineTool, type ToolDefinition } from "../agents/define.ts";
import { globMatcher } from "./glob.ts";
import type { WorkspaceHost } from "./host.ts";
import { FIND_MAX_RESULTS, FIND_MAX_VISITED, GREP_MAX_LINE_CHARS, GREP_OUTPUT_MAX_BYTES, GREP_TIMEOUT_MS, LS_MAX_ENTRIES } from "./limits.ts";
import { joinRel, readDirOf, withSubdir } from "./beneath.ts";
import { fail, open, withWorkspace } from "./tool-support.ts";
import { LISTING_SKIPPED_DIRS } from "./workspaces.ts";

const TYPE_GLOBS: Record<string, string[]> = {
  ts: ["*.ts", "*.tsx", "*.mts", "*.cts"],
  js: ["*.js", "*.jsx", "*.mjs", "*.cjs"],
  py: ["*.py", "*.pyi"],
  python: ["*.py", "*.pyi"],
  rust: ["*.rs"],
  go: ["*.go"],
  java: ["*.java"],
  c: ["*.c", "*.h"],
  cpp: ["*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.h"],
  md: ["*.md", "*.markdown"],
  json: ["*.json"],
  yaml: ["*.yaml", "*.yml"],
  html: ["*.html", "*.htm"],
  css: ["*.css", "*.scss"],
  sh: ["*.sh", "*.bash"],
};

/** `grep`: file contents matching an extended regular expression. */
export function grepTool(host: () => WorkspaceHost): ToolDefinition {
  return defineTool({
    name: "grep",
    description: `Search file contents with an extended regular expression (grep -E). path: a file or directory (default the workspace); glob: file names to search (e.g. "*.ts"); type: a language (ts, js, py, rust, go, md, json…). Binary files, .git and node_modules are skipped. Output up to ${GREP_OUTPUT_MAX_BYTES} bytes.`,
    inputSchema: z.object({
      pattern: z.string().min(1),
      path: z.string().optional(),
      glob: z.string().optional(),
      type: z.string().regex(/^[a-z0-9+]{1,20}$/).optional(),
    }),
    execute: ({ pattern, path: p = ".", glob, type }, ctx) =>
      withWorkspace(host(), ctx, async (dir) => {
        const h = host();
        const target = await open(dir, p, "any");
        const includes = [...(glob ? [glob] : []), ...(type ? (TYPE_GLOBS[type] ?? [`*.${type}`]) : [])];
        // What was opened is what is searched: a directory is mounted read-only as the sandbox's
        // workspace, a file is grep's stdin. Neither is looked up by path again.
        const argv = ["/usr/bin/grep", "-nIE", "--color=never"];
        if (target.kind === "dir") {
          argv.push("-r", "--exclude-dir=.git", "--exclude-dir=node_modules");
          for (const inc of includes) argv.push(`--include=${inc}`);
          argv.push("-e", pattern, "--", ".");
        } else argv.push("-H", `--label=${target.rel}`, "-e", pattern, "-");
        let res: Awaited<ReturnType<typeof h.sandbox.exec>>;
        try {
          res = await h.sandbox.exec(
            target.kind === "dir"
              ? { dir: target.handle, readOnly: true, argv, timeoutMs: GREP_TIMEOUT_MS, signal: ctx.signal }
              : { dir, readOnly: true, stdin: target.handle, argv, timeoutMs: GREP_TIMEOUT_MS, signal: ctx.signal },
          );
        } finally {
          await target.handle.close();
        }
        const prefix = target.kind === "dir" && target.rel !== "." ? `${target.rel}/` : "";
      if ("error" in res) fail(res.error);
      if (res.timedOut) fail(`grep did not finish within ${GREP_TIMEOUT_MS / 1000} s; narrow the path or the pattern.`);
      if (res.exitCode === 1) return "No matches.";
      if (res.exitCode !== 0) fail(`grep failed (exit ${res.exitCode}): ${res.output.trim().slice(0, 1000)}`);
      const lines = res.output.split("\n").filter((l) => l !== "");
      const out: string[] = [];
      let bytes = 0;
      for (const raw of lines) {
        const line = (raw.startsWith("./") ? prefix + raw.slice(2) : raw).slice(0, GREP_MAX_LINE_CHARS);
        if (bytes + Buffer.byteLength(line) + 1 > GREP_OUTPUT_MAX_BYTES) break;
        out.push(line);
        bytes += Buffer.byteLength(line) + 1;
      }
      const notes: string[] = [];
      if (out.length < lines.length || res.omittedBytes > 0) notes.push(`output cut at ${GREP_OUTPUT_MAX_BYTES} bytes: ${out.length} matching lines shown; narrow the search`);
      return notes.length > 0 ? `${out.join("\n")}\n\n[${notes.join("; ")}]` : out.join("\n");
      }),
  });
}

/** `find`: file names matching a glob. */
export function findTool(host: () => WorkspaceHost): ToolDefinition {
  return defineTool({
    name: "find",
    description: `Find files by glob pattern ("*.ts", "src/**/*.test.ts"); path: where to look (default the workspace). .git and node_modules are skipped. Up to ${FIND_MAX_RESULTS} results.`,
    inputSchema: z.object({ pattern: z.string().min(1), path: z.string().optional() }),
    execute: ({ pattern, path: p = "." }, ctx) =>
      withWorkspace(host(), ctx, async (dir) => {
        let match: (rel: string) => boolean;
        try {
          match = globMatcher(pattern);
        } catch (err) {
          fail(`The pattern is not a glob this tool reads: ${(err as Error).message}.`);
        }
        const start = await open(dir, p, "dir");
        const found: string[] = [];
        let visited = 0;
        let stopped = false;
        // Each directory is opened from the one that lists it (no link followed): a directory
        // swapped for a link while the walk runs ends that branch instead of leading out.
        const walk = async (handle: FileHandle, rel: string): Promise<void> => {
          const entries = await readDirOf(handle).catch(() => []);
          entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
          for (const e of entries) {
            if (found.length >= FIND_MAX_RESULTS || ++visited > FIND_MAX_VISITED) {
              stopped = true;
              return;
            }
            const childRel = joinRel(rel, e.name);
            const shown = joinRel(start.rel, childRel);
            if (match(childRel)) found.push(e.isDirectory() ? `${shown}/` : shown);
            if (e.isDirectory() && !LISTING_SKIPPED_DIRS.has(e.name)) await withSubdir(handle, e.name, (child) => walk(child, childRel));
          }
        };
        try {
          await walk(start.handle, "");
        } finally {
          await start.handle.close();
        }
        if (found.length === 0) return stopped ? `No match among the first ${FIND_MAX_VISITED} entries.` : "No files found.";
        return stopped ? `${found.join("\n")}\n\n[stopped at ${found.length} results / ${FIND_MAX_VISITED} entries visited; narrow the pattern or the path]` : found.join("\n");
      }),
  });
}

/** `ls`: one directory's entries. */
export function lsTool(host: () => WorkspaceHost): ToolDefinition {
  return defineTool({
    name: "ls",
    description: `List a directory of the workspace (default the workspace itself): directories end with "/". Up to ${LS_MAX_ENTRIES} entries.`,
    inputSchema: z.object({ path: z.string().optional() }),
    execute: ({ path: p = "." }, ctx) =>
      withWorkspace(host(), ctx, async (dir) => {
        const d = await open(dir, p, "dir");
        const entries = await readDirOf(d.handle).finally(() => d.handle.close());
        entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        const shown = entries.slice(0, LS_MAX_ENTRIES).map((e) => (e.isDirectory() ? `${e.name}/` : e.isSymbolicLink() ? `${e.name}@` : e.name));
        if (shown.length === 0) return "(empty directory)";
        return entries.length > LS_MAX_ENTRIES ? `${shown.join("\n")}\n\n[${LS_MAX_ENTRIES} of ${entries.length} entries shown]` : shown.join("\n");
      }),
  });
}
