/**
 * Containment: every path a tool or a route is given is checked as text here (absolute paths,
 * `..` that leaves the workspace, NUL and control characters, over-long paths and names are
 * refused with a sentence the model can act on), then walked beneath the workspace's directory
 * descriptor (beneath.ts), which refuses links that lead out and anything that is not a regular
 * file or a directory (devices, FIFOs, sockets). What is opened is what was checked: the kind is
 * read from the open descriptor, never from a second look at the path.
 */
import type { FileHandle } from "node:fs/promises";
import path from "node:path";
import { type Location, locate, type Opened, openBeneath, PathChanged, refusePath } from "./beneath.ts";

/** Longest path a tool may name, in UTF-8 bytes (Linux PATH_MAX is 4096). */
export const PATH_MAX_BYTES = 4096;
/** Longest single name in a path, in UTF-8 bytes (NAME_MAX). */
export const NAME_MAX_BYTES = 255;

/** True when `p` is `root` or inside it (both absolute and normalized). */
export function isInside(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/** What is wrong with the text of a path, before the file system is asked; null when fine. */
export function pathTextProblem(p: string): string | null {
  if (p.includes("\0")) return "it contains a NUL character";
  if (/[\u0001-\u001f\u007f]/.test(p)) return "it contains control characters";
  if (Buffer.byteLength(p) > PATH_MAX_BYTES) return `it is longer than ${PATH_MAX_BYTES} bytes`;
  for (const part of p.split("/")) {
    if (Buffer.byteLength(part) > NAME_MAX_BYTES) return `a name in it is longer than ${NAME_MAX_BYTES} bytes`;
  }
  if (path.isAbsolute(p) || p.startsWith("~")) return "it is absolute: give a path relative to the workspace (\".\" is the workspace)";
  return null;
}

function shownPath(p: string): string {
  return JSON.stringify(p.length > 200 ? `${p.slice(0, 200)}…` : p);
}

function refuse(p: string, why: string): never {
  refusePath(shownPath(p), why);
}

/** Checks a path as text and returns it normalized (relative, no `..` that leaves); throws PathRefused. */
export function workspacePath(userPath: unknown): string {
  if (typeof userPath !== "string") refuse(String(userPath), "it is not a string");
  const raw = userPath === "" ? "." : userPath;
  const problem = pathTextProblem(raw);
  if (problem) refuse(raw, problem);
  const normalized = path.posix.normalize(raw);
  if (normalized === ".." || normalized.startsWith("../")) refuse(raw, 'it leads out of the workspace ("..")');
  return normalized;
}

/**
 * Walks of a path that a command is moving, at most: each starts again from the workspace, and
 * after the last PathChanged is the answer ("changed, try again": 409 on the file route). Each
 * walk takes a few system calls, so more attempts cost little; none makes a path that is swapped
 * without pause readable, which is why the answer stays "try again". Measured with
 * test/workspace/file-route.test.ts (about 25,000 renameat2 swaps a second of the very paths
 * read, 1,500 reads): 21% of reads changed with one walk, 5.6% with two, 1.9% with three.
 */
export const OPEN_ATTEMPTS = 3;

/**
 * Opens what `userPath` names in the workspace `root` (beneath.ts: no link followed by the
 * kernel, links inside the workspace followed by hand) and checks its kind on the descriptor.
 * A walk that met the path changing is walked again (OPEN_ATTEMPTS). The caller closes `handle`.
 */
export async function openInWorkspace(root: FileHandle, userPath: unknown, kind: "file" | "dir" | "any" = "any"): Promise<Opened> {
  const rel = workspacePath(userPath);
  let opened: Opened | undefined;
  for (let attempt = 1; !opened; attempt++) {
    try {
      opened = await openBeneath(root, rel, userPath as string);
    } catch (err) {
      if (!(err instanceof PathChanged) || attempt >= OPEN_ATTEMPTS) throw err;
    }
  }
  if (kind === "file" && opened.kind !== "file") {
    await opened.handle.close();
    refuse(userPath as string, "it is a directory, not a file");
  }
  if (kind === "dir" && opened.kind !== "dir") {
    await opened.handle.close();
    refuse(userPath as string, "it is a file, not a directory");
  }
  return opened;
}

/** Where a file is to be written: its parent (created if missing) and name; a link there is replaced. */
export async function locateForWrite(root: FileHandle, userPath: unknown): Promise<Location> {
  const rel = workspacePath(userPath);
  if (rel === ".") refuse(userPath as string, "it is the workspace itself, not a file");
  const loc = await locate(root, rel, { followLast: false, missingParents: true, shown: userPath as string });
  if (loc.stat?.isDirectory()) {
    await loc.close();
    refuse(userPath as string, "it is a directory, not a file");
  }
  return loc;
}
