/**
 * Containment: every path a tool is given is resolved inside its workspace by real path, or
 * refused with a sentence the model can act on. Refused: absolute paths, `..` that leaves the
 * workspace, symlinks (of the file or of any parent) whose target is outside, NUL and control
 * characters, over-long paths and names, and, for file operations, anything that is not a
 * regular file or a directory (devices, FIFOs, sockets).
 *
 * What is left (README "Coding agent and workspace"): a command running at the same moment in
 * the sandbox could swap a checked directory for a symlink between the check and the use. The
 * final component is opened with O_NOFOLLOW for reads and writes; a swapped parent is not
 * caught. The sandbox's own commands cannot leave the workspace whatever they do.
 */
import { constants, promises as fs, type Stats } from "node:fs";
import path from "node:path";

/** Longest path a tool may name, in UTF-8 bytes (Linux PATH_MAX is 4096). */
export const PATH_MAX_BYTES = 4096;
/** Longest single name in a path, in UTF-8 bytes (NAME_MAX). */
export const NAME_MAX_BYTES = 255;

export type Resolved =
  | { ok: true; abs: string; rel: string; stat: Stats | null }
  /** `missing`: the path is acceptable but nothing is there */
  | { ok: false; error: string; missing?: true };

export interface ResolveOptions {
  /** "file": must be a regular file; "dir": a directory; "any": either; each may be absent if `mayBeMissing` */
  kind?: "file" | "dir" | "any";
  mayBeMissing?: boolean;
}

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

function refuse(p: string, why: string): Resolved {
  const shown = JSON.stringify(p.length > 200 ? `${p.slice(0, 200)}…` : p);
  return { ok: false, error: `Path ${shown} refused: ${why}. Paths are relative to the workspace and stay inside it.` };
}

async function lstatOrNull(p: string): Promise<Stats | null> {
  try {
    return await fs.lstat(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "ENOTDIR") return null;
    throw err;
  }
}

/**
 * Resolves `userPath` inside `rootReal` (the workspace's real path). The deepest existing
 * ancestor is resolved by realpath (so a symlinked parent counts where it points), the rest
 * must not exist yet; the result is inside the root or refused.
 */
export async function resolveInside(rootReal: string, userPath: string, opts: ResolveOptions = {}): Promise<Resolved> {
  if (typeof userPath !== "string") return refuse(String(userPath), "it is not a string");
  const raw = userPath === "" ? "." : userPath;
  const problem = pathTextProblem(raw);
  if (problem) return refuse(raw, problem);
  const normalized = path.posix.normalize(raw);
  if (normalized === ".." || normalized.startsWith("../")) return refuse(raw, "it leads out of the workspace (\"..\")");
  const candidate = path.resolve(rootReal, normalized);
  if (!isInside(rootReal, candidate)) return refuse(raw, "it leads out of the workspace");

  // Walk up to the deepest part that exists; realpath it; the missing rest is appended as is.
  let existing = candidate;
  const missing: string[] = [];
  let stat: Stats | null = null;
  for (;;) {
    try {
      stat = await lstatOrNull(existing);
    } catch (err) {
      return refuse(raw, `it cannot be examined (${(err as NodeJS.ErrnoException).code ?? "error"})`);
    }
    if (stat) break;
    if (existing === rootReal) return refuse(raw, "the workspace does not exist");
    missing.unshift(path.basename(existing));
    existing = path.dirname(existing);
  }
  let real: string;
  try {
    real = await fs.realpath(existing);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ELOOP") return refuse(raw, "it goes through a broken or looping symbolic link");
    return refuse(raw, `it cannot be resolved (${code ?? "error"})`);
  }
  if (!isInside(rootReal, real)) return refuse(raw, "a symbolic link in it points out of the workspace");
  const abs = path.join(real, ...missing);
  if (!isInside(rootReal, abs)) return refuse(raw, "it leads out of the workspace");

  let target: Stats | null = null;
  if (missing.length === 0) {
    try {
      target = await fs.stat(real);
    } catch {
      return refuse(raw, "it cannot be examined");
    }
  } else if (!stat!.isDirectory() && !stat!.isSymbolicLink()) {
    return refuse(raw, `"${path.relative(rootReal, real) || "."}" is not a directory`);
  }
  const kind = opts.kind ?? "any";
  if (target) {
    if (!target.isFile() && !target.isDirectory()) return refuse(raw, "it is not a regular file or directory (a device, FIFO or socket)");
    if (kind === "file" && !target.isFile()) return refuse(raw, "it is a directory, not a file");
    if (kind === "dir" && !target.isDirectory()) return refuse(raw, "it is a file, not a directory");
  } else if (!opts.mayBeMissing) {
    return { ok: false, missing: true, error: `${JSON.stringify(raw)} does not exist in the workspace. \`ls\` or \`find\` show what does.` };
  }
  const rel = path.relative(rootReal, abs).split(path.sep).join("/") || ".";
  return { ok: true, abs, rel, stat: target };
}

/** Opens a resolved file without following a symlink in its last component (checked above, swapped since). */
export async function openNoFollow(abs: string, flags: number, mode = 0o644) {
  return fs.open(abs, flags | constants.O_NOFOLLOW, mode);
}
