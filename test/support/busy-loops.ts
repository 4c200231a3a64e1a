/**
 * A starved CPU for a test: child processes that each spin `while (true) {}`, two per core by
 * default, so that whatever the test runs gets a fraction of a core, as in a pod under a CPU
 * limit or on a node shared with busy neighbours. Child processes, not worker threads: the
 * kernel schedules them against the processes under test exactly as it would other tenants.
 * stop() kills them (SIGKILL) and resolves once every one has exited; a test process that dies
 * kills them on its way out.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { availableParallelism } from "node:os";

export interface BusyLoops {
  readonly count: number;
  stop(): Promise<void>;
}

export function startBusyLoops(perCore = 2): BusyLoops {
  const count = perCore * availableParallelism();
  const children: ChildProcess[] = [];
  for (let i = 0; i < count; i++) {
    children.push(spawn(process.execPath, ["-e", "while (true) {}"], { stdio: "ignore" }));
  }
  const killAll = () => {
    for (const c of children) c.kill("SIGKILL");
  };
  process.once("exit", killAll);
  return {
    count,
    async stop() {
      process.off("exit", killAll);
      await Promise.all(
        children.map(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.exitCode !== null || c.signalCode !== null) return resolve();
              c.once("exit", () => resolve());
              c.kill("SIGKILL");
            }),
        ),
      );
    },
  };
}
