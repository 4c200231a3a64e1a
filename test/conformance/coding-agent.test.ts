/**
 * The coding agent through the real @ag-ui/client (both versions) against aimock fixtures that
 * call its tools: write, edit, bash (live terminal output as CUSTOM "terminal"), a refused path
 * and run. Then: artifacts as CUSTOM "artifact" (the edit's with its unified diff), the
 * workspace routes (listing, file, bad path, unknown file and thread, another tenant), and the
 * terminal frames replayed by connect (without and with a cursor) equal to the live ones.
 */
import { randomUUID } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { LLMock, type Fixture } from "@copilotkit/aimock";
import type { Message } from "@ag-ui/core";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codingAgent } from "../../server/agents/coding-agent.ts";
import { workspaceHostFromConfig, type WorkspaceHost } from "../../server/workspace/tools.ts";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import { postSse } from "../support/sse-client.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";

const KEY = "tenant-a:key-a";
const OTHER = "tenant-b:key-b";
const auth = { authorization: "Bearer key-a" };
const call = (name: string, args: unknown) => ({ name, arguments: JSON.stringify(args) });
const fixtures: Fixture[] = [
  { match: { userMessage: "[reload]", hasToolResult: true }, response: { content: "Both lines printed." } },
  { match: { userMessage: "[reload]" }, response: { toolCalls: [call("bash", { command: "echo one; while [ ! -e go ]; do sleep 0.02; done; echo two" })] } },
  { match: { userMessage: "[code]", hasToolResult: true }, response: { content: "Done: hello.py prints its greeting." } },
  {
    match: { userMessage: "[code]" },
    response: {
      toolCalls: [
        call("write", { path: "src/hello.py", content: "print('hello')\n" }),
        call("edit", { path: "src/hello.py", old_string: "hello", new_string: "hello, sandbox" }),
        call("bash", { command: "python3 src/hello.py; echo oops >&2; exit 3" }),
        call("read", { path: "../../etc/passwd" }),
        call("run", { language: "node", code: "console.log(6 * 7)" }),
      ],
    },
  },
];

const sandboxed = existsSync("/usr/bin/bwrap");

describe.skipIf(!sandboxed).each(backends())("coding agent [%s]", (backend) => {
  let mock: LLMock;
  let server: TestServer;
  let host: WorkspaceHost | undefined;

  beforeAll(async () => {
    mock = new LLMock({ port: 0, host: "127.0.0.1", chunkSize: 20, logLevel: "silent", journalMaxEntries: 0 });
    mock.addFixtures(fixtures);
    const url = `${(await mock.start()).replace(/\/$/, "")}/v1`;
    // One host for the agent's tools and the server's routes: this server's (a temp DATA_DIR).
    const agent = codingAgent({ host: { get workspaces() { return host!.workspaces; }, get sandbox() { return host!.sandbox; } } });
    server = await startTestServer({
      backend,
      llmUrl: url,
      agents: [agent],
      env: { API_KEYS: `${KEY},${OTHER}` },
      workspace: (config) => (host = workspaceHostFromConfig(config)),
    });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await mock?.stop();
  });

  it.each(CLIENT_VERSIONS)("runs the workspace tools, streams the terminal and artifacts (@ag-ui/client %s)", async (version) => {
    const threadId = `code-${version}-${randomUUID().slice(0, 8)}`;
    const user: Message = { id: `u-${randomUUID()}`, role: "user", content: `[code] [${threadId}] write hello.py` };
    const out = await runClient(version, { url: `${server.url}/api/agents/coding/run`, headers: auth, input: { threadId, messages: [user] } });
    expect(out.failed, String(out.error)).toBe(false);

    const results = new Map<string, string>();
    const names = new Map<string, string>();
    for (const e of out.events) {
      if (e.type === "TOOL_CALL_START") names.set(e.toolCallId as string, e.toolCallName as string);
      if (e.type === "TOOL_CALL_RESULT") results.set(names.get(e.toolCallId as string)!, e.content as string);
    }
    expect(JSON.parse(results.get("write")!)).toMatchObject({ path: "src/hello.py", action: "created", size: 15 });
    expect(JSON.parse(results.get("edit")!)).toMatchObject({ path: "src/hello.py", replacements: 1 });
    const bash = JSON.parse(results.get("bash")!);
    expect(bash).toMatchObject({ exitCode: 3 });
    expect(bash.output).toContain("hello, sandbox\n");
    expect(bash.output).toContain("oops\n");
    expect(results.get("read")).toMatch(/refused: it leads out of the workspace/);
    expect(JSON.parse(results.get("run")!)).toMatchObject({ exitCode: 0, output: "42\n" });

    const custom = out.events.filter((e) => e.type === "CUSTOM");
    const artifacts = custom.filter((e) => e.name === "artifact").map((e) => e.value as Record<string, unknown>);
    expect(artifacts).toEqual([
      expect.objectContaining({ path: "src/hello.py", action: "created", fileType: "py", size: 15 }),
      expect.objectContaining({ path: "src/hello.py", action: "edited", fileType: "py", size: 24, diff: expect.stringContaining("-print('hello')\n+print('hello, sandbox')\n") }),
    ]);
    const terminal = custom.filter((e) => e.name === "terminal").map((e) => e.value as { toolCallId: string; stream: string; data: string });
    const bashId = [...names].find(([, n]) => n === "bash")![0];
    expect(terminal.filter((t) => t.toolCallId === bashId && t.stream === "stdout").map((t) => t.data).join("")).toBe("hello, sandbox\n");
    expect(terminal.filter((t) => t.toolCallId === bashId && t.stream === "stderr").map((t) => t.data).join("")).toBe("oops\n");

    // The workspace routes.
    const list = await request(server.url).get(`/api/threads/${threadId}/workspace`).set(auth);
    expect(list.status).toBe(200);
    expect(list.body.files).toEqual([{ path: "src/hello.py", size: 24, modifiedAt: expect.any(String), fileType: "py" }]);
    const file = await request(server.url).get(`/api/threads/${threadId}/workspace/file`).query({ path: "src/hello.py" }).set(auth);
    expect(file.status).toBe(200);
    expect(file.headers["content-type"]).toMatch(/^text\/plain/);
    expect(file.text).toBe("print('hello, sandbox')\n");
    for (const bad of ["../x", "/etc/passwd", "a\0b"]) {
      const r = await request(server.url).get(`/api/threads/${threadId}/workspace/file`).query({ path: bad }).set(auth);
      expect(r.status, bad).toBe(400);
      // A NUL is refused at the edge (input limits) before the route sees it.
      expect(r.body.error.code).toBe(bad.includes("\0") ? "UNSAFE_TEXT" : "INVALID_PATH");
    }
    expect((await request(server.url).get(`/api/threads/${threadId}/workspace/file`).query({ path: "nope.txt" }).set(auth)).status).toBe(404);
    expect((await request(server.url).get(`/api/threads/${threadId}/workspace/file`).set(auth)).status).toBe(400);
    expect((await request(server.url).get(`/api/threads/unknown-${threadId}/workspace`).set(auth)).status).toBe(404);
    // Another tenant's key: the thread does not exist for it.
    const other = { authorization: "Bearer key-b" };
    expect((await request(server.url).get(`/api/threads/${threadId}/workspace`).set(other)).status).toBe(404);
    expect((await request(server.url).get(`/api/threads/${threadId}/workspace/file`).query({ path: "src/hello.py" }).set(other)).status).toBe(404);
    expect((await request(server.url).get(`/api/threads/${threadId}/workspace`)).status).toBe(401);

    expect((await request(server.url).get(`/api/threads/unknown-${threadId}/workspace/file`).query({ path: "x" }).set(auth)).status).toBe(404);
  });

  it("a reload mid-command (connect without cursor) and a resume with a cursor replay the terminal frames the live client got", async () => {
    const threadId = `reload-${randomUUID().slice(0, 8)}`;
    const user: Message = { id: `u-${randomUUID()}`, role: "user", content: `[reload] [${threadId}]` };
    const live = runClient("1.0.0", { url: `${server.url}/api/agents/coding/run`, headers: auth, input: { threadId, messages: [user] } });
    // The command printed its first line and waits for the file "go".
    const stop = new AbortController();
    for await (const batch of server.store.follow(threadId, 0, stop.signal)) {
      if (batch.some((e) => e.type === "terminal.output" && e.data.data.includes("one"))) break;
    }
    stop.abort();
    const reload = await postSse(`${server.url}/api/agents/coding/connect`, { threadId }, auth);
    const dir = await host!.workspaces.existing(threadId, "default");
    writeFileSync(`/proc/self/fd/${dir!.fd}/go`, "");
    await dir!.close();
    const out = await live;
    const frames = await reload.done;
    const liveTerminal = out.events.filter((e) => e.type === "CUSTOM" && e.name === "terminal").map((e) => e.value);
    expect(liveTerminal.map((t) => (t as { data: string }).data).join("")).toBe("one\ntwo\n");
    const terminalFrames = frames.filter((f) => f.event.type === "CUSTOM" && f.event.name === "terminal");
    expect(terminalFrames.map((f) => f.event.value)).toEqual(liveTerminal);
    // With a cursor: exactly what followed it.
    const cursor = frames[frames.indexOf(terminalFrames[0]!) - 1]!.id!;
    const after = await (await postSse(`${server.url}/api/agents/coding/connect`, { threadId, lastSeenEventId: cursor }, auth)).done;
    expect(after.filter((f) => f.event.type === "CUSTOM" && f.event.name === "terminal").map((f) => f.event.value)).toEqual(liveTerminal);
  });
});
