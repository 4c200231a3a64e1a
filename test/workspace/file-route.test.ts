/**
 * The workspace file route answers every path with 2xx or 4xx, never 500: sockets, FIFOs and
 * devices the agent left in its workspace are refused (400) without being opened, and a path a
 * command is swapping (renameat2 RENAME_EXCHANGE in a loop: a directory with a link out, a file
 * with a socket, a file with a directory) is read, refused, or "changed, try again" (409). The
 * swapper runs on the host here, so the race runs wherever the suite does (swap-race.test.ts runs
 * it inside bubblewrap, with the tools, where bubblewrap is installed).
 */
import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaceHostFromConfig, type WorkspaceHost } from "../../server/workspace/tools.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

const PYTHON = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
/** Reads made while the swapper runs: enough that most kinds of collision happen (bounded, not timed). */
const RACE_READS = 1_500;
/** Reads in flight at once. */
const RACE_CONCURRENCY = 8;
/** Bytes that exist only outside the workspace (/etc). */
const OUTSIDE = /root:|nobody:|daemon:/;

let server: TestServer;
let host: WorkspaceHost;
let ws: string;
let listener: Server;
const threadId = `fr-${randomUUID().slice(0, 8)}`;

const get = async (p: string) => {
  const res = await fetch(`${server.url}/api/threads/${threadId}/workspace/file?path=${encodeURIComponent(p)}`);
  return { status: res.status, text: await res.text() };
};

beforeAll(async () => {
  server = await startTestServer({
    backend: "pglite",
    workspace: (config) => {
      host = workspaceHostFromConfig(config);
      return host;
    },
  });
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
  writeFileSync(join(ws, "plain.txt"), "INSIDE plain\n");
  // A socket something listens on, a FIFO nothing writes to, and links to each.
  listener = createServer();
  await new Promise<void>((resolve) => listener.listen(join(ws, "live.sock"), resolve));
  expect(spawnSync("mkfifo", [join(ws, "pipe")]).status).toBe(0);
  symlinkSync("live.sock", join(ws, "to-sock"));
  symlinkSync("pipe", join(ws, "to-pipe"));
}, 120_000);

afterAll(async () => {
  await new Promise<void>((resolve) => (listener ? listener.close(() => resolve()) : resolve()));
  await server?.close();
});

describe("the workspace file route and special files", () => {
  it("refuses a socket, a FIFO and links to them with 400 (a socket's open was a 500: ENXIO)", async () => {
    for (const p of ["live.sock", "pipe", "to-sock", "to-pipe"]) {
      const r = await get(p);
      expect(r.status, `${p}: ${r.text}`).toBe(400);
      expect(JSON.parse(r.text).error).toMatchObject({ code: "INVALID_PATH", message: expect.stringMatching(/not a regular file or directory \(a device, FIFO or socket\)/) });
    }
    // The server serves on: nothing it met hung a read.
    expect((await get("plain.txt")).text).toBe("INSIDE plain\n");
  });

  it("refuses a device file with 400 (where this process may make one)", async () => {
    const made = spawnSync("mknod", [join(ws, "null-dev"), "c", "1", "3"]);
    if (made.status !== 0) return; // Not root, or no CAP_MKNOD: nothing the agent could make either.
    const r = await get("null-dev");
    expect(r.status, r.text).toBe(400);
    expect(r.text).toMatch(/a device, FIFO or socket/);
  });
});

describe("the workspace file route under a swap race", () => {
  it(`${RACE_READS} reads while a command swaps what they name: 2xx or 4xx each, never 5xx, nothing from outside`, async () => {
    mkdirSync(join(ws, "d"));
    writeFileSync(join(ws, "d", "f.txt"), "INSIDE d\n");
    writeFileSync(join(ws, "f.txt"), "INSIDE f\n");
    mkdirSync(join(ws, "g"));
    const swapper = [
      "import ctypes, os, socket, sys",
      "libc = ctypes.CDLL(None, use_errno=True)",
      `os.chdir(${JSON.stringify(ws)})`,
      'os.symlink("/etc", "dl")',
      's = socket.socket(socket.AF_UNIX); s.bind("sk"); s.listen(1)',
      "n = 0",
      'while not os.path.exists("stop"):',
      '  for a, b in ((b"d", b"dl"), (b"f.txt", b"sk"), (b"f.txt", b"g")):',
      "    if libc.renameat2(-100, a, -100, b, 2) == 0: n += 1",
      'print("swaps", n)',
    ].join("\n");
    const child = spawn(PYTHON, ["-c", swapper], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const ended = new Promise<void>((resolve) => child.once("close", () => resolve()));

    const paths = ["d/f.txt", "f.txt", "d/passwd", "dl/passwd", "d", "sk", "g"];
    const outcomes: { path: string; status: number; text: string }[] = [];
    let next = 0;
    const worker = async () => {
      while (next < RACE_READS) {
        const p = paths[next++ % paths.length]!;
        outcomes.push({ path: p, ...(await get(p)) });
      }
    };
    try {
      await Promise.all(Array.from({ length: RACE_CONCURRENCY }, worker));
    } finally {
      writeFileSync(join(ws, "stop"), "");
      await ended;
    }
    const swaps = Number(/swaps (\d+)/.exec(out)?.[1]);
    const byStatus = new Map<number, number>();
    for (const o of outcomes) byStatus.set(o.status, (byStatus.get(o.status) ?? 0) + 1);
    const summary = `swaps ${swaps}; statuses ${JSON.stringify(Object.fromEntries(byStatus))}`;
    // The race ran: the swapper swapped throughout, and reads met it.
    expect(swaps, out).toBeGreaterThan(1_000);
    expect(outcomes).toHaveLength(RACE_READS);
    // Never a 5xx, whatever a read met.
    expect(outcomes.filter((o) => o.status >= 500).map((o) => `${o.path} ${o.status}: ${o.text.slice(0, 200)}`), summary).toEqual([]);
    expect([...byStatus.keys()].every((s) => [200, 400, 404, 409].includes(s)), summary).toBe(true);
    // Nothing from outside, and what was read is the workspace's own.
    expect(outcomes.filter((o) => OUTSIDE.test(o.text)).map((o) => o.path)).toEqual([]);
    for (const o of outcomes.filter((o) => o.status === 200)) expect(o.text, o.path).toMatch(/^INSIDE [df]\n$/);
    // Every refusal says why, in the API's error shape.
    for (const o of outcomes.filter((o) => o.status >= 400)) expect(JSON.parse(o.text).error.message).toEqual(expect.any(String));
    console.info(`[file route swap race] ${summary}`);
  }, 300_000);
});
