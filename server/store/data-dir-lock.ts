/**
 * One writer per embedded-database directory: a process that opens a PGlite directory holds an
 * exclusive flock(2) on `<dir>/threadline.lock` for as long as the store is open. The kernel
 * enforces it and releases it when the process ends, however it ends (SIGKILL, OOM kill, power
 * loss of a container): a lock left behind by a crash is no lock, so there is nothing stale to
 * detect, judge or take over, and checking and taking are one system call.
 *
 * Node has no flock(). The lock is taken by flock(1) (util-linux; BusyBox has it too) run once on
 * this process's own open file description, passed as the child's fd 3: flock(2) locks belong to
 * the open file description, which outlives the child, so when flock(1) exits 0 the lock is held
 * by this process's descriptor until it is closed. Every descriptor Node opens is close-on-exec,
 * so no other child (a sandboxed command) inherits it and keeps it past this process.
 *
 * Rejected:
 * - A pid file created with O_EXCL, plus "is that pid alive?": two starters that both find a dead
 *   pid both remove the file and both create one; a pid recycled by another process looks alive
 *   (in a container the holder is often pid 1 again after a restart, which is always alive); and a
 *   pid means nothing to a process in another pid namespace sharing the volume.
 * - proper-lockfile (mkdir, then an mtime refreshed by a timer, stale after 10 s): a process that
 *   gets a tenth of a core for longer than the stale bound loses its lock while it still writes,
 *   which is the busy machine this server is built for.
 * - A native flock binding (fs-ext, os-lock): a compiler or prebuilt binaries at install time for
 *   a package that has no native code.
 * - An abstract Unix socket as the lock: kernel-held too, but per network namespace, so two
 *   containers sharing one volume would both get it.
 *
 * The lock file stays (never unlinked): unlinking it would let a process that opened the old
 * file and one that creates a new file both lock "it". Its content names the holder (pid, host,
 * port when known), written by the holder after it took the lock, for the refusal's sentence.
 */
import { spawn } from "node:child_process";
import { close, constants, ftruncate, open, read, write } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { z } from "zod";
import { DataDirInUseError, type DataDirHolder } from "./errors.ts";

/** The lock file in the directory it guards. */
export const DATA_DIR_LOCK_FILE = "threadline.lock";

/**
 * How long flock(1) may take to answer: one fork and exec of a small program, which a process on
 * a tenth of a core does in well under a second. What it catches is a file system that does not
 * answer at all (a hung network mount), which would otherwise hold the start forever.
 */
export const DATA_DIR_LOCK_TIMEOUT_MS = 10_000;

/** What the holder writes into the lock file: who it is, for the sentence of a refusal. */
const HolderSchema = z.object({
  pid: z.number().int().positive(),
  host: z.string().max(255),
  port: z.number().int().min(0).max(65_535).optional(),
  since: z.string().max(40),
});

/** A lock held: `release()` closes the descriptor, which drops the lock. */
export interface DataDirLock {
  readonly file: string;
  release(): Promise<void>;
}

// Plain descriptors, not FileHandles: a FileHandle that is garbage-collected is closed by Node,
// which would drop the lock while the database is open.
const openFd = promisify(open);
const closeFd = promisify(close);
const readFd = promisify(read);
const writeFd = promisify(write);
const truncateFd = promisify(ftruncate);

/**
 * Takes the directory's lock, or rejects with DataDirInUseError naming the process that holds it.
 * `port` is read once the lock is taken: the port this process listens on, if it does.
 */
export async function lockDataDir(dir: string, port: () => number | undefined = () => undefined): Promise<DataDirLock> {
  const file = path.join(dir, DATA_DIR_LOCK_FILE);
  // O_NOFOLLOW: the lock is this directory's own file, never a link placed there.
  const fd = await openFd(file, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  try {
    if (!(await flockExclusive(fd))) throw new DataDirInUseError(dir, await readHolder(fd));
    await writeHolder(fd, { pid: process.pid, host: hostname(), port: port(), since: new Date().toISOString() });
  } catch (err) {
    await closeFd(fd);
    throw err;
  }
  let released: Promise<void> | undefined;
  return { file, release: () => (released ??= closeFd(fd)) };
}

/** flock(LOCK_EX | LOCK_NB) on `fd`, through flock(1): true when taken, false when another holds it. */
function flockExclusive(fd: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const child = spawn("flock", ["-x", "-n", "3"], {
      stdio: ["ignore", "ignore", "pipe", fd],
      timeout: DATA_DIR_LOCK_TIMEOUT_MS,
      killSignal: "SIGKILL",
    });
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("error", (err: NodeJS.ErrnoException) => {
      if (err.code !== "ENOENT") return reject(err);
      reject(Object.assign(new Error("flock(1) is not installed (util-linux or BusyBox provides it)", { cause: err }), { code: "ENOENT", syscall: "spawn flock" }));
    });
    child.once("close", (code, signal) => {
      // flock -n exits 1 when another descriptor holds the lock, and with a sysexits code (64
      // and up) when it could not try.
      if (code === 0) resolve(true);
      else if (code === 1) resolve(false);
      else if (signal) reject(Object.assign(new Error(`flock(1) did not answer within ${DATA_DIR_LOCK_TIMEOUT_MS} ms`), { code: "ETIMEDOUT", syscall: "flock" }));
      else reject(new Error(`flock(1) failed (exit ${code}): ${stderr.trim().slice(0, 300)}`));
    });
  });
}

/** The holder's own words; undefined while it has not written them yet (or wrote something else). */
async function readHolder(fd: number): Promise<DataDirHolder | undefined> {
  const buf = Buffer.alloc(1024);
  const { bytesRead } = await readFd(fd, buf, 0, buf.length, 0);
  let parsed: unknown;
  try {
    parsed = JSON.parse(buf.subarray(0, bytesRead).toString("utf8"));
  } catch {
    return undefined;
  }
  const holder = HolderSchema.safeParse(parsed);
  return holder.success ? { ...holder.data, sameHost: holder.data.host === hostname() } : undefined;
}

/** This process as the holder, over the previous holder's words (written whole, then cut to length). */
async function writeHolder(fd: number, holder: z.infer<typeof HolderSchema>): Promise<void> {
  const text = Buffer.from(`${JSON.stringify(holder)}\n`);
  await writeFd(fd, text, 0, text.length, 0);
  await truncateFd(fd, text.length);
}
