/**
 * Where a thread's files live. One root (WORKSPACE_ROOT, default `<DATA_DIR>/workspaces`) holds
 * `.threadline/` (the server's own: instance markers, thread bindings, and the default
 * per-thread workspaces `threads/<thread>`). When the operator set WORKSPACE_ROOT, a run may
 * choose a directory under it instead (forwardedProps.threadline.workingDirectory): it must
 * exist, be a directory inside the root by real path, and not be the root itself or inside
 * `.threadline`. The choice is bound to the thread (a file under `.threadline/bindings`) until a
 * later run names another, so the workspace routes and a run resumed on another instance find
 * the same directory.
 *
 * Every instance must see the same root (shared storage): `checkShared` writes this instance's
 * marker and reports live instances whose marker it cannot see.
 */
import { createHash, randomUUID } from "node:crypto";
import { type Dirent, promises as fs } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { isInside, pathTextProblem } from "./paths.ts";

/** Most files the workspace listing returns. */
export const WORKSPACE_LIST_MAX_FILES = 2_000;
/** Directories the listing does not descend into (dependencies and VCS data). */
export const LISTING_SKIPPED_DIRS = new Set([".git", "node_modules", ".threadline"]);

export interface WorkspacesOptions {
  root: string;
  /** Runs may choose a workingDirectory under the root (the operator set WORKSPACE_ROOT). */
  allowWorkingDirectory: boolean;
  /** When the server runs as root: the sandbox's uid/gid, which must own what the tools create. */
  owner?: { uid: number; gid: number };
}

export type WorkspaceResult = { ok: true; dir: string } | { ok: false; error: string };

export interface WorkspaceFile {
  path: string;
  size: number;
  modifiedAt: string;
  fileType: string;
}

/** "ts", "py", "md"… from the extension (lower case); "" when it has none. */
export function fileTypeOf(p: string): string {
  return path.extname(p).slice(1).toLowerCase();
}

/** A thread id as one directory name: itself when plain, else a hash (ids may hold "/" or ".."). */
export function threadDirName(threadId: string): string {
  if (/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/.test(threadId)) return threadId;
  return `%${createHash("sha256").update(threadId).digest("hex").slice(0, 40)}`;
}

function workingDirectoryOf(forwardedProps: unknown): unknown {
  if (!forwardedProps || typeof forwardedProps !== "object") return undefined;
  const tl = (forwardedProps as { threadline?: unknown }).threadline;
  if (!tl || typeof tl !== "object") return undefined;
  return (tl as { workingDirectory?: unknown }).workingDirectory;
}

export class Workspaces {
  readonly root: string;
  readonly meta: string;
  #rootReal: string | undefined;

  constructor(readonly opts: WorkspacesOptions) {
    this.root = path.resolve(opts.root);
    this.meta = path.join(this.root, ".threadline");
  }

  /** Creates the root and `.threadline` (idempotent); returns the root's real path. */
  async init(): Promise<string> {
    if (this.#rootReal) return this.#rootReal;
    await fs.mkdir(path.join(this.meta, "threads"), { recursive: true });
    await fs.mkdir(path.join(this.meta, "bindings"), { recursive: true });
    await fs.mkdir(path.join(this.meta, "instances"), { recursive: true });
    // The sandbox's user must reach the thread directories (bwrap binds them as that user).
    if (this.opts.owner) for (const d of [this.meta, path.join(this.meta, "threads")]) await fs.chmod(d, 0o711);
    this.#rootReal = await fs.realpath(this.root);
    return this.#rootReal;
  }

  #bindingFile(threadId: string): string {
    return path.join(this.meta, "bindings", `${threadDirName(threadId)}.json`);
  }

  /** Checks a chosen directory (relative to the root, or absolute inside it); its real path. */
  async #validateChosen(value: unknown): Promise<WorkspaceResult> {
    const rootReal = await this.init();
    if (typeof value !== "string" || value.trim() === "") {
      return { ok: false, error: "forwardedProps.threadline.workingDirectory must be a non-empty string." };
    }
    if (!this.opts.allowWorkingDirectory) {
      return { ok: false, error: "This server does not let runs choose a workingDirectory (the operator sets WORKSPACE_ROOT to allow it)." };
    }
    const problem = pathTextProblem(value.replace(/^\/+/, ""));
    if (problem && !problem.startsWith("it is absolute")) return { ok: false, error: `workingDirectory refused: ${problem}.` };
    const candidate = path.resolve(rootReal, value);
    let real: string;
    try {
      real = await fs.realpath(candidate);
    } catch {
      return { ok: false, error: `workingDirectory ${JSON.stringify(value)} does not exist under the workspace root.` };
    }
    if (!isInside(rootReal, real) || real === rootReal) {
      return { ok: false, error: `workingDirectory ${JSON.stringify(value)} is not a directory inside the workspace root.` };
    }
    if (isInside(path.join(rootReal, ".threadline"), real)) {
      return { ok: false, error: `workingDirectory ${JSON.stringify(value)} is inside the server's own .threadline directory.` };
    }
    const stat = await fs.stat(real);
    if (!stat.isDirectory()) return { ok: false, error: `workingDirectory ${JSON.stringify(value)} is not a directory.` };
    return { ok: true, dir: real };
  }

  /**
   * Only a missing file means "not bound": an unreadable or corrupt binding fails loudly rather
   * than quietly moving the thread to its default directory, where its files are not.
   */
  async #readBinding(threadId: string): Promise<string | undefined> {
    const file = this.#bindingFile(threadId);
    let text: string;
    try {
      text = await fs.readFile(file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new Error(`could not read the workspace binding ${file}: ${(err as Error).message}`, { cause: err });
    }
    let parsed: { workingDirectory?: unknown };
    try {
      parsed = JSON.parse(text) as { workingDirectory?: unknown };
    } catch (err) {
      throw new Error(`the workspace binding ${file} is not JSON; delete it to unbind the thread`, { cause: err });
    }
    return typeof parsed.workingDirectory === "string" ? parsed.workingDirectory : undefined;
  }

  async #writeBinding(threadId: string, rel: string): Promise<void> {
    const file = this.#bindingFile(threadId);
    const tmp = `${file}.${randomUUID()}.tmp`;
    await fs.writeFile(tmp, JSON.stringify({ threadId, workingDirectory: rel }));
    await fs.rename(tmp, file);
  }

  /** The default directory of a thread (created on first use). */
  async #threadDir(threadId: string, create: boolean): Promise<string | undefined> {
    const rootReal = await this.init();
    const dir = path.join(rootReal, ".threadline", "threads", threadDirName(threadId));
    if (!create) {
      const stat = await fs.stat(dir).catch(() => null);
      return stat?.isDirectory() ? dir : undefined;
    }
    await fs.mkdir(dir, { recursive: true });
    if (this.opts.owner) await fs.chown(dir, this.opts.owner.uid, this.opts.owner.gid);
    return dir;
  }

  /**
   * The workspace of a run of `threadId`: the run's chosen workingDirectory (bound to the
   * thread from now on), else the thread's bound one, else its own directory.
   */
  async forRun(threadId: string, forwardedProps: unknown): Promise<WorkspaceResult> {
    const rootReal = await this.init();
    const chosen = workingDirectoryOf(forwardedProps);
    if (chosen !== undefined) {
      const v = await this.#validateChosen(chosen);
      if (!v.ok) return v;
      const rel = path.relative(rootReal, v.dir);
      if ((await this.#readBinding(threadId)) !== rel) await this.#writeBinding(threadId, rel);
      return v;
    }
    const bound = await this.#readBinding(threadId);
    if (bound !== undefined) return this.#validateChosen(bound);
    return { ok: true, dir: (await this.#threadDir(threadId, true))! };
  }

  /** The thread's workspace if it has one yet (the routes: they create nothing). */
  async existing(threadId: string): Promise<string | undefined> {
    const bound = await this.#readBinding(threadId);
    if (bound !== undefined) {
      const v = await this.#validateChosen(bound);
      return v.ok ? v.dir : undefined;
    }
    return this.#threadDir(threadId, false);
  }

  /** Regular files under `dir` (symlinks not followed, LISTING_SKIPPED_DIRS skipped), sorted, capped. */
  async list(dir: string): Promise<{ files: WorkspaceFile[]; truncated: boolean }> {
    const files: WorkspaceFile[] = [];
    let truncated = false;
    const walk = async (abs: string, rel: string): Promise<void> => {
      let entries: Dirent[];
      try {
        entries = await fs.readdir(abs, { withFileTypes: true });
      } catch {
        return;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const e of entries) {
        if (files.length >= WORKSPACE_LIST_MAX_FILES) {
          truncated = true;
          return;
        }
        const childRel = rel ? `${rel}/${e.name}` : e.name;
        const childAbs = path.join(abs, e.name);
        if (e.isDirectory()) {
          if (!LISTING_SKIPPED_DIRS.has(e.name)) await walk(childAbs, childRel);
        } else if (e.isFile()) {
          const st = await fs.lstat(childAbs).catch(() => null);
          if (st?.isFile()) files.push({ path: childRel, size: st.size, modifiedAt: st.mtime.toISOString(), fileType: fileTypeOf(e.name) });
        }
      }
    };
    await walk(dir, "");
    return { files, truncated };
  }

  /**
   * Shared-storage check: writes this instance's marker under `.threadline/instances`, and
   * returns the `otherInstances` (live lease owners the database knows) whose marker this
   * instance cannot see: their workspace root is not this one.
   */
  async checkShared(instanceId: string, otherInstances: string[]): Promise<{ marker: string; unseen: string[] }> {
    await this.init();
    const marker = path.join(this.meta, "instances", `${threadDirName(instanceId)}.json`);
    const token = randomUUID();
    await fs.writeFile(marker, JSON.stringify({ instanceId, host: hostname(), pid: process.pid, token, at: new Date().toISOString() }));
    const back = JSON.parse(await fs.readFile(marker, "utf8")) as { token?: string };
    if (back.token !== token) throw new Error(`the workspace root ${this.root} did not read back what was written to it`);
    const unseen: string[] = [];
    for (const other of new Set(otherInstances)) {
      if (other === instanceId) continue;
      const seen = await fs.stat(path.join(this.meta, "instances", `${threadDirName(other)}.json`)).catch(() => null);
      if (!seen) unseen.push(other);
    }
    return { marker, unseen };
  }

  /**
   * Gives a file or directory the tools created to the sandbox's user (when the server is root).
   * A failure fails the tool call (its error result says why): ignored, it would surface later as
   * a command that cannot write a file the model was told it wrote.
   */
  async own(abs: string): Promise<void> {
    const owner = this.opts.owner;
    if (!owner) return;
    await fs.lchown(abs, owner.uid, owner.gid).catch((err: unknown) => {
      throw new Error(`could not give ${path.relative(this.root, abs)} to the sandbox's user ${owner.uid}: ${(err as Error).message}`, { cause: err });
    });
  }
}
