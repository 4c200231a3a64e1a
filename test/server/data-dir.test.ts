/**
 * One writer per embedded-database directory, and its files private. Real processes of the
 * standalone server (server/main.ts) on one DATA_DIR and different ports: the second refuses to
 * start with one sentence naming the first (pid, port) while the first keeps serving and loses
 * nothing; the library (createThreadline with `dataDir`) refuses the same way; after the holder
 * is SIGKILLed, the next server starts on the directory and finds every thread. The modes are
 * read after a fresh start under umask 022 (PGlite alone leaves most files 0666).
 */
import { randomUUID } from "node:crypto";
import { chmodSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.ts";
import { StartupError } from "../../server/startup-errors.ts";
import { DataDirInUseError } from "../../server/store/errors.ts";
import { createPgliteStore } from "../../server/store/pglite.ts";
import { isPostgresEntry } from "../../server/store/pglite-files.ts";
import { createThreadline } from "../../server/threadline.ts";
import { LEVEL, spawnMain, type MainProcess } from "../support/main-process.ts";

/**
 * How long a child may take to listen and start: a first start makes its PGlite database on disk
 * (measured on 2 cores: 52 s at load average 20, about 110 s at 28 beside another suite).
 */
const START_WAIT_MS = 240_000;
const TEST_MS = START_WAIT_MS + 60_000;

const tmp = mkdtempSync(join(tmpdir(), "threadline-datadir-"));
const dataDir = join(tmp, "data");
const children: MainProcess[] = [];
afterAll(async () => {
  for (const c of children) await c.kill("SIGKILL");
  rmSync(tmp, { recursive: true, force: true });
});

function start(env: Record<string, string>): MainProcess {
  const child = spawnMain({ DATA_DIR: dataDir, ...env });
  children.push(child);
  return child;
}

async function listening(child: MainProcess): Promise<string> {
  const line = await child.waitForLine((l) => /^Threadline listening/.test(l.msg), START_WAIT_MS);
  return `http://127.0.0.1:${line.port as number}`;
}

/** A run of the demo model on a new thread, to its end; the thread's id. */
async function runOn(url: string): Promise<string> {
  const threadId = `dd-${randomUUID()}`;
  const res = await fetch(`${url}/api/agents/default/run`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ threadId, runId: randomUUID(), messages: [{ id: randomUUID(), role: "user", content: "hello" }], tools: [], context: [], state: {} }),
  });
  expect(res.status).toBe(200);
  expect(await res.text()).toContain('"type":"RUN_FINISHED"');
  return threadId;
}

async function threadIds(url: string): Promise<string[]> {
  const res = await fetch(`${url}/api/threads?limit=100`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { threads: { threadId: string }[] };
  return body.threads.map((t) => t.threadId).sort();
}

/** Every entry of Postgres's under `dir`, with its mode (permission bits) and kind. */
function postgresModes(dir: string): { path: string; mode: number; dir: boolean }[] {
  const out: { path: string; mode: number; dir: boolean }[] = [];
  const walk = (p: string) => {
    const st = lstatSync(p);
    out.push({ path: p, mode: st.mode & 0o777, dir: st.isDirectory() });
    if (st.isDirectory()) for (const name of readdirSync(p)) walk(join(p, name));
  };
  for (const name of readdirSync(dir)) if (isPostgresEntry(name)) walk(join(dir, name));
  return out;
}

function expectPrivate(dir: string): void {
  const entries = postgresModes(dir);
  // A real cluster was checked: PGlite's own count is about a thousand.
  expect(entries.length).toBeGreaterThan(500);
  expect(entries.filter((e) => e.mode !== (e.dir ? 0o700 : 0o600)).map((e) => `${e.mode.toString(8)} ${e.path}`)).toEqual([]);
  for (const conf of ["postgresql.conf", "pg_hba.conf", "PG_VERSION"]) expect(lstatSync(join(dir, conf)).mode & 0o777).toBe(0o600);
  expect(lstatSync(join(dir, "threadline.lock")).mode & 0o777).toBe(0o600);
}

describe("one server per DATA_DIR", () => {
  let first: MainProcess;
  let firstUrl: string;
  const threads: string[] = [];

  it(
    "a fresh start makes the directory and every file of the database private (umask 022)",
    async () => {
      expect(process.umask()).toBe(0o022);
      first = start({});
      firstUrl = await listening(first);
      threads.push(await runOn(firstUrl));
      expectPrivate(dataDir);
      // The directory itself: 0700; 0711 when the sandbox's user (the server is root) passes
      // through it to the workspace root inside it, whose own rules are unchanged.
      const root = process.getuid?.() === 0;
      expect(lstatSync(dataDir).mode & 0o777).toBe(root ? 0o711 : 0o700);
      if (root) expect(lstatSync(join(dataDir, "workspaces", ".threadline")).mode & 0o777).toBe(0o711);
    },
    TEST_MS,
  );

  it(
    "a second server on another port refuses to start with one sentence naming the first; the first keeps serving",
    async () => {
      const second = start({});
      const exit = await second.exited;
      const out = second.output();
      expect(exit.code, out).toBe(1);
      const errors = second.lines().filter((l) => l.level >= LEVEL.error);
      expect(errors, out).toHaveLength(1);
      const port = new URL(firstUrl).port;
      expect(errors[0], out).toMatchObject({ code: "DATA_DIR_IN_USE", setting: "DATA_DIR" });
      expect(errors[0]!.msg).toBe(
        `DATA_DIR ${dataDir} is in use by another process (pid ${first.pid}, listening on port ${port}): stop that process first, ` +
          `or set DATA_DIR to a directory of this server's own (servers that share their data share a Postgres, through DATABASE_URL).`,
      );
      // It never listened for long and never opened the database: the first serves on, whole.
      expect((await fetch(`${firstUrl}/readyz`)).status).toBe(200);
      threads.push(await runOn(firstUrl));
      expect(await threadIds(firstUrl)).toEqual([...threads].sort());
    },
    TEST_MS,
  );

  it(
    "the library refuses too: createThreadline({ dataDir }).start() rejects with DATA_DIR_IN_USE",
    async () => {
      // The configuration of an empty environment: CI's DATABASE_URL would otherwise take this
      // library start to Postgres (no lock to refuse it, and the default schema left behind).
      const threadline = createThreadline({ dataDir, config: loadConfig({}), logger: pino({ level: "silent" }) });
      try {
        const err = await threadline.start().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(StartupError);
        expect(err).toMatchObject({ code: "DATA_DIR_IN_USE", setting: "the `dataDir` option" });
        expect((err as Error).message).toMatch(new RegExp(`^The \`dataDir\` option ${dataDir} is in use by another process \\(pid ${first.pid}, listening on port \\d+\\)`));
      } finally {
        await threadline.close();
      }
      expect((await fetch(`${firstUrl}/readyz`)).status).toBe(200);
    },
    TEST_MS,
  );

  it(
    "after the holder is SIGKILLed, the next server starts on the directory, finds every thread, and makes loosened files private again",
    async () => {
      const killed = await first.kill("SIGKILL");
      expect(killed.signal).toBe("SIGKILL");
      // What an earlier release left: files 0666 and directories 0755 (chmod follows no link here).
      for (const e of postgresModes(dataDir)) chmodSync(e.path, e.dir ? 0o755 : 0o666);
      chmodSync(dataDir, 0o755);
      // The lock file still names the dead process: nothing to clean up, the kernel let go.
      expect(JSON.parse(readFileSync(join(dataDir, "threadline.lock"), "utf8"))).toMatchObject({ pid: first.pid });
      const workspaceRoot = join(tmp, "elsewhere");
      const next = start({ WORKSPACE_ROOT: workspaceRoot });
      const url = await listening(next);
      expect(await threadIds(url)).toEqual([...threads].sort());
      threads.push(await runOn(url));
      expectPrivate(dataDir);
      // No workspace root inside: nobody else passes through it.
      expect(lstatSync(dataDir).mode & 0o777).toBe(0o700);
      expect(JSON.parse(readFileSync(join(dataDir, "threadline.lock"), "utf8"))).toMatchObject({ pid: next.pid });
      const stopped = await next.kill("SIGTERM");
      expect(stopped.code, next.output()).toBe(0);
    },
    TEST_MS,
  );

  it(
    "without flock(1) the server refuses to start rather than run unguarded, and says what to install",
    async () => {
      const bare = spawnMain({ DATA_DIR: join(tmp, "no-flock"), PATH: "/nonexistent" });
      children.push(bare);
      const exit = await bare.exited;
      expect(exit.code, bare.output()).toBe(1);
      const errors = bare.lines().filter((l) => l.level >= LEVEL.error);
      expect(errors, bare.output()).toHaveLength(1);
      expect(errors[0]).toMatchObject({ code: "DATA_DIR_UNUSABLE", setting: "DATA_DIR" });
      expect(errors[0]!.msg).toBe(
        `DATA_DIR ${join(tmp, "no-flock")} cannot hold the embedded database (flock(1), which locks it to this process, is not installed): install util-linux (or BusyBox), which provides it.`,
      );
    },
    TEST_MS,
  );

  it(
    "in one process: a second store on the directory is refused while the first is open, and opens once it closed",
    async () => {
      const one = createPgliteStore({ dataDir });
      await one.migrate();
      const two = createPgliteStore({ dataDir });
      const err = await two.migrate().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(DataDirInUseError);
      expect((err as DataDirInUseError).holder).toMatchObject({ pid: process.pid, sameHost: true });
      await two.close();
      await one.close();
      const three = createPgliteStore({ dataDir });
      await three.migrate();
      expect((await three.listThreads({ limit: 100 })).threads.map((t) => t.threadId).sort()).toEqual([...threads].sort());
      await three.close();
    },
    TEST_MS,
  );
});
