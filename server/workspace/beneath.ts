/**
 * Path resolution the kernel enforces: a path inside a workspace is walked one name at a time,
 * each name opened relative to the directory descriptor of the step before it, with O_NOFOLLOW.
 * The kernel never follows a symbolic link on our behalf, so a command that swaps a directory for
 * a link (renameat2 RENAME_EXCHANGE in a loop) while a tool or a route walks through it can only
 * make the walk fail: every descriptor held is a directory that was inside the workspace when it
 * was opened, and a command in the sandbox cannot move it out (its only writable mount is the
 * workspace: rename across mounts is EXDEV).
 *
 * Node has no openat(2); `/proc/self/fd/<fd>/<name>` is the same operation: the kernel resolves
 * the magic link to the very directory the descriptor holds (not to a path that could have been
 * swapped since) and then looks up one name in it. Rejected: check the real path, then open the
 * path again (what this replaced): the check and the open resolve the path twice, and a parent
 * swapped between them is followed by the open.
 *
 * Links the agent makes inside its workspace keep working: a link found on the way is read
 * (readlink of that one name) and its target walked the same way, from the directory that holds
 * it (relative targets) or from the workspace (absolute targets under the sandbox's view of it,
 * `/workspace`). A target that leaves the workspace is refused. That is openat2's
 * RESOLVE_IN_ROOT done by hand, with the same bound on links (Linux's MAXSYMLINKS, 40).
 */
import { constants, promises as fs, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";

import { SANDBOX_WORKDIR } from "./sandbox.ts";

/** Links followed in one resolution (Linux's MAXSYMLINKS): more is a loop. */
export const MAX_LINKS_FOLLOWED = 40;

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** A refusal: the sentence says why, in words the model or the client can act on. */
export class PathRefused extends Error {
  override readonly name: string = "PathRefused";
  constructor(
    message: string,
    /** the path was acceptable but nothing is there */
    readonly missing = false,
  ) {
    super(message);
  }
}

/**
 * The path changed while it was being walked or opened: a command in the sandbox is moving it
 * (a rename, a directory swapped for a link). Nothing was read; the same request may succeed
 * when tried again, which openInWorkspace does a few times before it reports this.
 */
export class PathChanged extends PathRefused {
  override readonly name = "PathChanged";
  constructor(shown: string) {
    super(`Path ${shown} changed while it was being opened (a command is moving it); try again. Paths are relative to the workspace and stay inside it.`);
  }
}

/**
 * What a failed system call on a walk means for the path. The entry was looked at (lstat) and is
 * something else when used: gone (ENOENT), a link now (ELOOP), no directory now (ENOTDIR), no
 * link any more (readlink's EINVAL), a socket or device now (ENXIO): it changed. Permission
 * denied: a refusal that says so (a server that is not root meets the agent's chmod 000).
 * Anything else is the server's own failure and passes through.
 */
function walkError(shown: string, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === "ENOENT" || code === "ELOOP" || code === "ENOTDIR" || code === "EINVAL" || code === "ENXIO") return new PathChanged(shown);
  if (code === "EACCES" || code === "EPERM") return new PathRefused(`Path ${shown} refused: the server is not allowed to read it (permission denied). Paths are relative to the workspace and stay inside it.`);
  return err;
}

/** Throws the refusal of a path: why, and the rule, in words the model or the client can act on. */
export function refusePath(shown: string, why: string): never {
  throw new PathRefused(`Path ${shown} refused: ${why}. Paths are relative to the workspace and stay inside it.`);
}

/** `name` inside the directory `dir` holds, as a path the kernel resolves through the descriptor. */
export function at(dir: FileHandle, name?: string): string {
  return name === undefined ? `/proc/self/fd/${dir.fd}` : `/proc/self/fd/${dir.fd}/${name}`;
}

/** Opens a directory the caller trusts by path (the workspace root, or a directory this server made). */
export async function openTrustedDir(abs: string): Promise<FileHandle> {
  return fs.open(abs, DIR_FLAGS);
}

/** Opens one directory entry of `dir` as a directory, refusing a link (ELOOP/ENOTDIR). */
export async function openDirAt(dir: FileHandle, name: string): Promise<FileHandle> {
  return fs.open(at(dir, name), DIR_FLAGS);
}

/**
 * Where a path leads: the directory that holds its last name (open; the caller closes it with
 * `close()`), that name (undefined when the path is the workspace itself) and what is there now
 * (null: nothing yet). `rel` is the place inside the workspace, links resolved.
 */
export interface Location {
  dir: FileHandle;
  /** Directories between `dir` and `name` that do not exist yet (only with `missingParents`). */
  missing: string[];
  name: string | undefined;
  stat: Stats | null;
  rel: string;
  close(): Promise<void>;
}

/** Closes a handle that was opened for a walk; an error here would hide the one being reported. */
async function quietClose(fh: FileHandle): Promise<void> {
  try {
    await fh.close();
  } catch {
    // Closing a descriptor only fails for a bad descriptor: nothing left to release.
  }
}

/**
 * Runs `use` on the directory entry `name` of `dir`, opened without following a link, and closes
 * it after; undefined, without calling `use`, when the entry is no directory any more (a walk
 * that meets a swapped entry ends that branch).
 */
export async function withSubdir<T>(dir: FileHandle, name: string, use: (sub: FileHandle) => Promise<T>): Promise<T | undefined> {
  let sub: FileHandle;
  try {
    sub = await openDirAt(dir, name);
  } catch {
    return undefined;
  }
  try {
    return await use(sub);
  } finally {
    await quietClose(sub);
  }
}

async function lstatAt(dir: FileHandle, name: string): Promise<Stats | null> {
  try {
    return await fs.lstat(at(dir, name));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    throw err;
  }
}

/** lstatAt on a walk: a failure other than "nothing there" says what it means for `shown`. */
async function lookAt(dir: FileHandle, name: string, shown: string): Promise<Stats | null> {
  return lstatAt(dir, name).catch((err: unknown) => {
    throw walkError(shown, err);
  });
}

function splitNames(p: string): string[] {
  return p.split("/").filter((n) => n !== "" && n !== ".");
}

/**
 * Walks `rel` (already checked as text: relative, no `..` that leaves) from `root`, following
 * links inside the workspace; the last name's link is followed too when `followLast` (read,
 * list) and left as the name to replace otherwise. Throws PathRefused.
 */
export async function locate(root: FileHandle, rel: string, opts: { followLast: boolean; missingParents?: boolean; shown?: string }): Promise<Location> {
  const shown = JSON.stringify(opts.shown ?? rel);
  const pending = splitNames(rel);
  // The directories walked so far: [root, ...]. `..` pops (never past the root: that leaves).
  const dirs: FileHandle[] = [root];
  const names: string[] = [];
  let links = 0;
  let rootPath: string | undefined;
  const release = async (keep?: FileHandle) => {
    for (const d of dirs.splice(1)) if (d !== keep) await quietClose(d);
  };
  try {
    while (pending.length > 0) {
      const name = pending.shift()!;
      const cur = dirs.at(-1)!;
      if (name === "..") {
        if (dirs.length === 1) refusePath(shown, `a symbolic link in it points out of the workspace`);
        await quietClose(dirs.pop()!);
        names.pop();
        continue;
      }
      const last = pending.length === 0;
      const stat = await lookAt(cur, name, shown);
      if (stat?.isSymbolicLink() && (!last || opts.followLast)) {
        if (++links > MAX_LINKS_FOLLOWED) refusePath(shown, `it goes through a looping chain of symbolic links`);
        // Swapped for a directory since the lstat, readlink answers EINVAL: the path changed.
        const target = await fs.readlink(at(cur, name)).catch((err: unknown) => {
          throw walkError(shown, err);
        });
        if (target.startsWith("/")) {
          rootPath ??= await fs.readlink(at(root));
          const base = insideBase(target, rootPath);
          if (base === undefined) refusePath(shown, `a symbolic link in it points out of the workspace`);
          await release();
          names.length = 0;
          pending.unshift(...splitNames(target.slice(base.length)));
        } else {
          pending.unshift(...splitNames(target));
        }
        continue;
      }
      if (last || (!stat && opts.missingParents)) {
        // Missing parents (a write creates them): the rest of the path names them, plainly.
        const missing = last ? [] : [name, ...pending.slice(0, -1)];
        const finalName = last ? name : pending.at(-1)!;
        if (missing.includes("..")) refusePath(shown, `it leads out of the workspace`);
        const location = { dir: cur, missing, name: finalName, stat: last ? stat : null, rel: [...names, ...missing, finalName].join("/") };
        await release(cur);
        return { ...location, close: () => (cur === root ? Promise.resolve() : quietClose(cur)) };
      }
      if (!stat) throw new PathRefused(`${shown} does not exist in the workspace. \`ls\` or \`find\` show what does.`, true);
      if (!stat.isDirectory()) refusePath(shown, `"${[...names, name].join("/")}" is not a directory`);
      dirs.push(await openDirAt(cur, name).catch((err: unknown) => {
        throw walkError(shown, err);
      }));
      names.push(name);
    }
    // The path named a directory the walk ended in (or the workspace itself).
    const cur = dirs.at(-1)!;
    const rest = { dir: cur, missing: [], name: undefined, stat: await cur.stat(), rel: names.join("/") || "." };
    dirs.pop();
    await release();
    return { ...rest, close: () => (cur === root ? Promise.resolve() : quietClose(cur)) };
  } catch (err) {
    await release();
    throw err;
  }
}

/**
 * The prefix an absolute link target starts the workspace with: the sandbox's view of it
 * (`/workspace`, how the agent's own commands name it) or the host's (where the server sees it).
 * Undefined when the target is elsewhere.
 */
function insideBase(target: string, rootPath: string): string | undefined {
  for (const base of [SANDBOX_WORKDIR, rootPath]) if (target === base || target.startsWith(`${base}/`)) return base;
  return undefined;
}

/** What `open` may return: a regular file or a directory, each open without following a link. */
export type Opened = { kind: "file"; handle: FileHandle; stat: Stats; rel: string } | { kind: "dir"; handle: FileHandle; stat: Stats; rel: string };

/**
 * Opens what `rel` names, following links inside the workspace. Only a regular file or a
 * directory is opened at all: a device, FIFO or socket is refused by its lstat (a socket cannot
 * be opened, ENXIO; a device's open may act). A file is opened O_NONBLOCK (a FIFO swapped in
 * cannot hang the open) and the descriptor's fstat must be the inode the lstat saw: what is read
 * is what was checked, and anything swapped in between is "changed, try again".
 */
export async function openBeneath(root: FileHandle, rel: string, shownAs?: string): Promise<Opened> {
  const shown = JSON.stringify(shownAs ?? rel);
  const loc = await locate(root, rel, { followLast: true, shown: shownAs ?? rel });
  try {
    if (loc.name === undefined) {
      // The walk ended on a directory it holds: hand over a descriptor of its own (the magic link
      // is the descriptor itself, so it is followed: O_NOFOLLOW would refuse the link it is).
      const handle = await fs.open(at(loc.dir), constants.O_RDONLY | constants.O_DIRECTORY);
      return { kind: "dir", handle, stat: await handle.stat(), rel: loc.rel };
    }
    const seen = loc.stat;
    if (!seen) throw new PathRefused(`${shown} does not exist in the workspace. \`ls\` or \`find\` show what does.`, true);
    if (!seen.isFile() && !seen.isDirectory()) refusePath(shown, `it is not a regular file or directory (a device, FIFO or socket)`);
    const flags = seen.isDirectory() ? DIR_FLAGS : constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
    const handle = await fs.open(at(loc.dir, loc.name), flags).catch((err: unknown) => {
      throw walkError(shown, err);
    });
    const stat = await handle.stat();
    if (stat.ino !== seen.ino || stat.dev !== seen.dev) {
      await quietClose(handle);
      throw new PathChanged(shown);
    }
    return { kind: stat.isDirectory() ? "dir" : "file", handle, stat, rel: loc.rel };
  } finally {
    await loc.close();
  }
}

/** The entries of an open directory, read through its descriptor. */
export async function readDirOf(dir: FileHandle) {
  return fs.readdir(at(dir), { withFileTypes: true });
}

/** lstat of one entry of an open directory (no link followed). */
export async function lstatEntry(dir: FileHandle, name: string): Promise<Stats | null> {
  return lstatAt(dir, name).catch(() => null);
}

/** The path of `rel` joined for display, never starting with "./". */
export function joinRel(base: string, name: string): string {
  return base === "." || base === "" ? name : path.posix.join(base, name);
}
