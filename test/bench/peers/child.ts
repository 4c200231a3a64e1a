/**
 * The child side of the benchmark's process split: every system under test (and the fake
 * upstream) runs in its own process, so its CPU and memory can be read without the load driver's
 * own work mixed in. A child starts its server, says `ready` with the port, answers `probe` with
 * its CPU time and memory, and stops on `stop` or when the parent goes away (the IPC channel
 * closes), so a crashed or interrupted benchmark leaves no process behind.
 */

import { type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";

export type ParentMessage = { type: "probe"; id: number } | { type: "stop" } | { type: "locks-start"; schema: string } | { type: "locks-stop" };

/** Garbage collections since the previous probe (the probe's own forced ones left out). */
export interface GcFigures {
  gcCount: number;
  gcTotalMs: number;
  gcMaxMs: number;
}

export type ChildMessage =
  | { type: "ready"; port: number; info?: string; schema?: string }
  | ({ type: "probe"; id: number; cpuMs: number; rss: number; heapUsed: number } & GcFigures)
  | { type: "failed"; message: string }
  | { type: "locks"; figures?: LockFigures; error?: string }
  | { type: "upstream-closed"; tag: string; at: number; finished: boolean };

/** What the lock-wait sampler (lock-waits.ts) saw during one scenario. */
export interface LockFigures {
  /** Distinct waits seen (a backend and its statement's start). */
  waits: number;
  /** The longest wait seen, lower bound: its last sighting − its first. */
  longestSeenMs: number;
  /** The longest wait seen, upper bound: its statement's running time when last seen. */
  longestStatementMs: number;
  samples: number;
  /** The interval samples actually came at, on average. */
  intervalMs: number;
  /** The longest wait's wait_event and the start of its statement. */
  longest?: string;
}

export interface Served {
  port: number;
  info?: string;
  /** The Postgres schema the system writes to, for the lock-wait sampler (lock-waits.ts). */
  schema?: string;
  close(): Promise<void>;
}

/** Absolute wall time in ms with sub-ms precision; comparable across processes on one machine. */
export const now = (): number => performance.timeOrigin + performance.now();

export function send(msg: ChildMessage): void {
  process.send?.(msg);
}

/**
 * Every collection's pause as V8 reports it (the `gc` performance entries: from the GC's prologue
 * to its epilogue on the main thread; concurrent marking off the main thread is not a pause),
 * summed and maxed between two probes. The probe's own forced collections fall inside its
 * window and are left out. Rejected: reading prom-client's nodejs_gc_duration_seconds, which
 * only Threadline has and which buckets the durations, so it has no max.
 */
function gcWatch(): { forced(start: number, end: number): void; take(): GcFigures } {
  let figures: GcFigures = { gcCount: 0, gcTotalMs: 0, gcMaxMs: 0 };
  let forced: [number, number] = [-1, -1];
  const count = (entries: PerformanceEntry[]) => {
    for (const e of entries) {
      if (e.startTime >= forced[0] && e.startTime <= forced[1]) continue;
      figures.gcCount++;
      figures.gcTotalMs += e.duration;
      figures.gcMaxMs = Math.max(figures.gcMaxMs, e.duration);
    }
  };
  const observer = new PerformanceObserver((list) => count(list.getEntries()));
  observer.observe({ entryTypes: ["gc"] });
  return {
    forced(start, end) {
      forced = [start, end];
    },
    take() {
      // Entries reach the callback a tick late: the ones not delivered yet are the scenario's too.
      count(observer.takeRecords());
      const out = figures;
      figures = { gcCount: 0, gcTotalMs: 0, gcMaxMs: 0 };
      return out;
    },
  };
}

export async function serveChild(start: () => Promise<Served>): Promise<void> {
  if (!process.send) throw new Error("Run this file through the benchmark (npm run bench:peers): it talks to its parent over IPC.");
  const gcs = gcWatch();
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
      // The collections seen so far are the scenario's: taken before the probe forces its own.
      const collections = gcs.take();
      const t = performance.now();
      gc?.();
      gc?.();
      gcs.forced(t, performance.now());
      const mem = process.memoryUsage();
      send({ type: "probe", id: msg.id, cpuMs: (cpu.user + cpu.system) / 1000, rss: mem.rss, heapUsed: mem.heapUsed, ...collections });
    }
  });
  try {
    served = await start();
    send({ type: "ready", port: served.port, info: served.info, schema: served.schema });
  } catch (err) {
    send({ type: "failed", message: err instanceof Error ? `${err.message}\n${err.stack ?? ""}` : String(err) });
    await stop(1);
  }
}
