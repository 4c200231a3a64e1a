/**
 * Spawns a real Threadline server in a child process (child-server.ts), waits until it prints
 * `listening <port>`, and kills it: SIGTERM (graceful: runs are left to recovery, leases
 * released) or SIGKILL (a crash: nothing is released, the leases must expire). Its output is
 * kept in memory (logs go to stderr) and can be shown when a test fails.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { ConfigSchema } from "../../server/config.ts";

/** The test agents child-server.ts hosts with CHILD_AGENTS=slowtool,strict, and their one tool. */
/** The child server's agent with two subagents, a local one and a remote one (child-server.ts). */
export const TEAM_AGENT_ID = "team";
export const SLOW_TOOL_AGENT_ID = "slowtool";
/** The same agent with onRecovery "fail". */
export const STRICT_TOOL_AGENT_ID = "strict";
export const SLOW_TOOL_NAME = "slow_job";

/** One line of CHILD_TOOL_LOG: a slow_job execution starting or ending. */
export interface ToolLogLine {
  /** slow_job starting or ending; `sent`: an email the approvals agent sent. */
  phase: "start" | "end" | "sent";
  toolCallId: string;
  label: string;
  instance: string;
  pid: number;
  at: number;
}

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ENTRY = fileURLToPath(new URL("./child-server.ts", import.meta.url));

/**
 * The environment of a child server: the test's, without any variable of server/config.ts (a
 * child never inherits them), with `env` on top (undefined removes a variable).
 */
export function childEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(ConfigSchema.shape)) delete out[key];
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete out[key];
    else out[key] = value;
  }
  return out;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerProcess {
  name: string;
  pid: number;
  port: number;
  /** http://127.0.0.1:<port> */
  url: string;
  /** Date.now() when it printed `listening`; spawnMs: how long that took. */
  readyAt: number;
  spawnMs: number;
  /** Resolves when the process has exited. */
  exited: Promise<Exit>;
  readonly alive: boolean;
  /** Everything it printed so far (stdout and stderr, interleaved as received). */
  output(): string;
  /** Sends the signal and resolves once the process has exited. */
  kill(signal?: "SIGKILL" | "SIGTERM"): Promise<Exit>;
  /** Sends a signal that does not end it: SIGSTOP freezes it (a long GC pause, a frozen VM), SIGCONT wakes it. */
  signal(signal: "SIGSTOP" | "SIGCONT"): void;
  /** Resolves when its output (logs included) has a line matching `pattern`. */
  waitForOutput(pattern: RegExp, timeoutMs: number): Promise<string>;
}

export interface SpawnServerOptions {
  /** A label for messages (A, B, C...). */
  name: string;
  /** Configuration (server/config.ts variables and the CHILD_* ones of child-server.ts). */
  env: Record<string, string | undefined>;
  readyTimeoutMs?: number;
  /**
   * Another checkout's child-server.ts (an earlier release, extracted from git), run from that
   * checkout's root; default: this one's. It must keep the contract above (`listening <port>`).
   */
  checkout?: string;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** A test process that dies must not leave servers behind holding ports and leases. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const child of live) child.kill("SIGKILL");
  });
}

/**
 * How long a spawned server may take to print "listening": its TypeScript loads through tsx,
 * then it migrates and probes the database. At 30 s a start on a loaded 2-core machine (CPU
 * pressure at 99%) did not make it, stalled between its first log lines and "listening". A start
 * costs 4.4-4.6 s of CPU (docs/startup.md), 1.7-1.8 s of it CopilotKit's runtime, which the start
 * waits for: at a tenth of a core that is 46 s. At 60 s, with busy loops on every core and other
 * suites beside them (load 10-14), three of 179 tests of `npm run test:starved` failed on starts
 * that had not printed "listening" after 55-60 s. Every hook and test that spawns outgrows this
 * bound by its own work (SPAWN_READY_BOUND_MS + ...), so a slow start fails as a slow start.
 */
export const SPAWN_READY_BOUND_MS = 120_000;

export async function spawnServer(opts: SpawnServerOptions): Promise<ServerProcess> {
  installExitHook();
  const env = childEnv({ PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", ...opts.env });

  const spawnedAt = Date.now();
  const child = spawn(process.execPath, ["--import", "tsx", opts.checkout ? join(opts.checkout, "test/support/child-server.ts") : ENTRY], {
    cwd: opts.checkout ?? ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  live.add(child);
  let output = "";
  let alive = true;
  const watchers: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  const append = (text: string) => {
    output += text;
    for (const line of text.split("\n")) {
      for (const w of [...watchers]) {
        if (w.pattern.test(line)) {
          watchers.splice(watchers.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  };
  const exited = new Promise<Exit>((resolve) => {
    child.once("exit", (code, signal) => {
      alive = false;
      live.delete(child);
      resolve({ code, signal });
    });
  });
  createInterface({ input: child.stderr! }).on("line", (line) => append(`${line}\n`));

  const port = await new Promise<number>((resolve, reject) => {
    const timeoutMs = opts.readyTimeoutMs ?? SPAWN_READY_BOUND_MS;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`server ${opts.name} did not print "listening <port>" within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      append(`${line}\n`);
      const m = /^listening (\d+)$/.exec(line.trim());
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server ${opts.name} exited (code ${code}, signal ${signal}) before it was ready:\n${output}`));
    });
  });

  const readyAt = Date.now();
  return {
    name: opts.name,
    pid: child.pid!,
    port,
    readyAt,
    spawnMs: readyAt - spawnedAt,
    url: `http://127.0.0.1:${port}`,
    exited,
    get alive() {
      return alive;
    },
    output: () => output,
    async kill(signal = "SIGTERM") {
      if (alive) {
        child.kill(signal);
        // A frozen process acts on SIGTERM only once it runs again.
        if (signal === "SIGTERM") child.kill("SIGCONT");
      }
      return exited;
    },
    signal(signal) {
      if (alive) child.kill(signal);
    },
    waitForOutput(pattern, timeoutMs) {
      const seen = output.split("\n").find((l) => pattern.test(l));
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          watchers.splice(watchers.indexOf(watcher), 1);
          reject(new Error(`server ${opts.name}: no output line matching ${pattern} within ${timeoutMs} ms:\n${output}`));
        }, timeoutMs);
        const watcher = {
          pattern,
          resolve: (line: string) => {
            clearTimeout(timer);
            resolve(line);
          },
        };
        watchers.push(watcher);
      });
    },
  };
}
