/**
 * Logs for a person at a terminal, JSON for everything else: `npm start`'s entry (server/main.ts)
 * under a pseudo-terminal (util-linux's `script`, as a shell gives one) writes pino-pretty's
 * lines, and a start that fails still prints its one sentence before the exit (the transport's
 * worker is flushed). Under a pipe (every other test of the standalone server) its lines are JSON.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { childEnv } from "../support/server-process.ts";
import { START_BOUND_MS } from "../support/readiness-probe.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SCRIPT = "/usr/bin/script";
const dataDir = mkdtempSync(path.join(tmpdir(), "threadline-pretty-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Strips the colours pino-pretty adds on a terminal. */
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, "").replace(/\r/g, "");

/** The server on a pseudo-terminal: its output until `until` matches (or it exits), then SIGTERM. */
function onTerminal(env: Record<string, string>, until: RegExp): Promise<{ output: string; code: number | null }> {
  const command = `exec ${process.execPath} --import tsx server/main.ts`;
  const child = spawn(SCRIPT, ["-qefc", command, "/dev/null"], { cwd: ROOT, env: childEnv({ HOST: "127.0.0.1", PORT: "0", DATA_DIR: dataDir, ...env }), stdio: ["pipe", "pipe", "pipe"], detached: true });
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.kill(-child.pid!, "SIGKILL");
      reject(new Error(`no ${until} within ${START_BOUND_MS} ms:\n${plain(output)}`));
    }, START_BOUND_MS);
    child.stdout!.on("data", (d: Buffer) => {
      output += d.toString();
      if (until.test(plain(output))) process.kill(-child.pid!, "SIGTERM");
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ output: plain(output), code });
    });
  });
}

describe.skipIf(!existsSync(SCRIPT))("logs on a terminal", () => {
  it("are pino-pretty's lines (time, level, message), not JSON", async () => {
    const { output } = await onTerminal({}, /Threadline listening on http:\/\/localhost:\d+/);
    const lines = output.split("\n").filter((l) => l.trim() !== "");
    expect(lines.some((l) => /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: Threadline listening on http:\/\/localhost:\d+$/.test(l)), output).toBe(true);
    for (const l of lines) expect(l.trim().startsWith("{"), l).toBe(false);
  }, START_BOUND_MS + 30_000);

  it("keep a failed start's sentence: it is printed before the exit", async () => {
    const { output, code } = await onTerminal({ DATABASE_URL: "mysql://nope" }, /(?!)/);
    expect(code).toBe(1);
    expect(output).toMatch(/ERROR: Invalid configuration \(DATABASE_URL: must be a Postgres URL/);
  }, START_BOUND_MS + 30_000);
});
