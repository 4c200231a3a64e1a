/**
 * Generated hostile requests over every route (fast-check): deep nesting, huge strings, NUL and
 * lone surrogates in values and keys, wrong types, wrong content types and encodings, junk path
 * segments, junk queries and cursors, foreign origins, and workspace paths that name sockets,
 * FIFOs, devices, links out and in, directories, climbs and junk. For each one: a status below
 * 500, and the row counts of threads, runs and workflow_events unchanged (read from the database
 * itself). Afterwards the server is alive: /healthz answers and a valid run completes.
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoUpstream } from "../support/demo-upstream.ts";
import { pgliteBackend, postgresBackend, type StoreBackend } from "../store/backends.ts";
import { backends, startTestServer, testSchema, type TestServer } from "../support/server.ts";
import { workspaceHostFromConfig, type WorkspaceHost } from "../../server/workspace/tools.ts";
import { send, type RawRequest } from "./raw-http.ts";

/** The red team's count: 5,000 requests per backend, every route its share (the workspace file route three). */
const RUNS = 5_000;
const J = { "content-type": "application/json" };

// ---- building blocks ----

/** Percent-encodes UTF-16 code units one by one, so that lone surrogates survive as %ED%A0%80-like junk. */
function encodeUnits(s: string): string {
  let out = "";
  for (const ch of s) {
    try {
      out += encodeURIComponent(ch);
    } catch {
      out += `%${(ch.charCodeAt(0) >> 8).toString(16).padStart(2, "0")}%${(ch.charCodeAt(0) & 0xff).toString(16).padStart(2, "0")}`;
    }
  }
  return out;
}

const junkSegment = fc.oneof(
  fc.constantFrom("%zz", "%00", "%", "%E0%A4%A", "__proto__", "constructor", "hasOwnProperty", "toString", "..", "%2F", "%2e%2e", "a%0Ab", "x%7F", "%ED%A0%80", "%C0%AF", "t".repeat(201), "u".repeat(5000), "%20", "default%00"),
  fc.string({ maxLength: 30, unit: "binary" }).map(encodeUnits).filter((s) => s !== "" && s !== "default"),
);

const poison = fc.constantFrom("\u0000", "\uD800", "\uDFFF", "a\uD83D", "\uDE00z", "x\u0000y");

/** JSON text of `depth` nested objects or arrays around a leaf (built as text: no recursion). */
const deepText = (depth: number, kind: "obj" | "arr") =>
  kind === "arr" ? `${"[".repeat(depth)}1${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

const HUGE = "x".repeat(1024 * 1024 + 1);
const OVER_BODY = JSON.stringify({ blob: "y".repeat(4 * 1024 * 1024 + 10) });

function validRun(): Record<string, unknown> {
  return { threadId: `fz-${randomUUID()}`, runId: `r-${randomUUID()}`, messages: [{ id: `m-${randomUUID()}`, role: "user", content: "hi" }] };
}

const badIds: unknown[] = [42, null, true, [], {}, "", "   ", "\u0001id", "t".repeat(201), ["t"]];
/** Values no RunAgentInput may hold in these fields (the server's own id rule included). */
const WRONG_TYPES: [string, unknown][] = [
  ...badIds.map((v): [string, unknown] => ["threadId", v]),
  ...badIds.map((v): [string, unknown] => ["runId", v]),
  ...[42, null, "x", { 0: "x" }, [1, 2], [null], [{ id: "m", role: "robot", content: "x" }]].map((v): [string, unknown] => ["messages", v]),
  ...["x", 42, {}, [1], [null], [{}], [{ name: 1 }]].map((v): [string, unknown] => ["tools", v]),
  ...["x", 42, {}, [1], [{}], [{ description: "d" }]].map((v): [string, unknown] => ["context", v]),
];

/** A run body with one defect that no server could accept, as JSON text. */
const badRunBody: fc.Arbitrary<{ text: string; tag: string }> = fc.oneof(
  fc.record({ field: fc.constantFrom("forwardedProps", "state", "toolParams", "messageContent", "contextValue"), depth: fc.integer({ min: 65, max: 6000 }), kind: fc.constantFrom("obj" as const, "arr" as const) }).map(({ field, depth, kind }) => {
    const base = JSON.stringify(validRun()).slice(0, -1);
    const deep = deepText(depth, kind);
    const tail =
      field === "toolParams" ? `,"tools":[{"name":"t","description":"d","parameters":${deep}}]}`
      : field === "messageContent" ? `,"context":[],"extra":[{"content":${deep}}]}`
      : field === "contextValue" ? `,"context":[{"description":"d","value":"v","x":${deep}}]}`
      : `,"${field}":${deep}}`;
    return { text: base + tail, tag: `deep ${field}` };
  }),
  fc.constantFrom("forwardedProps", "state", "content", "threadId").map((field) => {
    const b = validRun();
    if (field === "content") (b.messages as { content: string }[])[0]!.content = HUGE;
    else if (field === "threadId") b.threadId = HUGE;
    else b[field] = { big: HUGE };
    return { text: JSON.stringify(b), tag: "huge string" };
  }),
  fc.record({ p: poison, where: fc.constantFrom("content", "key", "threadId", "runId", "messageId", "stateKey", "toolName") }).map(({ p, where }) => {
    const b = validRun();
    const m = (b.messages as Record<string, unknown>[])[0]!;
    if (where === "content") m.content = `hello ${p}`;
    else if (where === "key") b.forwardedProps = { [`k${p}`]: 1 };
    else if (where === "threadId") b.threadId = `t${p}`;
    else if (where === "runId") b.runId = `r${p}`;
    else if (where === "messageId") m.id = `m${p}`;
    else if (where === "stateKey") b.state = { nested: { [p]: [p] } };
    else b.tools = [{ name: `tool${p}`, description: "d", parameters: {} }];
    return { text: JSON.stringify(b), tag: "unsafe text" };
  }),
  fc.constantFrom<[string, unknown]>(...WRONG_TYPES).map(([field, value]) => {
    const b = validRun();
    b[field] = value;
    return { text: JSON.stringify(b), tag: "wrong type" };
  }),
  fc.jsonValue({ maxDepth: 3 }).map((v) => ({ text: JSON.stringify(v) ?? "null", tag: "random json" })),
  fc.constantFrom('{"threadId": "t", "runId": ', "{", "[", '{"a":1}garbage', "nul", "\uFEFF{}", '{"threadId":"t","threadId":', "").map((text) => ({ text, tag: "invalid json" })),
  fc.constant(null).map(() => ({ text: JSON.stringify({ ...validRun(), forwardedProps: { many: Array.from({ length: 10_001 }, () => 0) } }), tag: "long array" })),
  fc.constant(null).map(() => ({ text: JSON.stringify({ ...validRun(), state: Object.fromEntries(Array.from({ length: 1_001 }, (_, i) => [`k${i}`, i])) }), tag: "many keys" })),
);

/** Headers that make even a valid body unacceptable. */
const badFraming = fc.constantFrom<Record<string, string>>(
  { "content-type": "text/plain" },
  { "content-type": "application/x-www-form-urlencoded" },
  { "content-type": "multipart/form-data; boundary=x" },
  { "content-type": "application/json-patch+json" },
  { "content-type": "application/vnd.api+json" },
  { "content-type": "application/json", "content-encoding": "br2" },
  { "content-type": "application/json", "content-encoding": "gzip" },
  { "content-type": "application/json; charset=koi9" },
  { "content-type": "application/json; charset=utf-16" },
  { "content-type": "application/json", origin: "https://evil.example" },
  { "content-type": "application/json", origin: "null" },
  { "content-type": "application/json", origin: "not a url" },
  {},
);

const lastEventId = fc.oneof(fc.constantFrom("abc", "1e400", "-1", "0x10", "1.5", "99999999999999999999", "NaN", " ", "1.2.3"), fc.string({ maxLength: 20 }).filter((s) => /^[\x20-\x7e]*$/.test(s)));

const queryJunk = fc.oneof(
  fc.constantFrom(
    "cursor=abc", "cursor=%00", `cursor=${"z".repeat(3000)}`, "limit=-1", "limit=1e400", "limit=abc", "limit=0", "status=BUSY", "agentId=%00", "agentId=%ED%A0%80",
    "after=1e400", "after=-5", "after=99999999999999999999", "after=abc", "cursor=1&cursor=2", "limit[]=1", "agentId[a]=b", "%zz=1", "a=%zz", "__proto__=1", "constructor[prototype]=x",
  ),
  fc.array(fc.tuple(fc.string({ maxLength: 8, unit: "binary" }), fc.string({ maxLength: 12, unit: "binary" })), { maxLength: 4 }).map((pairs) => pairs.map(([k, v]) => `${encodeUnits(k)}=${encodeUnits(v)}`).join("&")),
);

/** What the fuzzed thread's workspace holds (made in beforeAll): every kind of entry a command can leave. */
const WORKSPACE_NAMES = [
  "plain.txt", "big.bin", "dir", "dir/inner.txt", "dir/deeper/x.md", "live.sock", "pipe", "null-dev", "to-sock", "to-pipe", "to-etc", "to-passwd",
  "to-dir", "to-plain", "loop-a", "dangling", "abs-in", "abs-out",
];

const workspacePathText = fc.oneof(
  fc.constantFrom(...WORKSPACE_NAMES),
  fc.constantFrom(
    ".", "..", "../..", "/etc/passwd", "dir/../../x", "dir/..", "to-etc/passwd", "to-dir/inner.txt", "to-dir/../plain.txt", "live.sock/x", "pipe/", "plain.txt/",
    "~/x", "dir//inner.txt", "./plain.txt", "\u0000", "a\u0001b", "x".repeat(256), `${"d/".repeat(2100)}f`, "\uD800", "%2e%2e/plain.txt", "dir\\inner.txt",
  ),
  fc.array(fc.oneof(fc.constantFrom(...WORKSPACE_NAMES, "..", ".", "", "to-etc", "loop-a"), fc.string({ maxLength: 12 })), { minLength: 1, maxLength: 6 }).map((parts) => parts.join("/")),
);

/** The query of the workspace file route: mostly `path=`, sometimes junk around or instead of it. */
const workspaceQuery = fc.oneof(
  { weight: 4, arbitrary: workspacePathText.map((p) => `path=${encodeUnits(p)}`) },
  { weight: 1, arbitrary: fc.tuple(workspacePathText, queryJunk).map(([p, q]) => `${q}&path=${encodeUnits(p)}`) },
  { weight: 1, arbitrary: fc.constantFrom("", "path=", "path", "path[]=plain.txt", "path=a&path=b", "path[a]=b", `path=${"z".repeat(5000)}`, "path=%zz", "path=%00") },
);

/**
 * Makes the thread's workspace hold a file, a large file, directories, a socket something listens
 * on, a FIFO, a device (where this process may make one), and links in, out, looping and dangling.
 */
async function furnishWorkspace(host: WorkspaceHost, threadId: string): Promise<Server> {
  const opened = await host.workspaces.forRun(threadId, "default", undefined);
  if (!opened.ok) throw new Error(opened.error);
  const ws = readlinkSync(`/proc/self/fd/${opened.handle.fd}`);
  await opened.handle.close();
  writeFileSync(join(ws, "plain.txt"), "plain\n");
  writeFileSync(join(ws, "big.bin"), Buffer.alloc(1024 * 1024 + 7, 0xab));
  mkdirSync(join(ws, "dir", "deeper"), { recursive: true });
  writeFileSync(join(ws, "dir", "inner.txt"), "inner\n");
  writeFileSync(join(ws, "dir", "deeper", "x.md"), "# x\n");
  const listener = createServer();
  await new Promise<void>((resolve) => listener.listen(join(ws, "live.sock"), resolve));
  if (spawnSync("mkfifo", [join(ws, "pipe")]).status !== 0) throw new Error("mkfifo failed");
  // A device needs CAP_MKNOD: where this process has none, neither has the agent.
  spawnSync("mknod", [join(ws, "null-dev"), "c", "1", "3"]);
  for (const [target, name] of [
    ["live.sock", "to-sock"], ["pipe", "to-pipe"], ["/etc", "to-etc"], ["/etc/passwd", "to-passwd"], ["dir", "to-dir"], ["plain.txt", "to-plain"],
    ["loop-b", "loop-a"], ["loop-a", "loop-b"], ["nowhere", "dangling"], ["/workspace/plain.txt", "abs-in"], ["/workspace/../etc/passwd", "abs-out"],
  ] as const) {
    symlinkSync(target, join(ws, name));
  }
  return listener;
}

// ---- the routes ----

interface Case extends RawRequest {
  route: string;
}

function routes(existing: string): fc.Arbitrary<Case> {
  const agent = fc.oneof(junkSegment, fc.constant("default"));
  const threadId = fc.oneof(junkSegment, fc.constant(existing));
  const body = (route: string, path: fc.Arbitrary<string>) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.tuple(path, badRunBody).map(([p, b]) => ({ route, method: "POST", path: p, headers: J, body: b.text })) },
      { weight: 2, arbitrary: fc.tuple(path, badFraming).map(([p, h]) => ({ route, method: "POST", path: p, headers: h, body: h["content-encoding"] === "gzip" ? "not gzip" : JSON.stringify(validRun()) })) },
      { weight: 1, arbitrary: fc.tuple(path, fc.constant(null)).map(([p]) => ({ route, method: "POST", path: p, headers: { ...J, "content-encoding": "gzip" }, body: gzipSync(`{"threadId":${deepText(5000, "arr")}}`) })) },
    );
  return fc.oneof(
    body("run", agent.map((a) => `/api/agents/${a}/run`)),
    body("connect", agent.map((a) => `/api/agents/${a}/connect`)),
    fc.tuple(threadId, lastEventId).map(([t, id]) => ({ route: "connect cursor", method: "POST", path: `/api/agents/default/connect`, headers: { ...J, "last-event-id": id }, body: JSON.stringify({ threadId: t, lastSeenEventId: id }) })),
    queryJunk.map((q) => ({ route: "list", method: "GET", path: `/api/threads?${q}` })),
    threadId.map((t) => ({ route: "get", method: "GET", path: `/api/threads/${t}` })),
    junkSegment.map((t) => ({ route: "delete", method: "DELETE", path: `/api/threads/${t}` })),
    fc.tuple(threadId, queryJunk, lastEventId, fc.boolean()).map(([t, q, id, sse]) => ({
      route: "events",
      method: "GET",
      path: `/api/threads/${t}/events?${q}`,
      headers: { "last-event-id": id, ...(sse ? { accept: "text/event-stream" } : {}) },
    })),
    fc.tuple(threadId, fc.oneof(badFraming, fc.constant<Record<string, string>>({}))).map(([t, h]) => ({ route: "cancel", method: "POST", path: `/api/threads/${t}/cancel`, headers: h, body: h["content-type"] ? "{}" : undefined })),
    queryJunk.map((q) => ({ route: "agents", method: "GET", path: `/api/agents?${q}` })),
    { weight: 3, arbitrary: fc.tuple(fc.oneof({ weight: 1, arbitrary: junkSegment }, { weight: 4, arbitrary: fc.constant(existing) }), workspaceQuery).map(([t, q]) => ({ route: "workspace file", method: "GET", path: `/api/threads/${t}/workspace/file?${q}` })) },
    threadId.map((t) => ({ route: "workspace", method: "GET", path: `/api/threads/${t}/workspace` })),
    body("copilotkit run", agent.map((a) => `/api/copilotkit/agent/${a}/run`)),
    body("copilotkit connect", agent.map((a) => `/api/copilotkit/agent/${a}/connect`)),
    fc.tuple(agent, threadId, badFraming).map(([a, t, h]) => ({ route: "copilotkit stop", method: "POST", path: `/api/copilotkit/agent/${a}/stop/${t}`, headers: h, body: "{}" })),
    body("copilotkit envelope", fc.constant("/api/copilotkit")),
    fc.tuple(fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH"), junkSegment, fc.constantFrom("info", "threads", "transcribe", "agent", "", "x/y/z", "x/agent/default/run", "x/agent/default/stop")).map(([m, s, sub]) => {
      const body = JSON.stringify({ method: "agent/run", params: { agentId: "__proto__" }, body: {} });
      return {
        route: "copilotkit other",
        method: m,
        path: `/api/copilotkit/${sub}${sub ? "/" : ""}${s}`,
        // A length: node:http frames no body of a DELETE by itself, and its unframed bytes would
        // reach the server as a second, garbled request (Node's own bare 400).
        headers: m === "GET" ? {} : { ...J, "content-length": String(Buffer.byteLength(body)) },
        body: m === "GET" ? undefined : body,
      };
    }),
  );
}

describe.each(backends())("fuzz on %s", (backendName) => {
  let upstream: Awaited<ReturnType<typeof startDemoUpstream>>;
  let db: StoreBackend;
  let schema: string;
  let server: TestServer;
  let existing: string;
  let host: WorkspaceHost;
  let listener: Server | undefined;

  const counts = async () => {
    const [row] = await db.sql<{ threads: number; runs: number; events: number }>(
      `select (select count(*) from "${schema}".threads)::int as threads,
              (select count(*) from "${schema}".runs)::int as runs,
              (select count(*) from "${schema}".workflow_events)::int as events`,
    );
    return row!;
  };

  const validRunCompletes = async () => {
    const body = validRun();
    const res = await fetch(`${server.url}/api/agents/default/run`, { method: "POST", headers: J, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('"type":"RUN_FINISHED"');
    return body.threadId as string;
  };

  beforeAll(async () => {
    upstream = await startDemoUpstream({ latencyMs: 0 });
    db = backendName === "postgres" ? postgresBackend(process.env.DATABASE_URL!) : pgliteBackend();
    schema = testSchema();
    const store = db.open(schema);
    server = await startTestServer({
      backend: backendName,
      llmUrl: upstream.url,
      store,
      workspace: (config) => {
        host = workspaceHostFromConfig(config);
        return host;
      },
    });
    existing = await validRunCompletes();
    listener = await furnishWorkspace(host, existing);
  }, 120_000);

  afterAll(async () => {
    await new Promise<void>((resolve) => (listener ? listener.close(() => resolve()) : resolve()));
    await server?.close();
    await server?.store.close();
    await db?.dropSchema(schema);
    await db?.dispose();
    await upstream?.stop();
  });

  it(`${RUNS} hostile requests over every route: none reaches 500, none writes a row`, async () => {
    const before = await counts();
    const seen = new Map<string, number>();
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(routes(existing), async (c) => {
        const res = await send(server.url, c);
        seen.set(c.route, (seen.get(c.route) ?? 0) + 1);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect(res.status, `${c.method} ${c.path.slice(0, 120)} -> ${res.text.slice(0, 300)}`).toBeLessThan(500);
        expect(res.status).toBeGreaterThanOrEqual(200);
        // Every refusal, under the CopilotKit mount too, is in the API's error shape.
        if (res.status >= 400) {
          expect(res.json?.error?.code, res.text.slice(0, 200)).toEqual(expect.any(String));
        }
        expect(await counts()).toEqual(before);
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
    // Every route got its share of the inputs.
    expect([...seen.keys()].sort()).toEqual(
      [
        "agents", "cancel", "connect", "connect cursor", "copilotkit connect", "copilotkit envelope", "copilotkit other", "copilotkit run", "copilotkit stop", "delete", "events", "get", "list", "run",
        "workspace", "workspace file",
      ].sort(),
    );
    for (const [route, n] of seen) expect(n, route).toBeGreaterThanOrEqual(100);
    // Most were refused, with the statuses of the error model.
    expect([...statuses.keys()].every((s) => s < 500)).toBe(true);
  }, 900_000);

  it("a body over MAX_BODY_BYTES gets 413 and writes nothing", async () => {
    const before = await counts();
    const res = await send(server.url, { method: "POST", path: "/api/agents/default/run", headers: J, body: OVER_BODY });
    expect(res.status).toBe(413);
    expect(res.json?.error?.code).toBe("PAYLOAD_TOO_LARGE");
    expect(await counts()).toEqual(before);
  });

  it("the server is alive afterwards: /healthz answers and a valid run completes", async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const before = await counts();
    await validRunCompletes();
    const after = await counts();
    expect(after.threads).toBe(before.threads + 1);
    expect(after.events).toBeGreaterThan(before.events);
  });
});
