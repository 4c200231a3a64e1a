/**
 * The parent side of the process split: fork a child (TypeScript through tsx's loader, with
 * --expose-gc so memory probes read live memory), wait for `ready`, probe its CPU and memory,
 * stop it. Every wait is bounded; a child that does not stop in time is killed.
 */
import { fork, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ChildMessage, GcFigures, ParentMessage } from "./child.ts";

export interface Probe extends GcFigures {
  cpuMs: number;
  rss: number;
  heapUsed: number;
}

export interface Child {
  name: string;
  port: number;
  info: string | undefined;
  /** The Postgres schema the child writes to, when it said. */
  schema: string | undefined;
  pid: number;
  probe(): Promise<Probe>;
  onMessage(listener: (msg: ChildMessage) => void): void;
  send(msg: ParentMessage): void;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 15_000;
const PROBE_TIMEOUT_MS = 10_000;

/**
 * `--cpu-prof` into BENCH_CPU_PROF/<child>, when that is set. Node's default file names carry
 * the thread id: tsx's loader runs in a worker thread with a profile of its own, which one fixed
 * name would overwrite the main thread's with.
 */
function cpuProf(name: string): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  return dir ? ["--cpu-prof", `--cpu-prof-dir=${path.join(dir, name)}`] : [];
}

export async function startChild(name: string, file: string, args: string[] = [], env: Record<string, string> = {}): Promise<Child> {
  const proc: ChildProcess = fork(fileURLToPath(new URL(file, import.meta.url)), args, {
    execArgv: ["--import", "tsx", "--expose-gc", ...cpuProf(name)],
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe", "ipc"],
  });
  // A child's complaints reach the reader, named, but never the table on stdout.
  proc.stderr?.setEncoding("utf8");
  proc.stderr?.on("data", (s: string) => {
    for (const line of s.split("\n")) if (line.trim()) process.stderr.write(`[${name}] ${line}\n`);
  });
  let probeId = 0;
  const probes = new Map<number, (p: Probe) => void>();
  const listeners: ((msg: ChildMessage) => void)[] = [];
  const ready = new Promise<{ port: number; info?: string; schema?: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within ${READY_TIMEOUT_MS / 1000} s`)), READY_TIMEOUT_MS);
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with code ${code} before it was ready (its stderr is above)`));
    });
    proc.on("message", (raw) => {
      const msg = raw as ChildMessage;
      if (msg.type === "ready") {
        clearTimeout(timer);
        resolve(msg);
      } else if (msg.type === "failed") {
        clearTimeout(timer);
        reject(new Error(`${name} failed to start: ${msg.message}`));
      } else if (msg.type === "probe") {
        probes.get(msg.id)?.(msg);
        probes.delete(msg.id);
      }
      for (const l of listeners) l(msg);
    });
  });
  let started: { port: number; info?: string; schema?: string };
  try {
    started = await ready;
  } catch (err) {
    proc.kill("SIGKILL");
    throw err;
  }
  const exited = new Promise<void>((r) => (proc.exitCode !== null ? r() : proc.once("exit", () => r())));
  const post = (msg: ParentMessage) => {
    if (proc.connected) proc.send(msg);
  };
  return {
    name,
    port: started.port,
    info: started.info,
    schema: started.schema,
    pid: proc.pid ?? 0,
    probe() {
      const id = ++probeId;
      return new Promise<Probe>((resolve, reject) => {
        const timer = setTimeout(() => {
          probes.delete(id);
          reject(new Error(`${name} did not answer a probe within ${PROBE_TIMEOUT_MS / 1000} s`));
        }, PROBE_TIMEOUT_MS);
        probes.set(id, (p) => {
          clearTimeout(timer);
          resolve(p);
        });
        post({ type: "probe", id });
      });
    },
    onMessage(listener) {
      listeners.push(listener);
    },
    send: post,
    async stop() {
      post({ type: "stop" });
      const timer = setTimeout(() => proc.kill("SIGKILL"), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
