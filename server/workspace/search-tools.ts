/**
 * The search tools: grep (contents, run as grep -E in the sandbox), find (names, by glob, walked
 * here) and ls. .git and node_modules are skipped; every result is bounded.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { defineTool, type ToolDefinition } from "../agents/define.ts";
import { globMatcher } from "./glob.ts";
import type { WorkspaceHost } from "./host.ts";
import { FIND_MAX_RESULTS, FIND_MAX_VISITED, GREP_MAX_LINE_CHARS, GREP_OUTPUT_MAX_BYTES, GREP_TIMEOUT_MS, LS_MAX_ENTRIES } from "./limits.ts";
import { SANDBOX_WORKDIR } from "./sandbox.ts";
import { fail, resolve, workspaceOf } from "./tool-support.ts";
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
    async execute({ pattern, path: p = ".", glob, type }, ctx) {
      const h = host();
      const dir = await workspaceOf(h, ctx);
      const r = await resolve(dir, p, {});
      const includes = [...(glob ? [glob] : []), ...(type ? (TYPE_GLOBS[type] ?? [`*.${type}`]) : [])];
      const argv = ["/usr/bin/grep", "-rnIE", "--color=never", "--exclude-dir=.git", "--exclude-dir=node_modules"];
      for (const inc of includes) argv.push(`--include=${inc}`);
      argv.push("-e", pattern, "--", r.rel === "." ? "." : `${SANDBOX_WORKDIR}/${r.rel}`);
      const res = await h.sandbox.exec({ dir, argv, timeoutMs: GREP_TIMEOUT_MS, signal: ctx.signal });
      if ("error" in res) fail(res.error);
      if (res.timedOut) fail(`grep did not finish within ${GREP_TIMEOUT_MS / 1000} s; narrow the path or the pattern.`);
      if (res.exitCode === 1) return "No matches.";
      if (res.exitCode !== 0) fail(`grep failed (exit ${res.exitCode}): ${res.output.trim().slice(0, 1000)}`);
      const lines = res.output.split("\n").filter((l) => l !== "");
      const out: string[] = [];
      let bytes = 0;
      for (const raw of lines) {
        const line = (raw.startsWith(`${SANDBOX_WORKDIR}/`) ? raw.slice(SANDBOX_WORKDIR.length + 1) : raw.replace(/^\.\//, "")).slice(0, GREP_MAX_LINE_CHARS);
        if (bytes + Buffer.byteLength(line) + 1 > GREP_OUTPUT_MAX_BYTES) break;
        out.push(line);
        bytes += Buffer.byteLength(line) + 1;
      }
      const notes: string[] = [];
      if (out.length < lines.length || res.omittedBytes > 0) notes.push(`output cut at ${GREP_OUTPUT_MAX_BYTES} bytes: ${out.length} matching lines shown; narrow the search`);
      return notes.length > 0 ? `${out.join("\n")}\n\n[${notes.join("; ")}]` : out.join("\n");
    },
  });
}

/** `find`: file names matching a glob. */
export function findTool(host: () => WorkspaceHost): ToolDefinition {
  return defineTool({
    name: "find",
    description: `Find files by glob pattern ("*.ts", "src/**/*.test.ts"); path: where to look (default the workspace). .git and node_modules are skipped. Up to ${FIND_MAX_RESULTS} results.`,
    inputSchema: z.object({ pattern: z.string().min(1), path: z.string().optional() }),
    async execute({ pattern, path: p = "." }, ctx) {
      const dir = await workspaceOf(host(), ctx);
      const r = await resolve(dir, p, { kind: "dir" });
      let match: (rel: string) => boolean;
      try {
        match = globMatcher(pattern);
      } catch (err) {
        fail(`The pattern is not a glob this tool reads: ${(err as Error).message}.`);
      }
      const found: string[] = [];
      let visited = 0;
      let stopped = false;
      const walk = async (abs: string, rel: string): Promise<void> => {
        const entries = await fs.readdir(abs, { withFileTypes: true }).catch(() => []);
        entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        for (const e of entries) {
          if (found.length >= FIND_MAX_RESULTS || ++visited > FIND_MAX_VISITED) {
            stopped = true;
            return;
          }
          const childRel = rel ? `${rel}/${e.name}` : e.name;
          const shown = r.rel === "." ? childRel : `${r.rel}/${childRel}`;
          if (match(childRel)) found.push(e.isDirectory() ? `${shown}/` : shown);
          if (e.isDirectory() && !LISTING_SKIPPED_DIRS.has(e.name)) await walk(path.join(abs, e.name), childRel);
        }
      };
      await walk(r.abs, "");
      if (found.length === 0) return stopped ? `No match among the first ${FIND_MAX_VISITED} entries.` : "No files found.";
      return stopped ? `${found.join("\n")}\n\n[stopped at ${found.length} results / ${FIND_MAX_VISITED} entries visited; narrow the pattern or the path]` : found.join("\n");
    },
  });
}

/** `ls`: one directory's entries. */
export function lsTool(host: () => WorkspaceHost): ToolDefinition {
  return defineTool({
    name: "ls",
    description: `List a directory of the workspace (default the workspace itself): directories end with "/". Up to ${LS_MAX_ENTRIES} entries.`,
    inputSchema: z.object({ path: z.string().optional() }),
    async execute({ path: p = "." }, ctx) {
      const dir = await workspaceOf(host(), ctx);
      const r = await resolve(dir, p, { kind: "dir" });
      const entries = await fs.readdir(r.abs, { withFileTypes: true });
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const shown = entries.slice(0, LS_MAX_ENTRIES).map((e) => (e.isDirectory() ? `${e.name}/` : e.isSymbolicLink() ? `${e.name}@` : e.name));
      if (shown.length === 0) return "(empty directory)";
      return entries.length > LS_MAX_ENTRIES ? `${shown.join("\n")}\n\n[${LS_MAX_ENTRIES} of ${entries.length} entries shown]` : shown.join("\n");
    },
  });
}
