/**
 * What every workspace tool does around its own job: open the run's workspace, open a path
 * beneath it, read and replace files without following links, and turn a sandboxed command into
 * the result the model reads. Failures throw WorkspaceToolError, which becomes the call's error
 * result (the model reads it and can try again), not a failed run.
 */
import type { FileHandle } from "node:fs/promises";
import { ARTIFACT_DIFF_MAX_BYTES } from "../../protocol/events.ts";
import type { ToolContext } from "../agents/define.ts";
import { type Location, type Opened, PathRefused } from "./beneath.ts";
import { FileWriteError, writeFileAt } from "./file-writer.ts";
import type { WorkspaceHost } from "./host.ts";
import { FILE_MAX_BYTES } from "./limits.ts";
import { openInWorkspace } from "./paths.ts";
import type { ExecResult } from "./sandbox.ts";
import { splitUtf8, TerminalStream } from "./terminal.ts";

/** A refusal or failure the model should read: the call's error result. */
export class WorkspaceToolError extends Error {
  override readonly name = "WorkspaceToolError";
}

export function fail(message: string): never {
  throw new WorkspaceToolError(message);
}

/** Runs `use` with the run's workspace open (and closes it after, whatever happens). */
export async function withWorkspace<T>(host: WorkspaceHost, ctx: ToolContext, use: (dir: FileHandle) => Promise<T>): Promise<T> {
  const ws = await host.workspaces.forRun(ctx.threadId, ctx.tenantId, ctx.forwardedProps);
  if (!ws.ok) fail(ws.error);
  try {
    return await use(ws.handle);
  } finally {
    await ws.handle.close();
  }
}

/** A refused path becomes the call's error result; anything else is a real failure. */
export async function refusedAsResult<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof PathRefused) fail(err.message);
    throw err;
  }
}

/** Opens what the model named (see paths.ts); a refusal is the call's error result. */
export function open(dir: FileHandle, p: unknown, kind: "file" | "dir" | "any"): Promise<Opened> {
  return refusedAsResult(openInWorkspace(dir, p, kind));
}

/** Reads an open file as text, within FILE_MAX_BYTES; binary files are refused. */
export async function readText(file: FileHandle, size: number): Promise<string> {
  if (size > FILE_MAX_BYTES) fail(`The file is ${size} bytes; read and edit open files up to ${FILE_MAX_BYTES} bytes. Use bash (head, sed -n, grep) for bigger ones.`);
  const buf = await file.readFile();
  if (buf.subarray(0, 8192).includes(0)) fail(`The file is binary (${buf.length} bytes); it is not shown as text.`);
  return buf.toString("utf8");
}

/** Replaces the file at `loc` atomically, as the sandbox's user (file-writer.ts). */
export async function writeAt(host: WorkspaceHost, loc: Location, content: string, mode?: number): Promise<void> {
  const owner = host.workspaces.opts.owner;
  try {
    await writeFileAt(loc, content, { mode, owner });
  } catch (err) {
    if (!(err instanceof FileWriteError)) throw err;
    if (err.code === "EACCES" && owner) {
      fail(`${loc.rel} cannot be written: the workspace's commands and files belong to uid ${owner.uid}, which may not write there. The operator gives that directory to uid ${owner.uid} (chown).`);
    }
    fail(`${loc.rel} could not be written: ${err.message}.`);
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
  else if (r.outOfMemory) notes.push("killed: its processes together passed the command's memory limit");
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
  const terminal = new TerminalStream((data, stream) => ctx.terminal(data, stream));
  const r = await withWorkspace(host, ctx, (dir) => host.sandbox.exec({
    dir,
    argv,
    stdin,
    timeoutMs: timeoutS * 1000,
    signal: ctx.signal,
    onOutput: (stream, data) => terminal.push(stream, data),
  }));
  await terminal.end();
  return commandResult(r, timeoutS);
}
