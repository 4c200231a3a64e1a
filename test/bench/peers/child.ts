/**
 * The child side of the benchmark's process split: every system under test (and the fake
 * upstream) runs in its own process, so its CPU and memory can be read without the load driver's
 * own work mixed in. A child starts its server, says `ready` with the port, answers `probe` with
 * its CPU time and memory, and stops on `stop` or when the parent goes away (the IPC channel
 * closes), so a crashed or interrupted benchmark leaves no process behind.
 */

export type ParentMessage = { type: "probe"; id: number } | { type: "stop" };

export type ChildMessage =
  | { type: "ready"; port: number; info?: string }
  | { type: "probe"; id: number; cpuMs: number; rss: number; heapUsed: number }
  | { type: "failed"; message: string }
  | { type: "upstream-closed"; tag: string; at: number; finished: boolean };

export interface Served {
  port: number;
  info?: string;
  close(): Promise<void>;
}

/** Absolute wall time in ms with sub-ms precision; comparable across processes on one machine. */
export const now = (): number => performance.timeOrigin + performance.now();

export function send(msg: ChildMessage): void {
  process.send?.(msg);
}

export async function serveChild(start: () => Promise<Served>): Promise<void> {
  if (!process.send) throw new Error("Run this file through the benchmark (npm run bench:peers): it talks to its parent over IPC.");
  let served: Served | undefined;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    // A close that hangs (a stream that never ends) must not keep the process alive.
    const force = setTimeout(() => process.exit(code), 10_000);
    force.unref();
    try {
      await served?.close();
    } catch (err) {
      console.error("close failed:", err);
    }
    process.exit(code);
  };
  process.on("disconnect", () => void stop(0));
  process.on("message", (raw) => {
    const msg = raw as ParentMessage;
    if (msg.type === "stop") void stop(0);
    if (msg.type === "probe") {
      // CPU first: the collections below are the probe's own work, not the system's.
      const cpu = process.cpuUsage();
      // Two collections: the idle-stream figure reads memory that is live, not garbage not yet swept.
      const gc = (globalThis as { gc?: () => void }).gc;
      gc?.();
      gc?.();
      const mem = process.memoryUsage();
      send({ type: "probe", id: msg.id, cpuMs: (cpu.user + cpu.system) / 1000, rss: mem.rss, heapUsed: mem.heapUsed });
    }
  });
  try {
    served = await start();
    send({ type: "ready", port: served.port, info: served.info });
  } catch (err) {
    send({ type: "failed", message: err instanceof Error ? `${err.message}\n${err.stack ?? ""}` : String(err) });
    await stop(1);
  }
}
