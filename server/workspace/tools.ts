/**
 * The workspace tools, named and shaped as coding agents' tools commonly are (read, write, edit,
 * bash, grep, find, ls, plus run for a short Python or Node snippet), as a toolkit any agent can
 * include:
 *
 *   defineAgent({ id: "mine", instructions, tools: [...workspaceTools(), myOtherTool] })
 *
 * Each call works in the thread's workspace (workspaces.ts); paths are resolved inside it
 * (paths.ts) and a refused path is the call's error result, which the model reads. Commands run
 * in the sandbox (sandbox.ts) and stream their output live (terminal.ts). `write` and `edit`
 * record an `artifact.written` event and are idempotent when the engine runs them again after
 * a crash (nothing is written when the file already holds the result).
 */
import { constants, promises as fs } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { ARTIFACT_DIFF_MAX_BYTES } from "../../protocol/events.ts";
import { defineTool, type ToolContext, type ToolDefinition } from "../agents/define.ts";
import { loadConfig, type Config } from "../config.ts";
import { unifiedDiff } from "./diff.ts";
import { globMatcher } from "./glob.ts";
import { openNoFollow, resolveInside } from "./paths.ts";
import { Sandbox, SANDBOX_WORKDIR, type ExecResult } from "./sandbox.ts";
import { splitUtf8, TerminalStream } from "./terminal.ts";
import { fileTypeOf, LISTING_SKIPPED_DIRS, Workspaces } from "./workspaces.ts";

/** `read` returns this many lines when no limit is given: a screenful of files, not a whole log. */
export const READ_DEFAULT_LINES = 2_000;
/** A longer line is cut in `read`'s result. */
export const READ_MAX_LINE_CHARS = 2_000;
/** Most text `read` returns in one call (UTF-8 bytes); past it the result says where to go on. */
export const READ_MAX_BYTES = 128 * 1024;
/** Largest file `read` and `edit` open (bash with head/sed reads bigger ones). */
export const FILE_MAX_BYTES = 10 * 1024 * 1024;
/** Largest image `read` returns as an image. */
export const READ_IMAGE_MAX_BYTES = 1024 * 1024;
/** Largest content `write` accepts, and largest file `edit` leaves. */
export const WRITE_MAX_BYTES = 10 * 1024 * 1024;
/** Most of grep's output kept in its result; a line longer than GREP_MAX_LINE_CHARS is cut. */
export const GREP_OUTPUT_MAX_BYTES = 32 * 1024;
export const GREP_MAX_LINE_CHARS = 500;
export const GREP_TIMEOUT_MS = 30_000;
/** Most paths `find` returns, and entries it visits. */
export const FIND_MAX_RESULTS = 1_000;
export const FIND_MAX_VISITED = 50_000;
/** Most entries `ls` returns. */
export const LS_MAX_ENTRIES = 1_000;
/** bash's default and largest timeout, in seconds: long enough for a build, short enough to notice a hang. */
export const BASH_DEFAULT_TIMEOUT_S = 120;
export const COMMAND_MAX_TIMEOUT_S = 600;
/** run's default timeout, in seconds. */
export const RUN_DEFAULT_TIMEOUT_S = 30;

const IMAGE_TYPES: Record<string, string> = { png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp" };

/** What the tools share: where workspaces are and how commands run. */
export interface WorkspaceHost {
  workspaces: Workspaces;
  sandbox: Sandbox;
}

/** The host the configuration describes (WORKSPACE_ROOT or DATA_DIR/workspaces, the sandbox settings). */
export function workspaceHostFromConfig(config: Config): WorkspaceHost {
  const sandbox = new Sandbox({
    mode: config.UNSAFE_RUN_COMMANDS_WITHOUT_SANDBOX ? "unsafe-host" : "bwrap",
    limits: { memoryMb: config.SANDBOX_MEMORY_MB, maxProcesses: config.SANDBOX_MAX_PROCESSES, maxFileMb: config.SANDBOX_MAX_FILE_MB },
    user: { uid: config.SANDBOX_UID, gid: config.SANDBOX_UID },
    readOnlyPaths: config.SANDBOX_READONLY_PATHS,
  });
  const workspaces = new Workspaces({
    root: config.WORKSPACE_ROOT ?? path.join(config.DATA_DIR, "workspaces"),
    allowWorkingDirectory: config.WORKSPACE_ROOT !== undefined,
    owner: sandbox.user,
  });
  return { workspaces, sandbox };
}

let envHost: WorkspaceHost | undefined;
/** The host of the process environment, built once (workspaceTools() without options). */
export function defaultWorkspaceHost(): WorkspaceHost {
  envHost ??= workspaceHostFromConfig(loadConfig());
  return envHost;
}

/** A refusal or failure the model should read: the call's error result. */
export class WorkspaceToolError extends Error {
  override readonly name = "WorkspaceToolError";
}

function fail(message: string): never {
  throw new WorkspaceToolError(message);
}

async function workspaceOf(host: WorkspaceHost, ctx: ToolContext): Promise<string> {
  const ws = await host.workspaces.forRun(ctx.threadId, ctx.forwardedProps);
  if (!ws.ok) fail(ws.error);
  return ws.dir;
}

async function resolve(dir: string, p: string, opts: Parameters<typeof resolveInside>[2]) {
  const r = await resolveInside(dir, p, opts);
  if (!r.ok) fail(r.error);
  return r;
}

async function readText(abs: string, size: number): Promise<string> {
  if (size > FILE_MAX_BYTES) fail(`The file is ${size} bytes; read and edit open files up to ${FILE_MAX_BYTES} bytes. Use bash (head, sed -n, grep) for bigger ones.`);
  const fh = await openNoFollow(abs, constants.O_RDONLY);
  try {
    const buf = await fh.readFile();
    if (buf.subarray(0, 8192).includes(0)) fail(`The file is binary (${buf.length} bytes); it is not shown as text.`);
    return buf.toString("utf8");
  } finally {
    await fh.close();
  }
}

/** Replaces a file atomically (a temporary sibling renamed over it: a symlink there is replaced, not followed). */
async function writeAtomic(host: WorkspaceHost, abs: string, content: string, mode?: number): Promise<void> {
  const dir = path.dirname(abs);
  const tmp = path.join(dir, `.${path.basename(abs)}.${process.pid}.${Date.now()}.tmp`);
  const fh = await openNoFollow(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode ?? 0o644);
  try {
    await fh.writeFile(content);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await host.workspaces.own(tmp);
  await fs.rename(tmp, abs).catch(async (err: unknown) => {
    await fs.rm(tmp, { force: true });
    throw err;
  });
}

/** Creates the missing parents of `abs` inside `dir`, each given to the sandbox's user. */
async function makeParents(host: WorkspaceHost, dir: string, abs: string): Promise<void> {
  const missing: string[] = [];
  for (let p = path.dirname(abs); p !== dir && !(await fs.lstat(p).catch(() => null)); p = path.dirname(p)) missing.unshift(p);
  for (const p of missing) {
    await fs.mkdir(p);
    await host.workspaces.own(p);
  }
}

function cutDiff(diff: string): { diff: string; diffTruncated?: true } {
  if (Buffer.byteLength(diff) <= ARTIFACT_DIFF_MAX_BYTES) return { diff };
  return { diff: splitUtf8(diff, ARTIFACT_DIFF_MAX_BYTES)[0]!, diffTruncated: true };
}

function commandResult(r: ExecResult | { error: string }, timeoutS: number) {
  if ("error" in r) fail(r.error);
  const notes: string[] = [];
  if (r.timedOut) notes.push(`killed at its timeout of ${timeoutS} s, with every process it started`);
  else if (r.aborted) notes.push("killed: the run was cancelled");
  else if (r.signal) notes.push(`ended by ${r.signal}`);
  else if (r.exitCode !== null && r.exitCode > 128) notes.push(`ended by signal ${r.exitCode - 128} (a sandbox limit: CPU time, memory, processes or file size)`);
  if (r.omittedBytes > 0) notes.push(`${r.omittedBytes} bytes of output omitted from this result`);
  return {
    exitCode: r.exitCode,
    ...(r.signal && { signal: r.signal }),
    ...(r.timedOut && { timedOut: true }),
    output: r.output,
    ...(notes.length > 0 && { note: `${notes.join("; ")}.` }),
  };
}

async function runCommand(host: WorkspaceHost, ctx: ToolContext, argv: string[], timeoutS: number, stdin?: string) {
  const dir = await workspaceOf(host, ctx);
  const terminal = new TerminalStream((data, stream) => ctx.terminal(data, stream));
  const r = await host.sandbox.exec({
    dir,
    argv,
    stdin,
    timeoutMs: timeoutS * 1000,
    signal: ctx.signal,
    onOutput: (stream, data) => terminal.push(stream, data),
  });
  await terminal.end();
  return commandResult(r, timeoutS);
}

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

export interface WorkspaceToolsOptions {
  /** Defaults to the process environment's (defaultWorkspaceHost). */
  host?: WorkspaceHost;
}

export function workspaceTools(opts: WorkspaceToolsOptions = {}): ToolDefinition[] {
  const host = () => opts.host ?? defaultWorkspaceHost();

  const read = defineTool({
    name: "read",
    description: `Read a file of the workspace (text, or an image: png, jpg, gif, webp). Returns up to ${READ_DEFAULT_LINES} lines by default; offset is the first line (1-based), limit the number of lines.`,
    parameters: z.object({
      path: z.string().describe("path relative to the workspace"),
      offset: z.number().int().min(1).optional().describe("first line to read, 1-based"),
      limit: z.number().int().min(1).optional().describe(`number of lines (default ${READ_DEFAULT_LINES})`),
    }),
    async execute({ path: p, offset = 1, limit = READ_DEFAULT_LINES }, ctx) {
      const dir = await workspaceOf(host(), ctx);
      const r = await resolve(dir, p, { kind: "file" });
      const mime = IMAGE_TYPES[fileTypeOf(r.rel)];
      if (mime) {
        if (r.stat!.size > READ_IMAGE_MAX_BYTES) fail(`The image is ${r.stat!.size} bytes; read returns images up to ${READ_IMAGE_MAX_BYTES} bytes.`);
        const fh = await openNoFollow(r.abs, constants.O_RDONLY);
        const data = await fh.readFile().finally(() => fh.close());
        return { content: [{ type: "text", text: `${r.rel} (${data.length} bytes)` }, { type: "image", data: data.toString("base64"), mimeType: mime }] };
      }
      const text = await readText(r.abs, r.stat!.size);
      const lines = text.split("\n");
      if (lines.at(-1) === "") lines.pop();
      const total = lines.length;
      if (total === 0) return `(${r.rel} is empty)`;
      if (offset > total) fail(`offset ${offset} is past the end: ${r.rel} has ${total} lines.`);
      const out: string[] = [];
      let bytes = 0;
      let cutLines = 0;
      let last = offset - 1;
      let stoppedBySize = false;
      for (let i = offset - 1; i < Math.min(total, offset - 1 + limit); i++) {
        let line = lines[i]!;
        if (line.length > READ_MAX_LINE_CHARS) {
          line = `${line.slice(0, READ_MAX_LINE_CHARS)}… [line cut at ${READ_MAX_LINE_CHARS} characters]`;
          cutLines++;
        }
        const n = Buffer.byteLength(line) + 1;
        if (bytes + n > READ_MAX_BYTES && out.length > 0) {
          stoppedBySize = true;
          break;
        }
        out.push(line);
        bytes += n;
        last = i + 1;
      }
      const notes: string[] = [];
      if (stoppedBySize) notes.push(`stopped at ${READ_MAX_BYTES} bytes (READ_MAX_BYTES)`);
      if (cutLines > 0) notes.push(`${cutLines} long line(s) cut`);
      if (last < total || offset > 1 || notes.length > 0) {
        notes.unshift(`lines ${offset}-${last} of ${total}`);
        if (last < total) notes.push(`read on with offset=${last + 1}`);
      }
      return notes.length > 0 ? `${out.join("\n")}\n\n[${notes.join("; ")}]` : out.join("\n");
    },
  });

  const write = defineTool({
    name: "write",
    description: "Create or overwrite a file of the workspace with `content` (parent directories are created).",
    parameters: z.object({ path: z.string(), content: z.string() }),
    async execute({ path: p, content }, ctx) {
      const h = host();
      const dir = await workspaceOf(h, ctx);
      const size = Buffer.byteLength(content);
      if (size > WRITE_MAX_BYTES) fail(`The content is ${size} bytes; write accepts up to ${WRITE_MAX_BYTES}.`);
      const r = await resolve(dir, p, { kind: "file", mayBeMissing: true });
      let action: "created" | "updated" = "created";
      let unchanged = false;
      if (r.stat) {
        action = "updated";
        // Run again after a crash (or asked twice): the file already holds it; nothing to write.
        const fh = await openNoFollow(r.abs, constants.O_RDONLY);
        let now: string | undefined;
        if (r.stat.size === size) now = await fh.readFile("utf8").finally(() => fh.close());
        else await fh.close();
        unchanged = now === content;
      }
      if (!unchanged) {
        await makeParents(h, dir, r.abs);
        await writeAtomic(h, r.abs, content, r.stat ? r.stat.mode & 0o7777 : undefined);
      }
      await ctx.artifact({ path: r.rel, action, fileType: fileTypeOf(r.rel), size });
      return { path: r.rel, action, size, ...(unchanged && { note: "The file already had this content; it was left as is." }) };
    },
  });

  const edit = defineTool({
    name: "edit",
    description:
      "Replace `old_string` with `new_string` in a file of the workspace. old_string must match exactly (whitespace included) and exactly once, unless replace_all is true.",
    parameters: z.object({
      path: z.string(),
      old_string: z.string().min(1),
      new_string: z.string(),
      replace_all: z.boolean().optional(),
    }),
    async execute({ path: p, old_string, new_string, replace_all }, ctx) {
      const h = host();
      const dir = await workspaceOf(h, ctx);
      const r = await resolve(dir, p, { kind: "file" });
      const before = await readText(r.abs, r.stat!.size);
      const count = before.split(old_string).length - 1;
      if (old_string === new_string) fail("old_string and new_string are the same: nothing to change.");
      if (count === 0) {
        // Run again after a crash: the edit is already in the file.
        if (new_string !== "" && before.includes(new_string)) {
          await ctx.artifact({ path: r.rel, action: "edited", fileType: fileTypeOf(r.rel), size: Buffer.byteLength(before) });
          return { path: r.rel, replacements: 0, note: "old_string is not in the file but new_string is: the edit was already applied." };
        }
        fail(`old_string was not found in ${r.rel}. Read the file and copy the text exactly, whitespace included.`);
      }
      if (count > 1 && !replace_all) {
        fail(`old_string occurs ${count} times in ${r.rel}. Give more surrounding text so that it matches once, or set replace_all.`);
      }
      const after = replace_all ? before.split(old_string).join(new_string) : before.replace(old_string, () => new_string);
      const size = Buffer.byteLength(after);
      if (size > WRITE_MAX_BYTES) fail(`The edited file would be ${size} bytes; files are kept up to ${WRITE_MAX_BYTES}.`);
      await writeAtomic(h, r.abs, after, r.stat!.mode & 0o7777);
      const diff = cutDiff(unifiedDiff(before, after, r.rel));
      await ctx.artifact({ path: r.rel, action: "edited", fileType: fileTypeOf(r.rel), size, ...diff });
      return { path: r.rel, replacements: replace_all ? count : 1, size, diff: diff.diff, ...(diff.diffTruncated && { diffTruncated: true }) };
    },
  });

  const bash = defineTool({
    name: "bash",
    description: `Run a shell command (bash) in the workspace, in a sandbox: no network, only the workspace is writable. Streams its output. Default timeout ${BASH_DEFAULT_TIMEOUT_S} s, at most ${COMMAND_MAX_TIMEOUT_S}.`,
    parameters: z.object({
      command: z.string().min(1),
      timeout: z.number().positive().max(COMMAND_MAX_TIMEOUT_S).optional().describe("seconds"),
    }),
    async execute({ command, timeout = BASH_DEFAULT_TIMEOUT_S }, ctx) {
      return runCommand(host(), ctx, ["/bin/bash", "-c", command], timeout);
    },
  });

  const run = defineTool({
    name: "run",
    description: `Run a short Python or Node.js program in the sandbox (cwd: the workspace, no network). Default timeout ${RUN_DEFAULT_TIMEOUT_S} s.`,
    parameters: z.object({
      language: z.enum(["python", "node"]),
      code: z.string().min(1),
      timeout: z.number().positive().max(COMMAND_MAX_TIMEOUT_S).optional().describe("seconds"),
    }),
    async execute({ language, code, timeout = RUN_DEFAULT_TIMEOUT_S }, ctx) {
      const argv = language === "python" ? ["/usr/bin/env", "python3", "-"] : ["/usr/bin/env", "node", "-"];
      return runCommand(host(), ctx, argv, timeout, code);
    },
  });

  const grep = defineTool({
    name: "grep",
    description: `Search file contents with an extended regular expression (grep -E). path: a file or directory (default the workspace); glob: file names to search (e.g. "*.ts"); type: a language (ts, js, py, rust, go, md, json…). Binary files, .git and node_modules are skipped. Output up to ${GREP_OUTPUT_MAX_BYTES} bytes.`,
    parameters: z.object({
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

  const find = defineTool({
    name: "find",
    description: `Find files by glob pattern ("*.ts", "src/**/*.test.ts"); path: where to look (default the workspace). .git and node_modules are skipped. Up to ${FIND_MAX_RESULTS} results.`,
    parameters: z.object({ pattern: z.string().min(1), path: z.string().optional() }),
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

  const ls = defineTool({
    name: "ls",
    description: `List a directory of the workspace (default the workspace itself): directories end with "/". Up to ${LS_MAX_ENTRIES} entries.`,
    parameters: z.object({ path: z.string().optional() }),
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

  return [read, write, edit, bash, grep, find, ls, run] as ToolDefinition[];
}
