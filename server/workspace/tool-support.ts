/**
 * What every workspace tool does around its own job: find the run's workspace, resolve a path
 * inside it, read and replace files without following links, and turn a sandboxed command into
 * the result the model reads. Failures throw WorkspaceToolError, which becomes the call's error
 * result (the model reads it and can try again), not a failed run.
 */
import { constants, promises as fs } from "node:fs";
import path from "node:path";
import { ARTIFACT_DIFF_MAX_BYTES } from "../../protocol/events.ts";
import type { ToolContext } from "../agents/define.ts";
import type { WorkspaceHost } from "./host.ts";
import { FILE_MAX_BYTES } from "./limits.ts";
import { openNoFollow, resolveInside } from "./paths.ts";
import type { ExecResult } from "./sandbox.ts";
import { splitUtf8, TerminalStream } from "./terminal.ts";

/** A refusal or failure the model should read: the call's error result. */
export class WorkspaceToolError extends Error {
  override readonly name = "WorkspaceToolError";
}

export function fail(message: string): never {
  throw new WorkspaceToolError(message);
}

export async function workspaceOf(host: WorkspaceHost, ctx: ToolContext): Promise<string> {
  const ws = await host.workspaces.forRun(ctx.threadId, ctx.forwardedProps);
  if (!ws.ok) fail(ws.error);
  return ws.dir;
}

export async function resolve(dir: string, p: string, opts: Parameters<typeof resolveInside>[2]) {
  const r = await resolveInside(dir, p, opts);
  if (!r.ok) fail(r.error);
  return r;
}

export async function readText(abs: string, size: number): Promise<string> {
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
export async function writeAtomic(host: WorkspaceHost, abs: string, content: string, mode?: number): Promise<void> {
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
export async function makeParents(host: WorkspaceHost, dir: string, abs: string): Promise<void> {
  const missing: string[] = [];
  for (let p = path.dirname(abs); p !== dir && !(await fs.lstat(p).catch(() => null)); p = path.dirname(p)) missing.unshift(p);
  for (const p of missing) {
    await fs.mkdir(p);
    await host.workspaces.own(p);
  }
}

export function cutDiff(diff: string): { diff: string; diffTruncated?: true } {
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

export async function runCommand(host: WorkspaceHost, ctx: ToolContext, argv: string[], timeoutS: number, stdin?: string) {
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
