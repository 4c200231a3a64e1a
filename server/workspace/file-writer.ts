/**
 * Writes a file into a workspace as the sandbox's user, never as the server's: a short-lived
 * child process (this same Node binary) runs as that uid and gets the parent directory as an
 * open descriptor (fd 3). It creates the missing directories one at a time (mkdir, then open
 * with O_NOFOLLOW), writes a new temporary file (O_CREAT|O_EXCL|O_NOFOLLOW) and renames it over
 * the name, every step relative to a descriptor: no path is resolved twice, a link put in the way
 * makes the write fail rather than land elsewhere, and what it creates belongs to the user whose
 * commands work there. Where the server is not root, the child runs as the server's own user.
 *
 * Rejected: writing from the server and chown-ing afterwards (root writes into a directory a
 * command controls, and the file is root's until the chown); doing it inside bubblewrap (30 ms
 * more per write, and the descriptor walk already keeps the write inside the workspace).
 */
import { spawn } from "node:child_process";
import type { Location } from "./beneath.ts";

/** A write that has not finished in this time is killed and fails (a stuck file system, a full disk). */
export const FILE_WRITE_TIMEOUT_MS = 30_000;

// CommonJS for `node -e`; argv[1] is the request. Kept to what the job needs: no imports.
const CHILD = `
const fs = require("fs"); const C = fs.constants;
const req = JSON.parse(process.argv[1]);
const at = (fd, name) => "/proc/self/fd/" + fd + "/" + name;
try {
  let dir = 3;
  for (const name of req.missing) {
    try { fs.mkdirSync(at(dir, name), 0o755); } catch (e) { if (e.code !== "EEXIST") throw e; }
    dir = fs.openSync(at(dir, name), C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW);
  }
  const tmp = ".threadline-" + process.pid + "-" + Date.now() + ".tmp";
  const fd = fs.openSync(at(dir, tmp), C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, req.mode);
  try {
    const data = fs.readFileSync(0);
    for (let off = 0; off < data.length; ) off += fs.writeSync(fd, data, off);
    fs.fchmodSync(fd, req.mode);
    fs.fsyncSync(fd);
  } catch (e) { fs.closeSync(fd); fs.rmSync(at(dir, tmp), { force: true }); throw e; }
  fs.closeSync(fd);
  try { fs.renameSync(at(dir, tmp), at(dir, req.name)); } catch (e) { fs.rmSync(at(dir, tmp), { force: true }); throw e; }
  process.stdout.write(JSON.stringify({ ok: true }));
} catch (e) {
  process.stdout.write(JSON.stringify({ ok: false, code: e.code || null, message: String(e.message) }));
}`;

export class FileWriteError extends Error {
  override readonly name = "FileWriteError";
  constructor(
    message: string,
    readonly code: string | null,
  ) {
    super(message);
  }
}

/**
 * Replaces (or creates) `loc.name` in `loc.dir` with `content`, creating `loc.missing` first,
 * as `owner` (or the server's own user). Throws FileWriteError with the system's reason.
 */
export function writeFileAt(loc: Location, content: string, opts: { mode?: number; owner?: { uid: number; gid: number } }): Promise<void> {
  const request = JSON.stringify({ missing: loc.missing, name: loc.name, mode: opts.mode ?? 0o644 });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", CHILD, request], {
      stdio: ["pipe", "pipe", "pipe", loc.dir.fd],
      env: {},
      ...(opts.owner && { uid: opts.owner.uid, gid: opts.owner.gid }),
    });
    const out: Buffer[] = [];
    child.stdout!.on("data", (c: Buffer) => out.push(c));
    child.stderr!.on("data", (c: Buffer) => out.push(c));
    child.stdin!.on("error", () => {}); // a child that died early: its exit says why
    child.stdin!.end(content);
    const timer = setTimeout(() => child.kill("SIGKILL"), FILE_WRITE_TIMEOUT_MS);
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(new FileWriteError(`the file could not be written: ${err.message}`, null));
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      const text = Buffer.concat(out).toString("utf8");
      let answer: { ok: boolean; code?: string | null; message?: string } | undefined;
      try {
        answer = JSON.parse(text) as typeof answer;
      } catch {
        answer = undefined;
      }
      if (answer?.ok) return resolve();
      if (signal === "SIGKILL") return reject(new FileWriteError(`the write did not finish within ${FILE_WRITE_TIMEOUT_MS / 1000} s`, null));
      const why = answer?.message ?? `the writer exited ${code}: ${text.slice(0, 300)}`;
      reject(new FileWriteError(why, answer?.code ?? null));
    });
  });
}
