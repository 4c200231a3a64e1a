/**
 * Busy loops holding every core, the starved CPU that production under a CPU limit or a shared
 * node is: `perCore` child processes per core, each spinning until it is killed. Children rather
 * than worker threads so that they compete with the process under test as other programs do (a
 * worker would share its heap and its GC). They die with this process: stop() kills them, and
 * so do exit and the usual signals; each also stops by itself after `maxMs` (a bounded run even
 * if this process is killed with SIGKILL and no handler runs).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { availableParallelism } from "node:os";

export interface BusyLoops {
  readonly count: number;
  stop(): Promise<void>;
}

export function startBusyLoops(opts: { perCore?: number; maxMs?: number } = {}): BusyLoops {
  const count = (opts.perCore ?? 2) * availableParallelism();
  const maxMs = opts.maxMs ?? 30 * 60_000;
  // Spin in slices of 50 ms, checking the clock between them: the bound holds without a timer.
  const source = `const end = Date.now() + ${maxMs}; while (Date.now() < end) { const t = Date.now() + 50; while (Date.now() < t); }`;
  const children: ChildProcess[] = [];
  for (let i = 0; i < count; i++) children.push(spawn(process.execPath, ["-e", source], { stdio: "ignore" }));
  const killAll = () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  };
  process.once("exit", killAll);
  const onSignal = (signal: NodeJS.Signals) => {
    killAll();
    process.kill(process.pid, signal); // the default action, now that the handler is gone
  };
  for (const s of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(s, onSignal);
  return {
    count,
    async stop() {
      const exited = children.map((c) => (c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise<void>((r) => c.once("exit", () => r()))));
      killAll();
      await Promise.all(exited);
      process.off("exit", killAll);
      for (const s of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.off(s, onSignal);
    },
  };
}
