/**
 * The race, as an attacker who can prompt the coding agent runs it: a command in the sandbox
 * swaps directories of its workspace with symbolic links to /etc, to /proc/self (the server's
 * own environment, seen from the host) and to a directory outside the workspace, in a loop
 * (renameat2 RENAME_EXCHANGE), while the file route and every file tool read, list, search and
 * write through those directories. Nothing from outside may come back, nothing may be written
 * outside, nothing in the workspace may belong to root, and the routes answer no 5xx.
 */
import { randomUUID } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolDefinition } from "../../server/agents/define.ts";
import { COMMAND_MAX_TIMEOUT_S, workspaceHostFromConfig, workspaceTools, type WorkspaceHost } from "../../server/workspace/tools.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { testToolContext } from "../support/tool-context.ts";

const sandboxed = existsSync("/usr/bin/bwrap");
/** Rounds of reads, listings, searches and writes made while the swapper runs (bounded, not timed). */
const ROUNDS = 60;
/** Bytes that exist only outside the workspace: /etc/passwd, /proc/self/environ and status, the outside directory. */
const OUTSIDE = /root:|OUTSIDE-SECRET|PATH=|PPid:|nobody:|daemon:/;

describe.skipIf(!sandboxed)("workspace under a swap race", () => {
  let server: TestServer;
  let host: WorkspaceHost;
  let tools: Map<string, ToolDefinition>;
  let ws: string;
  let outside: string;
  const threadId = `race-${randomUUID().slice(0, 8)}`;
  const stop = new AbortController();

  const ctx = () => testToolContext({ threadId, signal: stop.signal });

  /** A tool's result as text, or its refusal's message (a refusal is an acceptable outcome). */
  async function call(name: string, args: unknown): Promise<{ ok: boolean; text: string }> {
    const tool = tools.get(name)!;
    try {
      return { ok: true, text: JSON.stringify(await tool.execute(tool.inputSchema.parse(args), ctx())) };
    } catch (err) {
      return { ok: false, text: (err as Error).message };
    }
  }

  beforeAll(async () => {
    server = await startTestServer({
      backend: "pglite",
      workspace: (config) => {
        host = workspaceHostFromConfig(config);
        return host;
      },
    });
    tools = new Map(workspaceTools({ host }).map((t) => [t.name, t]));
    // The thread exists (the route answers only for a thread of the caller's).
    const run = await fetch(`${server.url}/api/agents/default/run`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ threadId, runId: randomUUID(), messages: [{ id: randomUUID(), role: "user", content: "hi" }], tools: [], context: [], state: {} }),
    });
    await run.text();
    const opened = await host.workspaces.forRun(threadId, "default", undefined);
    if (!opened.ok) throw new Error(opened.error);
    ws = readlinkSync(`/proc/self/fd/${opened.handle.fd}`);
    await opened.handle.close();
    // A directory outside the workspace that anyone may write: a write that leaked would land.
    outside = join(ws, "..", "..", "..", "..", "outside");
    mkdirSync(outside, { mode: 0o777, recursive: true });
    writeFileSync(join(outside, "secret.txt"), "OUTSIDE-SECRET\n");
    for (const d of ["d", "e", "r"]) expect((await call("write", { path: `${d}/f.txt`, content: `INSIDE ${d}\n` })).ok).toBe(true);
  }, 120_000);
  afterAll(async () => {
    stop.abort();
    await server?.close();
  });

  it("returns no byte from outside, writes nothing outside, and leaves nothing owned by root", async () => {
    const swapper = [
      "import ctypes, os",
      "libc = ctypes.CDLL(None, use_errno=True)",
      'os.symlink("/etc", "dl"); os.symlink("/proc/self", "el"); os.symlink("../../../../outside", "rl")',
      "n = 0",
      'while not os.path.exists("stop"):',
      '  for a, b in ((b"d", b"dl"), (b"e", b"el"), (b"r", b"rl")):',
      "    if libc.renameat2(-100, a, -100, b, 2) == 0: n += 1",
      'print("swaps", n)',
    ].join("\n");
    // The swapper lives until the rounds end (the "stop" file); its timeout only ends a test that
    // died. The rounds spawn ~400 sandboxes and writers: minutes on a loaded machine.
    const swapping = call("run", { language: "python", code: swapper, timeout: COMMAND_MAX_TIMEOUT_S });

    const outcomes: { op: string; ok: boolean; text: string }[] = [];
    const note = (op: string, r: { ok: boolean; text: string }) => outcomes.push({ op, ...r });
    const statuses: { op: string; status: number }[] = [];
    const get = async (p: string) => {
      const res = await fetch(`${server.url}/api/threads/${threadId}/workspace/file?path=${encodeURIComponent(p)}`);
      statuses.push({ op: `GET file ${p}`, status: res.status });
      note(`GET file ${p}`, { ok: res.status === 200, text: await res.text() });
    };
    for (let round = 0; round < ROUNDS; round++) {
      await Promise.all([
        ...["d/passwd", "d/f.txt", "e/environ", "e/status", "r/secret.txt", "r/f.txt"].map(get),
        fetch(`${server.url}/api/threads/${threadId}/workspace`).then(async (res) => {
          statuses.push({ op: "GET workspace", status: res.status });
          note("GET workspace", { ok: res.status === 200, text: await res.text() });
        }),
        ...["d/passwd", "d/f.txt", "e/environ", "r/secret.txt"].map(async (p) => note(`read ${p}`, await call("read", { path: p }))),
        ...["d", "e", "r"].map(async (p) => note(`ls ${p}`, await call("ls", { path: p }))),
        ...["d", "e", "r"].map(async (p) => note(`find ${p}`, await call("find", { pattern: "*", path: p }))),
        ...["d", "r", "r/secret.txt"].map(async (p) => note(`grep ${p}`, await call("grep", { pattern: "root|SECRET|nobody", path: p }))),
        ...["d/w.txt", "e/new/deep.txt", "r/w.txt", "r/new/deep.txt"].map(async (p) => note(`write ${p}`, await call("write", { path: p, content: `written ${round}\n` }))),
      ]);
    }
    expect((await call("write", { path: "stop", content: "" })).ok).toBe(true);
    const swapped = await swapping;
    const swaps = Number(/swaps (\d+)/.exec(swapped.text)?.[1]);

    // The race was run: the swapper swapped, and some operations met a swapped directory.
    expect(swaps, swapped.text).toBeGreaterThan(100);
    expect(outcomes.some((o) => !o.ok)).toBe(true);
    // The routes answered every request 2xx or 4xx: refused, missing, or changed (try again).
    expect(statuses.filter((s) => s.status >= 500)).toEqual([]);
    // Zero bytes from outside the workspace, whatever each operation met.
    const leaks = outcomes.filter((o) => OUTSIDE.test(o.text));
    expect(leaks.map((o) => `${o.op}: ${o.text.slice(0, 120)}`)).toEqual([]);
    // What was read successfully is the workspace's own content.
    for (const o of outcomes.filter((o) => o.ok && /^(GET file|read) /.test(o.op))) expect(o.text).toMatch(/INSIDE [der]/);
    // Nothing written outside: the outside directory holds only its own file, /etc none of ours.
    expect(readdirSync(outside)).toEqual(["secret.txt"]);
    expect(existsSync("/etc/w.txt") || existsSync("/etc/new")).toBe(false);
    // Nothing in the workspace is root's (the tools write as the sandbox's user).
    if (process.getuid?.() === 0) {
      const owners: string[] = [];
      const walk = (dir: string) => {
        for (const name of readdirSync(dir)) {
          const p = join(dir, name);
          const st = lstatSync(p);
          if (st.uid === 0) owners.push(p);
          if (st.isDirectory()) walk(p);
        }
      };
      walk(ws);
      expect(owners).toEqual([]);
    }
  }, (COMMAND_MAX_TIMEOUT_S + 60) * 1000);
});
