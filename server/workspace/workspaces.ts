/**
 * Where a thread's files live. One root (WORKSPACE_ROOT, default `<DATA_DIR>/workspaces`) holds
 * `.threadline/` (the server's own: instance markers, thread bindings, and the default
 * per-thread workspaces `threads/<thread>`). When the operator set WORKSPACE_ROOT, a run may
 * choose a directory instead (forwardedProps.threadline.workingDirectory), inside its tenant's
 * part of the root: the root itself for the default tenant (less `.threadline` and `tenants`),
 * `tenants/<tenant>/` for every other. Two tenants naming the same directory name two
 * directories. The choice is bound to the thread (a file under `.threadline/bindings`) until a
 * later run names another, so the workspace routes and a run resumed on another instance find
 * the same directory.
 *
 * A workspace is handed out as an open directory descriptor, reached from the root one name at a
 * time without following links (beneath.ts): what the tools, the routes and the sandbox use is
 * the directory that was checked, whatever a command renames meanwhile.
 *
 * Every instance must see the same root (shared storage): `checkShared` writes this instance's
 * marker and reports live instances whose marker it cannot see.
 */
import { createHash, randomUUID } from "node:crypto";
import { type Dirent, promises as fs } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import { makeDirs } from "../make-dirs.ts";
import { DEFAULT_TENANT } from "../tenant.ts";
import { joinRel, lstatEntry, openDirAt, openTrustedDir, readDirOf, withSubdir } from "./beneath.ts";
import { pathTextProblem } from "./paths.ts";

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

/** A workspace, open: the caller closes `handle`. `label` names it in logs and messages. */
export type WorkspaceResult = { ok: true; handle: FileHandle; label: string } | { ok: false; error: string };

/** Names under the root that belong to the server, not to the default tenant's directories. */
const RESERVED_TOP = new Set([".threadline", "tenants"]);

/** A tenant's part of the root, as names from the root. */
function tenantPart(tenant: string): string[] {
  return tenant === DEFAULT_TENANT ? [] : ["tenants", tenant];
}

/** Opens `names` one by one from `dir`, no link followed; takes `dir` over (closes it). */
async function walkDirs(dir: FileHandle, names: string[]): Promise<FileHandle> {
  let cur = dir;
  for (const name of names) {
    const from = cur;
    cur = await openDirAt(from, name).finally(() => from.close());
  }
  return cur;
}

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
    // makeDirs, not a recursive mkdir, which never returns for a root under /proc.
    for (const d of ["threads", "bindings", "instances"]) await makeDirs(path.join(this.meta, d));
    // The sandbox's user must reach the thread directories (bwrap binds them as that user).
    if (this.opts.owner) for (const d of [this.meta, path.join(this.meta, "threads")]) await fs.chmod(d, 0o711);
    this.#rootReal = await fs.realpath(this.root);
    return this.#rootReal;
  }

  #bindingFile(threadId: string): string {
    return path.join(this.meta, "bindings", `${threadDirName(threadId)}.json`);
  }

  /**
   * Checks a chosen directory as text: relative to the tenant's part (or absolute inside it),
   * not that part itself, not the server's own names. Returns its names from the tenant's part.
   */
  #chosenNames(value: unknown, tenant: string, rootReal: string): string[] | { error: string } {
    if (typeof value !== "string" || value.trim() === "") {
      return { error: "forwardedProps.threadline.workingDirectory must be a non-empty string." };
    }
    if (!this.opts.allowWorkingDirectory) {
      return { error: "This server does not let runs choose a workingDirectory (the operator sets WORKSPACE_ROOT to allow it)." };
    }
    const part = path.join(rootReal, ...tenantPart(tenant));
    const shown = JSON.stringify(value);
    let rel = value;
    if (value.startsWith("/")) {
      if (!value.startsWith(`${part}/`)) return { error: `workingDirectory ${shown} is not inside your part of the workspace root (${part}); give it relative to that.` };
      rel = value.slice(part.length + 1);
    }
    const problem = pathTextProblem(rel);
    if (problem) return { error: `workingDirectory refused: ${problem}.` };
    const normalized = path.posix.normalize(rel);
    const names = normalized.split("/").filter((n) => n !== "" && n !== ".");
    if (names.length === 0 || names[0] === "..") {
      return { error: `workingDirectory ${shown} is not a directory inside your part of the workspace root.` };
    }
    if (tenant === DEFAULT_TENANT && RESERVED_TOP.has(names[0]!)) {
      return { error: `workingDirectory ${shown} is inside the server's own "${names[0]}" directory.` };
    }
    return names;
  }

  /** Opens a chosen directory (names from the tenant's part), reached without following a link. */
  async #openChosen(value: unknown, tenant: string): Promise<WorkspaceResult> {
    const rootReal = await this.init();
    const names = this.#chosenNames(value, tenant, rootReal);
    if (!Array.isArray(names)) return { ok: false, ...names };
    const partNames = tenantPart(tenant);
    if (partNames.length > 0) await fs.mkdir(path.join(rootReal, ...partNames), { recursive: true, mode: 0o711 });
    try {
      const handle = await walkDirs(await openTrustedDir(rootReal), [...partNames, ...names]);
      return { ok: true, handle, label: [...partNames, ...names].join("/") };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const shown = JSON.stringify(value);
      if (code === "ENOENT") return { ok: false, error: `workingDirectory ${shown} does not exist in your part of the workspace root.` };
      if (code === "ELOOP" || code === "ENOTDIR") {
        return { ok: false, error: `workingDirectory ${shown} is not a directory reached without symbolic links inside your part of the workspace root.` };
      }
      if (code === "EACCES" || code === "EPERM") return { ok: false, error: `workingDirectory ${shown} cannot be opened by the server (permission denied).` };
      throw err;
    }
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

  async #writeBinding(threadId: string, tenant: string, rel: string): Promise<void> {
    const file = this.#bindingFile(threadId);
    const tmp = `${file}.${randomUUID()}.tmp`;
    await fs.writeFile(tmp, JSON.stringify({ threadId, tenant, workingDirectory: rel }));
    await fs.rename(tmp, file);
  }

  /** The default directory of a thread, open (created on first use, given to the sandbox's user). */
  async #threadDir(threadId: string, create: boolean): Promise<FileHandle | undefined> {
    const rootReal = await this.init();
    const threads = await walkDirs(await openTrustedDir(rootReal), [".threadline", "threads"]);
    const name = threadDirName(threadId);
    try {
      if (create) {
        // `.threadline/threads` is the server's (no sandbox mounts it): made here, then given away
        // through the descriptor, before any tool writes into it.
        await fs.mkdir(`/proc/self/fd/${threads.fd}/${name}`).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== "EEXIST") throw err;
        });
      }
      const dir = await openDirAt(threads, name).catch((err: NodeJS.ErrnoException) => {
        if (!create && err.code === "ENOENT") return undefined;
        throw err;
      });
      if (dir && create && this.opts.owner) {
        const st = await dir.stat();
        if (st.uid !== this.opts.owner.uid) await dir.chown(this.opts.owner.uid, this.opts.owner.gid);
      }
      return dir;
    } finally {
      await threads.close();
    }
  }

  /**
   * The workspace of a run of `threadId` (of `tenant`): the run's chosen workingDirectory (bound
   * to the thread from now on), else the thread's bound one, else its own directory.
   */
  async forRun(threadId: string, tenant: string, forwardedProps: unknown): Promise<WorkspaceResult> {
    const chosen = workingDirectoryOf(forwardedProps);
    if (chosen !== undefined) {
      const v = await this.#openChosen(chosen, tenant);
      if (!v.ok) return v;
      const rel = v.label.split("/").slice(tenantPart(tenant).length).join("/");
      if ((await this.#readBinding(threadId)) !== rel) await this.#writeBinding(threadId, tenant, rel);
      return v;
    }
    const bound = await this.#readBinding(threadId);
    if (bound !== undefined) return this.#openChosen(bound, tenant);
    const handle = (await this.#threadDir(threadId, true))!;
    return { ok: true, handle, label: `.threadline/threads/${threadDirName(threadId)}` };
  }

  /**
   * What is wrong with the workingDirectory a run names (its forwardedProps), for `tenant`; null
   * when it names none or one that opens. Admission asks, so a bad one is a 400, not a failure
   * of every tool call.
   */
  async checkWorkingDirectory(forwardedProps: unknown, tenant: string): Promise<string | null> {
    const chosen = workingDirectoryOf(forwardedProps);
    if (chosen === undefined) return null;
    const opened = await this.#openChosen(chosen, tenant);
    if (!opened.ok) return opened.error;
    await opened.handle.close();
    return null;
  }

  /** The thread's workspace if it has one yet, open (the routes: they create nothing). */
  async existing(threadId: string, tenant: string): Promise<FileHandle | undefined> {
    const bound = await this.#readBinding(threadId);
    if (bound !== undefined) {
      const v = await this.#openChosen(bound, tenant);
      return v.ok ? v.handle : undefined;
    }
    return this.#threadDir(threadId, false);
  }

  /**
   * Regular files of an open workspace (links not followed, LISTING_SKIPPED_DIRS skipped), sorted,
   * capped; each directory is opened from the one that lists it, so a swapped one ends its branch.
   */
  async list(dir: FileHandle): Promise<{ files: WorkspaceFile[]; truncated: boolean }> {
    const files: WorkspaceFile[] = [];
    let truncated = false;
    const walk = async (handle: FileHandle, rel: string): Promise<void> => {
      let entries: Dirent[];
      try {
        entries = await readDirOf(handle);
      } catch {
        return;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const e of entries) {
        if (files.length >= WORKSPACE_LIST_MAX_FILES) {
          truncated = true;
          return;
        }
        const childRel = joinRel(rel, e.name);
        if (e.isDirectory()) {
          if (!LISTING_SKIPPED_DIRS.has(e.name)) await withSubdir(handle, e.name, (child) => walk(child, childRel));
        } else if (e.isFile()) {
          const st = await lstatEntry(handle, e.name);
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
}
