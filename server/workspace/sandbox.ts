/**
 * Commands run under bubblewrap: no network (all namespaces unshared), the system read-only
 * (/usr, /etc and the host's /bin, /lib… links), /tmp a small private tmpfs, the workspace the
 * only writable place (mounted at /workspace), a clean environment, a new session, and
 * prlimit's CPU-time, memory (RLIMIT_DATA), process-count, file-size and no-core limits on the
 * command. When the server runs as root the sandbox runs as an unprivileged uid (SANDBOX_UID,
 * default 65534), since the kernel does not count processes against root's limit.
 *
 * The command's process tree is killed (SIGKILL to bwrap's process group; bwrap's own PID
 * namespace takes every descendant with it) at its timeout, on abort, and whenever the
 * command itself ends: a background job cannot outlive its call.
 *
 * If bubblewrap cannot start, commands do not run: `probe()` says why (logged at startup) and
 * every call returns that reason. Only UNSAFE_RUN_COMMANDS_WITHOUT_SANDBOX=true runs them on
 * the host, in the workspace directory, with the same rlimits and timeouts and nothing else.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, lstatSync, readlinkSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import { openTrustedDir } from "./beneath.ts";
import { type CommandCgroup, CommandCgroups } from "./command-cgroup.ts";

/** Output kept in a command's result: the first HEAD and the last rest of it, the middle cut. */
export const COMMAND_OUTPUT_MAX_BYTES = 64 * 1024;
const COMMAND_OUTPUT_HEAD_BYTES = 16 * 1024;
/** The sandbox's /tmp (a tmpfs, counted in memory). */
export const SANDBOX_TMP_BYTES = 64 * 1024 * 1024;
/** Where the workspace is mounted inside the sandbox. */
export const SANDBOX_WORKDIR = "/workspace";
/** The descriptor the workspace reaches bwrap on (stdin, stdout, stderr, then this). */
const WORKSPACE_FD = 3;

export interface SandboxLimits {
  /**
   * Memory of the command's whole process tree (its cgroup), and RLIMIT_DATA of each process
   * (the only bound where no cgroup can be made).
   */
  memoryMb: number;
  /** Processes of the command's tree (its cgroup's pids.max), and RLIMIT_NPROC. */
  maxProcesses: number;
  /** RLIMIT_FSIZE: largest file a command may write. */
  maxFileMb: number;
  /** CPU cores the command's tree may use at once (its cgroup's CFS quota). */
  cpus: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { memoryMb: 512, maxProcesses: 64, maxFileMb: 256, cpus: 1 };

export interface SandboxOptions {
  /** "bwrap" (default) or "unsafe-host": the operator's UNSAFE_RUN_COMMANDS_WITHOUT_SANDBOX. */
  mode: "bwrap" | "unsafe-host";
  bwrapPath?: string;
  limits?: SandboxLimits;
  /** uid/gid the sandbox runs as when the server is root. */
  user?: { uid: number; gid: number };
  /** More host paths mounted read-only at the same place (e.g. a toolchain under /opt). */
  readOnlyPaths?: string[];
  /** false: never make a cgroup per command (the budget is then per process, see command-cgroup.ts). */
  cgroups?: boolean;
}

export interface ExecRequest {
  /**
   * The workspace, as an open directory the caller holds until exec resolves: bubblewrap mounts
   * that descriptor (--bind-fd), so a path swapped after it was opened changes nothing.
   */
  dir: FileHandle;
  /** Mount the workspace read-only (search commands). */
  readOnly?: boolean;
  argv: string[];
  /** Text for the command's stdin, or an open file to read it from (grep of one file). */
  stdin?: string | FileHandle;
  timeoutMs: number;
  signal?: AbortSignal;
  onOutput?: (stream: "stdout" | "stderr", data: string) => void;
}

export interface ExecResult {
  exitCode: number | null;
  /** the signal that ended it, e.g. "SIGKILL" (timeout, cancel) or "SIGXCPU" (CPU time) */
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  /** stdout and stderr interleaved as produced, cut as COMMAND_OUTPUT_MAX_BYTES says */
  output: string;
  /** bytes of output left out of `output` (0: all of it is there) */
  omittedBytes: number;
  durationMs: number;
  /** The kernel killed one of its processes: the tree passed its memory budget. */
  outOfMemory?: true;
}

/** How commands are bounded: per command tree (a cgroup each), or per process only (rlimits). */
export type BudgetScope = { scope: "cgroup"; version: 1 | 2 } | { scope: "process"; reason: string };

export type SandboxStatus = { ok: true; mode: SandboxOptions["mode"]; budget: BudgetScope } | { ok: false; reason: string };

/** Keeps the head and the tail of a byte stream, within a budget. */
class OutputKeeper {
  #head: Buffer[] = [];
  #headBytes = 0;
  #tail: Buffer[] = [];
  #tailBytes = 0;
  #omitted = 0;
  readonly #tailMax = COMMAND_OUTPUT_MAX_BYTES - COMMAND_OUTPUT_HEAD_BYTES;

  push(chunk: Buffer): void {
    if (this.#headBytes < COMMAND_OUTPUT_HEAD_BYTES) {
      const take = Math.min(chunk.length, COMMAND_OUTPUT_HEAD_BYTES - this.#headBytes);
      this.#head.push(chunk.subarray(0, take));
      this.#headBytes += take;
      chunk = chunk.subarray(take);
    }
    if (chunk.length === 0) return;
    this.#tail.push(chunk);
    this.#tailBytes += chunk.length;
    while (this.#tailBytes > this.#tailMax) {
      const first = this.#tail[0]!;
      const excess = this.#tailBytes - this.#tailMax;
      if (first.length <= excess) {
        this.#tail.shift();
        this.#tailBytes -= first.length;
        this.#omitted += first.length;
      } else {
        this.#tail[0] = first.subarray(excess);
        this.#tailBytes -= excess;
        this.#omitted += excess;
      }
    }
  }

  result(): { output: string; omittedBytes: number } {
    const head = Buffer.concat(this.#head).toString("utf8");
    const tail = Buffer.concat(this.#tail).toString("utf8");
    if (this.#omitted === 0) return { output: head + tail, omittedBytes: 0 };
    return {
      output: `${head}\n[… ${this.#omitted} bytes of output omitted: the result keeps the first ${COMMAND_OUTPUT_HEAD_BYTES} and the last ${this.#tailMax} bytes …]\n${tail}`,
      omittedBytes: this.#omitted,
    };
  }
}

export class Sandbox {
  readonly limits: SandboxLimits;
  #status: Promise<SandboxStatus> | undefined;
  #cgroups: CommandCgroups | undefined;

  constructor(readonly opts: SandboxOptions) {
    this.limits = opts.limits ?? DEFAULT_SANDBOX_LIMITS;
  }

  /** The uid/gid commands run as, when they differ from the server's (the server is root). */
  get user(): { uid: number; gid: number } | undefined {
    if (this.opts.mode !== "bwrap" || process.getuid?.() !== 0) return undefined;
    return this.opts.user ?? { uid: 65534, gid: 65534 };
  }

  /**
   * Starts a trivial sandbox once, in `dir` (a directory path or an open one), and finds out how
   * commands are budgeted; the answer is kept (tools report it, the server logs it).
   */
  async probe(dir: string | FileHandle): Promise<SandboxStatus> {
    this.#status ??= this.#probeOnce(dir);
    return this.#status;
  }

  async #probeOnce(dir: string | FileHandle): Promise<SandboxStatus> {
    const groups = this.opts.cgroups === false ? { unavailable: "cgroups per command are turned off" } : await CommandCgroups.detect();
    const budget: BudgetScope = "unavailable" in groups ? { scope: "process", reason: groups.unavailable } : { scope: "cgroup", version: groups.version };
    if (!("unavailable" in groups)) this.#cgroups = groups;
    if (this.opts.mode === "unsafe-host") return { ok: true, mode: "unsafe-host", budget };
    const bwrap = this.opts.bwrapPath ?? "/usr/bin/bwrap";
    if (!existsSync(bwrap)) {
      return { ok: false, reason: `bubblewrap is not installed (${bwrap} is missing; Debian/Ubuntu: apt-get install bubblewrap)` };
    }
    const handle = typeof dir === "string" ? await openTrustedDir(dir) : dir;
    const r = await this.#spawn({ dir: handle, argv: ["/bin/sh", "-c", "echo sandbox-ok"], timeoutMs: 10_000 }, true)
      .catch((err: Error) => ({ error: err.message }))
      .finally(() => (typeof dir === "string" ? handle.close() : undefined));
    if ("error" in r) return { ok: false, reason: `bubblewrap could not start: ${r.error}` };
    if (r.exitCode !== 0 || !r.output.includes("sandbox-ok")) {
      const hint = /Permission denied/.test(r.output) && this.user ? ` (the workspace root and its parents must be searchable by the sandbox's uid ${this.user.uid})` : "";
      return { ok: false, reason: `bubblewrap could not start a sandbox (exit ${r.exitCode}${r.signal ? `, ${r.signal}` : ""}): ${r.output.trim().slice(0, 500)}${hint}` };
    }
    return { ok: true, mode: "bwrap", budget };
  }

  /** Runs `argv` in the sandbox; resolves when it ended (never rejects for the command's sake). */
  async exec(req: ExecRequest): Promise<ExecResult | { error: string }> {
    const status = await this.probe(req.dir);
    if (!status.ok) return { error: `Commands cannot run on this server: ${status.reason}. Nothing was executed.` };
    return this.#spawn(req, false).catch((err: Error) => ({ error: `The command could not start: ${err.message}` }));
  }

  #prlimit(timeoutMs: number): string[] {
    const l = this.limits;
    const cpu = Math.max(1, Math.ceil(timeoutMs / 1000));
    return [
      "/usr/bin/prlimit",
      `--data=${l.memoryMb * 1024 * 1024}`,
      `--cpu=${cpu}`,
      `--nproc=${l.maxProcesses}`,
      `--fsize=${l.maxFileMb * 1024 * 1024}`,
      "--core=0",
      "--",
    ];
  }

  #bwrapArgs(req: ExecRequest): string[] {
    const args = ["--unshare-all", "--die-with-parent", "--new-session", "--hostname", "sandbox", "--ro-bind", "/usr", "/usr"];
    for (const top of ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]) {
      if (!existsSync(top)) continue;
      const st = lstatSync(top);
      if (st.isSymbolicLink()) args.push("--symlink", readlinkSync(top), top);
      else args.push("--ro-bind", top, top);
    }
    args.push("--ro-bind", "/etc", "/etc");
    for (const extra of this.opts.readOnlyPaths ?? []) if (existsSync(extra)) args.push("--ro-bind", extra, extra);
    args.push("--proc", "/proc", "--dev", "/dev", "--size", String(SANDBOX_TMP_BYTES), "--tmpfs", "/tmp");
    // The workspace is the descriptor passed as fd 3 (bwrap closes it once mounted, so the
    // command cannot climb out of it with openat(3, "..")).
    args.push(req.readOnly ? "--ro-bind-fd" : "--bind-fd", String(WORKSPACE_FD), SANDBOX_WORKDIR, "--chdir", SANDBOX_WORKDIR);
    args.push("--clearenv", "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "HOME", SANDBOX_WORKDIR);
    args.push("--setenv", "TMPDIR", "/tmp", "--setenv", "LANG", "C.UTF-8", "--setenv", "PYTHONDONTWRITEBYTECODE", "1");
    return args;
  }

  /**
   * What to run: bwrap around prlimit around the command, or (unsafe-host) prlimit alone in the
   * workspace. With a cgroup, a root shell first moves itself into the command's group and then
   * becomes the sandbox's user (setpriv): every process the command starts is born inside its
   * budget. Rejected: moving the child in after spawn, which a fast fork would escape.
   */
  #command(req: ExecRequest, group: CommandCgroup | undefined): { file: string; args: string[]; cwd: string; env: NodeJS.ProcessEnv; spawnAs?: { uid: number; gid: number } } {
    let file: string;
    let args: string[];
    let cwd = "/";
    let env: NodeJS.ProcessEnv = {};
    if (this.opts.mode === "unsafe-host") {
      // The child changes into the workspace through the server's own descriptor table.
      cwd = `/proc/${process.pid}/fd/${req.dir.fd}`;
      env = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: cwd, LANG: "C.UTF-8" };
      [file, ...args] = [...this.#prlimit(req.timeoutMs), ...req.argv] as [string, ...string[]];
    } else {
      // bwrap sets the command's environment itself (--clearenv, --setenv): bwrap gets none.
      file = this.opts.bwrapPath ?? "/usr/bin/bwrap";
      args = [...this.#bwrapArgs(req), ...this.#prlimit(req.timeoutMs), ...req.argv];
    }
    const user = this.user;
    if (!group) return { file, args, cwd, env, ...(user && { spawnAs: user }) };
    if (user) {
      args = [`--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups", "--", file, ...args];
      file = "/usr/bin/setpriv";
    }
    const join = 'for f; do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; shift; done; shift; exec "$@"';
    return { file: "/bin/sh", args: ["-c", join, "sh", ...group.procsFiles, "--", file, ...args], cwd, env };
  }

  async #spawn(req: ExecRequest, probing: boolean): Promise<ExecResult> {
    const started = performance.now();
    const group = this.#cgroups && !probing ? await this.#cgroups.create(this.#budget()) : undefined;
    try {
      const result = await this.#run(req, probing, group, started);
      if (group && (await group.oomKilled())) result.outOfMemory = true;
      return result;
    } finally {
      try {
        await group?.close();
      } catch {
        // Best effort: a group left behind is empty (its processes were killed) and holds nothing.
      }
    }
  }

  #budget() {
    return { memoryBytes: this.limits.memoryMb * 1024 * 1024, maxProcesses: this.limits.maxProcesses, cpus: this.limits.cpus };
  }

  #run(req: ExecRequest, probing: boolean, group: CommandCgroup | undefined, started: number): Promise<ExecResult> {
    const command = this.#command(req, group);
    const stdinFd = typeof req.stdin === "object" ? req.stdin.fd : undefined;
    return new Promise((resolve, reject) => {
      const child = spawn(command.file, command.args, {
        cwd: command.cwd,
        detached: true,
        stdio: [stdinFd ?? "pipe", "pipe", "pipe", req.dir.fd],
        env: command.env,
        ...(command.spawnAs && { uid: command.spawnAs.uid, gid: command.spawnAs.gid }),
      });
      const output = new CommandOutput(probing ? undefined : req.onOutput);
      const guard = guardChild(child, req);
      child.stdout!.on("data", (chunk: Buffer) => output.push("stdout", chunk));
      child.stderr!.on("data", (chunk: Buffer) => output.push("stderr", chunk));
      if (child.stdin) {
        child.stdin.on("error", () => {});
        child.stdin.end(typeof req.stdin === "string" ? req.stdin : "");
      }
      let ended = false;
      child.once("error", (err) => {
        guard.disarm();
        if (!ended) reject(err);
        ended = true;
      });
      child.once("close", (code, signal) => {
        guard.disarm();
        // Whatever the command left running in the background goes with it.
        guard.killTree();
        if (ended) return;
        ended = true;
        const { output: text, omittedBytes } = output.end();
        resolve({ exitCode: code, signal, timedOut: guard.timedOut, aborted: guard.aborted, output: text, omittedBytes, durationMs: Math.round(performance.now() - started) });
      });
    });
  }
}

/**
 * Kills the child's whole process group (it was spawned detached: its own group) at the request's
 * timeout or when its signal aborts, and remembers which of the two it was for the result.
 * disarm() once the child is gone: a pending timer would keep the process alive for the whole
 * timeout, and the listener would keep the child's closure reachable from a long-lived signal.
 */
function guardChild(child: ChildProcess, req: ExecRequest) {
  const killTree = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  };
  const guard = {
    timedOut: false,
    aborted: false,
    killTree,
    disarm: () => {
      clearTimeout(timer);
      req.signal?.removeEventListener("abort", onAbort);
    },
  };
  const timer = setTimeout(() => {
    guard.timedOut = true;
    killTree();
  }, req.timeoutMs);
  const onAbort = () => {
    guard.aborted = true;
    killTree();
  };
  if (req.signal?.aborted) onAbort();
  else req.signal?.addEventListener("abort", onAbort, { once: true });
  return guard;
}

/**
 * A command's output: every byte goes to the kept head and tail (OutputKeeper), and, when the
 * caller listens, each stream's text as it comes. One decoder per stream, so that a character
 * split across chunks reaches the listener whole.
 */
class CommandOutput {
  readonly #keeper = new OutputKeeper();
  readonly #decoders = { stdout: new StringDecoder("utf8"), stderr: new StringDecoder("utf8") };

  constructor(private readonly onOutput: ExecRequest["onOutput"]) {}

  push(stream: "stdout" | "stderr", chunk: Buffer): void {
    this.#keeper.push(chunk);
    if (!this.onOutput) return;
    const text = this.#decoders[stream].write(chunk);
    if (text) this.onOutput(stream, text);
  }

  /** The bytes a decoder still held go to the listener; returns what the result keeps. */
  end(): { output: string; omittedBytes: number } {
    if (this.onOutput) {
      for (const stream of ["stdout", "stderr"] as const) {
        const rest = this.#decoders[stream].end();
        if (rest) this.onOutput(stream, rest);
      }
    }
    return this.#keeper.result();
  }
}
