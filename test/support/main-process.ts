/**
 * The standalone server (server/main.ts, what `npm start` runs) in a child process, configured
 * only by the environment given: its log lines (pino JSON on stdout) parsed as they come, its
 * stderr kept apart, and when it exited. For start-up tests; multi-process tests of a running
 * server use server-process.ts, whose child hosts test agents.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { childEnv } from "./server-process.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAIN = fileURLToPath(new URL("../../server/main.ts", import.meta.url));

/** One line of the server's log. */
export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export const LEVEL = { debug: 20, info: 30, warn: 40, error: 50 } as const;

export interface MainExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** From spawn to exit, and from its first log line to exit (the first is mostly module loading). */
  spawnToExitMs: number;
  firstLineToExitMs: number | undefined;
}

export interface MainProcess {
  pid: number;
  /** The log lines so far; a stdout line that is not JSON is kept as { level: -1, msg: line }. */
  lines(): LogLine[];
  stderr(): string;
  /** Everything it printed, for a failure message. */
  output(): string;
  /** Resolves with the first log line `match` accepts (seen already or to come); rejects after `timeoutMs` or at exit. */
  waitForLine(match: (line: LogLine) => boolean, timeoutMs: number): Promise<LogLine>;
  exited: Promise<MainExit>;
  kill(signal?: "SIGTERM" | "SIGKILL"): Promise<MainExit>;
}

/**
 * `args`: what Node runs instead of server/main.ts through tsx (the Dockerfile's CMD runs the
 * built dist/server/main.js).
 */
export function spawnMain(env: Record<string, string | undefined>, args: readonly string[] = ["--import", "tsx", MAIN]): MainProcess {
  const spawnedAt = performance.now();
  let firstLineAt: number | undefined;
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: childEnv({ HOST: "127.0.0.1", PORT: "0", ...env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  // A test that fails must not leave a server behind holding its port.
  const onTestExit = () => child.kill("SIGKILL");
  process.once("exit", onTestExit);
  const lines: LogLine[] = [];
  let stderr = "";
  const waiters: { match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }[] = [];
  createInterface({ input: child.stdout! }).on("line", (text) => {
    firstLineAt ??= performance.now();
    let line: LogLine;
    try {
      line = JSON.parse(text) as LogLine;
    } catch {
      line = { level: -1, msg: text };
    }
    lines.push(line);
    for (const w of [...waiters]) {
      if (w.match(line)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const output = () => `${lines.map((l) => JSON.stringify(l)).join("\n")}\n--- stderr ---\n${stderr}`;
  const exited = new Promise<MainExit>((resolve) => {
    child.once("exit", (code, signal) => {
      process.off("exit", onTestExit);
      const at = performance.now();
      resolve({ code, signal, spawnToExitMs: at - spawnedAt, firstLineToExitMs: firstLineAt === undefined ? undefined : at - firstLineAt });
    });
  });
  return {
    pid: child.pid!,
    lines: () => lines,
    stderr: () => stderr,
    output,
    waitForLine(match, timeoutMs) {
      const seen = lines.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no such log line within ${timeoutMs} ms:\n${output()}`)), timeoutMs);
        const waiter = {
          match,
          resolve: (line: LogLine) => {
            clearTimeout(timer);
            resolve(line);
          },
        };
        waiters.push(waiter);
        void exited.then(() => {
          clearTimeout(timer);
          reject(new Error(`the server exited before such a log line:\n${output()}`));
        });
      });
    },
    exited,
    async kill(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
