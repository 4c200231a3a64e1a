/**
 * One command, one budget: each sandboxed command runs in a cgroup of its own, so its memory,
 * process count and CPU are bounded for its whole process tree, not per process. Rejected:
 * rlimits alone (RLIMIT_DATA and RLIMIT_NPROC are per process and per uid: four processes of one
 * command held four times the memory limit, and every sandbox's processes counted against one
 * uid's limit, so one thread's fork loop starved the others).
 *
 * Works with cgroup v1 (a `memory` and a `pids` hierarchy, `cpu` when mounted) and with v2 (the
 * unified hierarchy with those controllers available to the server's own cgroup). The groups live
 * under `threadline-sandbox/` in the server's own cgroup; each is removed when its command ends.
 * Where none can be made (no cgroup file system, no permission), `detect` says why; the sandbox
 * then keeps the per-process rlimits and logs that the budget is per process. The process count
 * stays per command even then: bubblewrap gives each command a user namespace of its own, and
 * Linux counts RLIMIT_NPROC per user namespace.
 */
import { randomUUID } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";

export interface CommandBudget {
  /** Memory of all the command's processes together (and its private /tmp, a tmpfs). */
  memoryBytes: number;
  /** Processes and threads alive at once in the command's tree. */
  maxProcesses: number;
  /** CPU time per wall-clock second, in cores (CFS quota): with the timeout, the CPU bound. */
  cpus: number;
}

/** The CFS period the CPU quota is a share of (the kernel's default). */
const CPU_PERIOD_US = 100_000;
/** How long removing an emptied group is retried: its last processes are still being reaped. */
const REMOVE_ATTEMPTS = 40;
const REMOVE_PAUSE_MS = 25;
/** The parent of every command's group, inside the server's own cgroup. */
const PARENT_NAME = "threadline-sandbox";

/** One command's group: where its first process writes its pid, and what the kernel counted. */
export interface CommandCgroup {
  /** `cgroup.procs` files the command's first process joins, before it runs anything. */
  procsFiles: string[];
  /** Whether the kernel killed a process of the group for passing the memory limit. */
  oomKilled(): Promise<boolean>;
  /** Kills what is left in the group and removes it. */
  close(): Promise<void>;
}

type Layout = { version: 1; memory: string; pids: string; cpu?: string } | { version: 2; dir: string };

async function writeFile(file: string, value: string): Promise<void> {
  await fs.writeFile(file, value);
}

/**
 * Writes a setting the machine may not offer (no swap accounting, the cpu controller not
 * delegated, a parent that keeps its controllers): the limits that were set still hold, and the
 * probe's trial group shows whether the essential ones (memory, pids) can be set at all.
 */
async function writeIfOffered(file: string, value: string): Promise<boolean> {
  try {
    await fs.writeFile(file, value);
    return true;
  } catch {
    return false;
  }
}

async function readCount(file: string, key: string): Promise<number> {
  const text = await fs.readFile(file, "utf8").catch(() => "");
  const line = text.split("\n").find((l) => l.startsWith(`${key} `));
  return line ? Number(line.slice(key.length + 1)) : 0;
}

/** The cgroup mounts of this process's mount namespace: v1 hierarchies by controller, and v2. */
async function mounts(): Promise<{ v1: Map<string, string>; v2?: string }> {
  const v1 = new Map<string, string>();
  let v2: string | undefined;
  const info = await fs.readFile("/proc/self/mountinfo", "utf8");
  for (const line of info.split("\n")) {
    const [pre, post] = line.split(" - ");
    if (!pre || !post) continue;
    const mountPoint = pre.split(" ")[4]!;
    const [fstype, , superOptions = ""] = post.split(" ");
    if (fstype === "cgroup2") v2 ??= mountPoint;
    if (fstype === "cgroup") for (const option of superOptions.split(",")) if (["memory", "pids", "cpu"].includes(option)) v1.set(option, mountPoint);
  }
  return { v1, ...(v2 && { v2 }) };
}

/** This process's cgroup path in each hierarchy ("" key: v2). */
async function ownPaths(): Promise<Map<string, string>> {
  const own = new Map<string, string>();
  for (const line of (await fs.readFile("/proc/self/cgroup", "utf8")).split("\n")) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!m) continue;
    for (const controller of m[1]!.split(",")) own.set(controller, m[2]!);
  }
  return own;
}

async function layout(): Promise<Layout | string> {
  const { v1, v2 } = await mounts();
  const own = await ownPaths();
  const memory = v1.get("memory");
  const pids = v1.get("pids");
  if (memory && pids) {
    const cpu = v1.get("cpu");
    const inOwn = (mount: string, controller: string) => path.join(mount, own.get(controller) ?? "/", PARENT_NAME);
    return { version: 1, memory: inOwn(memory, "memory"), pids: inOwn(pids, "pids"), ...(cpu && { cpu: inOwn(cpu, "cpu") }) };
  }
  if (v2) {
    const base = path.join(v2, own.get("") ?? "/");
    const available = (await fs.readFile(path.join(base, "cgroup.controllers"), "utf8").catch(() => "")).split(/\s+/);
    if (!available.includes("memory") || !available.includes("pids")) {
      return `the server's cgroup (${base}) has no memory and pids controllers to delegate`;
    }
    return { version: 2, dir: path.join(base, PARENT_NAME) };
  }
  return "no cgroup file system with the memory and pids controllers is mounted";
}

export class CommandCgroups {
  private constructor(private readonly layout: Layout) {}

  /** Makes the parent group and one trial group; a reason instead when the machine does not allow it. */
  static async detect(): Promise<CommandCgroups | { unavailable: string }> {
    try {
      const found = await layout();
      if (typeof found === "string") return { unavailable: found };
      const groups = new CommandCgroups(found);
      if (found.version === 2) {
        await fs.mkdir(found.dir, { recursive: true });
        // Controllers must be enabled for the parent's children; this fails where the server's
        // own cgroup keeps them to itself (v2's rule: no processes in an inner node).
        await writeIfOffered(path.join(path.dirname(found.dir), "cgroup.subtree_control"), "+memory +pids");
        await writeFile(path.join(found.dir, "cgroup.subtree_control"), "+memory +pids");
        await writeIfOffered(path.join(found.dir, "cgroup.subtree_control"), "+cpu");
      }
      const trial = await groups.create({ memoryBytes: 64 * 1024 * 1024, maxProcesses: 8, cpus: 1 });
      await trial.close();
      return groups;
    } catch (err) {
      return { unavailable: `a cgroup for each command cannot be made here (${(err as Error).message})` };
    }
  }

  get version(): 1 | 2 {
    return this.layout.version;
  }

  /** A new group with `budget`; the command's first process joins it through `procsFiles`. */
  async create(budget: CommandBudget): Promise<CommandCgroup> {
    const name = `cmd-${randomUUID()}`;
    const l = this.layout;
    const quota = String(Math.max(1_000, Math.round(budget.cpus * CPU_PERIOD_US)));
    if (l.version === 2) {
      const dir = path.join(l.dir, name);
      await fs.mkdir(dir, { recursive: false });
      const made = [dir];
      try {
        await writeFile(path.join(dir, "memory.max"), String(budget.memoryBytes));
        await writeIfOffered(path.join(dir, "memory.swap.max"), "0");
        await writeFile(path.join(dir, "pids.max"), String(budget.maxProcesses));
        await writeIfOffered(path.join(dir, "cpu.max"), `${quota} ${CPU_PERIOD_US}`);
      } catch (err) {
        await removeGroups(made);
        throw err;
      }
      return {
        procsFiles: [path.join(dir, "cgroup.procs")],
        oomKilled: async () => (await readCount(path.join(dir, "memory.events"), "oom_kill")) > 0,
        close: () => emptyAndRemove(made),
      };
    }
    const dirs = { memory: path.join(l.memory, name), pids: path.join(l.pids, name), ...(l.cpu && { cpu: path.join(l.cpu, name) }) };
    const made: string[] = [];
    try {
      for (const dir of Object.values(dirs)) {
        await fs.mkdir(dir, { recursive: true });
        made.push(dir);
      }
      await writeFile(path.join(dirs.memory, "memory.limit_in_bytes"), String(budget.memoryBytes));
      // With swap, the limit above would only bound resident memory (absent without swap accounting).
      await writeIfOffered(path.join(dirs.memory, "memory.memsw.limit_in_bytes"), String(budget.memoryBytes));
      await writeFile(path.join(dirs.pids, "pids.max"), String(budget.maxProcesses));
      if (dirs.cpu) {
        await writeFile(path.join(dirs.cpu, "cpu.cfs_period_us"), String(CPU_PERIOD_US));
        await writeFile(path.join(dirs.cpu, "cpu.cfs_quota_us"), quota);
      }
    } catch (err) {
      await removeGroups(made);
      throw err;
    }
    return {
      procsFiles: made.map((d) => path.join(d, "cgroup.procs")),
      oomKilled: async () => (await readCount(path.join(dirs.memory, "memory.oom_control"), "oom_kill")) > 0,
      close: () => emptyAndRemove(made),
    };
  }
}

/** SIGKILL to whatever is still in the groups, then rmdir each (retried while the kernel reaps). */
async function emptyAndRemove(dirs: string[]): Promise<void> {
  for (const dir of dirs) {
    const procs = await fs.readFile(path.join(dir, "cgroup.procs"), "utf8").catch(() => "");
    for (const pid of procs.split("\n").filter(Boolean)) {
      try {
        process.kill(Number(pid), "SIGKILL");
      } catch {
        // gone between the read and the kill
      }
    }
  }
  await removeGroups(dirs);
}

async function removeGroups(dirs: string[]): Promise<void> {
  for (const dir of dirs) {
    for (let attempt = 1; ; attempt++) {
      try {
        await fs.rmdir(dir);
        break;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === "ENOENT") break;
        if (code !== "EBUSY" || attempt >= REMOVE_ATTEMPTS) throw err;
        await new Promise((r) => setTimeout(r, REMOVE_PAUSE_MS));
      }
    }
  }
}
