/**
 * The command sandbox (bubblewrap): no network (a port listening on loopback outside cannot be
 * reached), nothing outside the workspace is writable, the timeout kills the command with its
 * children, an abort (the run's cancel) kills it within a second, the memory limit holds, the
 * result keeps the output's head and tail within COMMAND_OUTPUT_MAX_BYTES. Skipped, with a
 * notice, where bubblewrap cannot start (the tools then refuse: last test).
 */
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FileHandle } from "node:fs/promises";
import { openTrustedDir } from "../../server/workspace/beneath.ts";
import { COMMAND_OUTPUT_MAX_BYTES, Sandbox, type ExecResult } from "../../server/workspace/sandbox.ts";

const sandbox = new Sandbox({ mode: "bwrap", limits: { memoryMb: 128, maxProcesses: 64, maxFileMb: 16, cpus: 1 } });
let dir: string;
let handle: FileHandle;
let status: Awaited<ReturnType<Sandbox["probe"]>>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "sandbox-"));
  const user = sandbox.user;
  if (user) chownSync(dir, user.uid, user.gid);
  handle = await openTrustedDir(dir);
  status = await sandbox.probe(dir);
  if (!status.ok) console.warn(`[sandbox] SKIPPED: ${status.reason}`);
});
afterAll(async () => {
  await handle.close();
  rmSync(dir, { recursive: true, force: true });
});

async function sh(command: string, timeoutMs = 10_000, signal?: AbortSignal): Promise<ExecResult> {
  const r = await sandbox.exec({ dir: handle, argv: ["/bin/bash", "-c", command], timeoutMs, signal });
  if ("error" in r) throw new Error(r.error);
  return r;
}

function pidsOf(pattern: string): string[] {
  try {
    return execFileSync("pgrep", ["-f", pattern], { encoding: "utf8" }).trim().split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

describe.skipIf(!existsSync("/usr/bin/bwrap"))("bubblewrap sandbox", () => {
  it("runs in the workspace, as an unprivileged user when the server is root", async () => {
    if (!status.ok) return;
    const r = await sh("pwd; id -u; echo hi > made.txt");
    expect(r.exitCode).toBe(0);
    expect(r.output).toContain("/workspace\n");
    if (process.getuid?.() === 0) expect(r.output).toContain("65534");
    expect(readFileSync(join(dir, "made.txt"), "utf8")).toBe("hi\n");
  });

  it("cannot connect to a port listening on loopback outside the sandbox", async () => {
    if (!status.ok) return;
    let connections = 0;
    const server: Server = createServer((s) => {
      connections++;
      s.end("hello");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    // Reachable from here (the check is not vacuous)…
    const probe = await fetch(`http://127.0.0.1:${port}`).catch(() => null);
    void probe;
    const before = connections;
    expect(before).toBeGreaterThan(0);
    // …not from inside.
    const r = await sh(`exec 3<>/dev/tcp/127.0.0.1/${port} && echo CONNECTED || echo REFUSED`);
    server.close();
    expect(r.output).not.toContain("CONNECTED");
    expect(connections).toBe(before);
  });

  it("cannot write outside the workspace (the system is read-only, /tmp and / are the sandbox's own)", async () => {
    if (!status.ok) return;
    const victim = join(tmpdir(), `sandbox-victim-${process.pid}`);
    const r = await sh(`for p in /usr/x /etc/x /tmp/../usr/y /usr/local/z; do (echo no > "$p") 2>/dev/null && echo "WROTE $p"; done; echo no > ${victim}; echo no > /workspace/../escaped; echo done`);
    expect(r.output).toContain("done");
    expect(r.output).not.toContain("WROTE");
    // What it could write (its private /tmp and root) is not the host's.
    expect(existsSync(victim)).toBe(false);
    expect(existsSync(join(dir, "..", "escaped"))).toBe(false);
    expect(existsSync("/escaped")).toBe(false);
  });

  it("kills the command and its children at its timeout", async () => {
    if (!status.ok) return;
    const tag = `sbx-timeout-${process.pid}`;
    const started = performance.now();
    const r = await sh(`(sleep 300; echo ${tag}) & sleep 301 & echo started; wait`, 1_000);
    expect(r.timedOut).toBe(true);
    expect(r.output).toContain("started");
    expect(performance.now() - started).toBeLessThan(5_000);
    // Killed, but the kernel tears the sandbox's process tree down after the command returns:
    // the processes are gone within a moment, not necessarily at once. The pattern matches the
    // sleep processes themselves, not a shell or bwrap whose command line names them.
    await expect.poll(() => pidsOf("^sleep 30[01]$"), { timeout: 5_000 }).toEqual([]);
  });

  it("is killed within a second of an abort (cancel), children included", async () => {
    if (!status.ok) return;
    const ac = new AbortController();
    const running = sh("sleep 302 & sleep 303; echo never", 60_000, ac.signal);
    await new Promise((r) => setTimeout(r, 300));
    const at = performance.now();
    ac.abort();
    const r = await running;
    expect(performance.now() - at).toBeLessThan(1_000);
    expect(r.aborted).toBe(true);
    expect(r.output).not.toContain("never");
    await expect.poll(() => pidsOf("^sleep 30[23]$"), { timeout: 5_000 }).toEqual([]);
  });

  it("background jobs do not outlive a command that exits", async () => {
    if (!status.ok) return;
    const r = await sh("sleep 304 & echo bye");
    expect(r.exitCode).toBe(0);
    await expect.poll(() => pidsOf("^sleep 304$"), { timeout: 5_000 }).toEqual([]);
  });

  it("enforces the memory limit", async () => {
    if (!status.ok) return;
    const r = await sandbox.exec({ dir: handle, argv: ["/usr/bin/python3", "-c", "x = bytearray(512 * 1024 * 1024); print('ALLOCATED')"], timeoutMs: 10_000 });
    if ("error" in r) throw new Error(r.error);
    expect(r.output).not.toContain("ALLOCATED");
    expect(r.output).toMatch(/MemoryError/);
    expect(r.exitCode).not.toBe(0);
  });

  it("keeps the head and the tail of long output, within COMMAND_OUTPUT_MAX_BYTES, and says how much it left out", async () => {
    if (!status.ok) return;
    const r = await sh("echo FIRST; head -c 300000 /dev/zero | tr '\\0' x; echo; echo LAST");
    expect(r.omittedBytes).toBeGreaterThan(0);
    expect(r.output.startsWith("FIRST")).toBe(true);
    expect(r.output.trimEnd().endsWith("LAST")).toBe(true);
    expect(r.output).toMatch(/bytes of output omitted/);
    expect(Buffer.byteLength(r.output)).toBeLessThan(COMMAND_OUTPUT_MAX_BYTES + 300);
  });

  it("a sandbox that cannot start refuses to run, and says why", async () => {
    const broken = new Sandbox({ mode: "bwrap", bwrapPath: "/nonexistent/bwrap" });
    const r = await broken.exec({ dir: handle, argv: ["/bin/true"], timeoutMs: 1000 });
    expect(r).toEqual({ error: expect.stringMatching(/Commands cannot run on this server: bubblewrap is not installed.*Nothing was executed/) });
    writeFileSync(join(dir, "unused"), "");
  });
});

/**
 * One command, one budget: the limits hold for the command's whole process tree (its cgroup),
 * not per process, and two commands do not share them. Skipped, with a notice, where no cgroup
 * can be made (the budget is then per process, as the probe reports).
 */
describe.skipIf(!existsSync("/usr/bin/bwrap"))("one command, one budget", () => {
  const budget = { memoryMb: 128, maxProcesses: 16, maxFileMb: 16, cpus: 1 };
  const small = new Sandbox({ mode: "bwrap", limits: budget });
  let scoped = false;

  beforeAll(async () => {
    const s = await small.probe(dir);
    scoped = s.ok && s.budget.scope === "cgroup";
    if (s.ok && s.budget.scope === "process") console.warn(`[sandbox budget] SKIPPED: ${s.budget.reason}`);
  });

  async function run(argv: string[], timeoutMs = 20_000): Promise<ExecResult> {
    const r = await small.exec({ dir: handle, argv, timeoutMs });
    if ("error" in r) throw new Error(r.error);
    return r;
  }

  // Each process stays under RLIMIT_DATA (the per-process bound); together they pass the tree's.
  const hold = (mb: number) => `python3 -c "x = b'x' * (${mb} * 1024 * 1024); import time; time.sleep(1); print('alive')"`;

  it("memory: four processes of 60 MB each pass a 128 MB budget together, and the kernel kills them", async () => {
    if (!scoped) return;
    const r = await run(["/bin/sh", "-c", `for i in 1 2 3 4; do ${hold(60)} & done; wait`]);
    expect(r.outOfMemory).toBe(true);
    expect(r.output.match(/alive/g)?.length ?? 0).toBeLessThan(4);
  });

  it("memory: one process of 60 MB is within the budget", async () => {
    if (!scoped) return;
    const r = await run(["/bin/sh", "-c", hold(60)]);
    expect(r.outOfMemory).toBeUndefined();
    expect(r.output).toContain("alive");
  });

  const forkAll = [
    "/usr/bin/python3",
    "-c",
    "import os, time\nn = 0\nfor i in range(64):\n  try:\n    pid = os.fork()\n  except OSError:\n    break\n  if pid == 0:\n    time.sleep(2)\n    os._exit(0)\n  n += 1\nprint('forked', n)",
  ];
  const forked = (r: ExecResult) => Number(/forked (\d+)/.exec(r.output)?.[1]);

  it("processes: a fork loop stops below the budget, and two commands at once each get the whole of theirs", async () => {
    if (!scoped) return;
    const [a, b] = await Promise.all([run(forkAll), run(forkAll)]);
    expect(forked(a)).toBeLessThan(budget.maxProcesses);
    // bwrap, its init and python itself count too; the rest is each command's own.
    expect(forked(a)).toBeGreaterThanOrEqual(budget.maxProcesses - 4);
    expect(forked(b)).toBe(forked(a));
  });

  it("CPU: two busy processes together get at most the budget's one core", async () => {
    if (!scoped) return;
    // Each child spins until it has used 0.75 s of CPU, and the command reports the wall time
    // both took: at one core that is at least 1.5 s, where unbounded they could finish together
    // in 0.75 s. Rejected: spinning for 1.5 s of wall time and asking for a least CPU time, which
    // a loaded machine did not give (0.4 s): the ratio asked here only falls under load.
    const spin =
      "import os, time\nstart = time.time()\nfor i in range(2):\n  if os.fork() == 0:\n    while time.process_time() < 0.75: pass\n    os._exit(0)\nos.wait(); os.wait()\nt = os.times()\nprint('cpu', t.children_user + t.children_system, 'wall', time.time() - start)";
    const r = await run(["/usr/bin/python3", "-c", spin]);
    const [, cpu, wall] = (/cpu ([\d.]+) wall ([\d.]+)/.exec(r.output) ?? []).map(Number);
    expect(cpu, r.output).toBeGreaterThan(1.4); // both spun (os.times counts in hundredths)
    expect(cpu! / wall!, r.output).toBeLessThanOrEqual(budget.cpus * 1.2);
  });
});

describe.skipIf(!existsSync("/usr/bin/bwrap"))("without a cgroup", () => {
  it("each command has its own user namespace, so RLIMIT_NPROC counts its own processes: two fork loops each reach the limit", async () => {
    const limits = { memoryMb: 128, maxProcesses: 16, maxFileMb: 16, cpus: 1 };
    const plain = new Sandbox({ mode: "bwrap", limits, cgroups: false });
    const s = await plain.probe(dir);
    if (!s.ok) return;
    expect(s.budget).toEqual({ scope: "process", reason: expect.stringMatching(/turned off/) });
    const fork = [
      "/usr/bin/python3",
      "-c",
      "import os, time\nn = 0\nfor i in range(64):\n  try:\n    pid = os.fork()\n  except OSError:\n    break\n  if pid == 0:\n    time.sleep(2)\n    os._exit(0)\n  n += 1\nprint('forked', n)",
    ];
    const [a, b] = await Promise.all([plain.exec({ dir: handle, argv: fork, timeoutMs: 20_000 }), plain.exec({ dir: handle, argv: fork, timeoutMs: 20_000 })]);
    if ("error" in a || "error" in b) throw new Error("the sandbox did not start");
    const forked = (r: ExecResult) => Number(/forked (\d+)/.exec(r.output)?.[1]);
    expect(forked(a)).toBeLessThan(limits.maxProcesses);
    expect(forked(a)).toBeGreaterThanOrEqual(limits.maxProcesses - 4);
    expect(forked(b)).toBe(forked(a));
  });
});
