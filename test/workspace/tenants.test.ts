/**
 * Tenants own their directories: with WORKSPACE_ROOT set, a run's workingDirectory is resolved
 * inside its tenant's part of the root (the root itself for the default tenant, `tenants/<name>`
 * for the others), so two tenants naming the same directory never share it, and no name leads
 * from one part into another.
 */
import { chownSync, mkdirSync, mkdtempSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolContext, ToolDefinition } from "../../server/agents/define.ts";
import { loadConfig } from "../../server/config.ts";
import { workspaceHostFromConfig, workspaceTools, type WorkspaceHost } from "../../server/workspace/tools.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
import { testToolContext } from "../support/tool-context.ts";

let root: string;
let host: WorkspaceHost;
let tools: Map<string, ToolDefinition>;

const ctx = (threadId: string, tenantId: string, workingDirectory?: string): ToolContext =>
  testToolContext({ threadId, tenantId, forwardedProps: workingDirectory === undefined ? undefined : { threadline: { workingDirectory } } });

async function call(name: string, args: unknown, context: ToolContext): Promise<{ ok: boolean; text: string }> {
  const tool = tools.get(name)!;
  try {
    return { ok: true, text: JSON.stringify(await tool.execute(tool.inputSchema.parse(args), context)) };
  } catch (err) {
    return { ok: false, text: (err as Error).message };
  }
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "tenants-"));
  host = workspaceHostFromConfig(loadConfig({ DATA_DIR: root, WORKSPACE_ROOT: root }));
  tools = new Map(workspaceTools({ host }).map((t) => [t.name, t]));
  // The operator's checkouts: one per tenant, all named "proj", and one of the default tenant's.
  // given to the sandbox's user, whose commands and files work there.
  for (const part of ["tenants/acme/proj", "tenants/globex/proj", "proj"]) {
    mkdirSync(join(root, part), { recursive: true });
    const owner = host.workspaces.opts.owner;
    if (owner) chownSync(join(root, part), owner.uid, owner.gid);
  }
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("tenants' workspaces", () => {
  it("two tenants naming one workingDirectory get two directories, and neither reads the other's file", async () => {
    const a = ctx("thread-a", "acme", "proj");
    const b = ctx("thread-b", "globex", "proj");
    expect((await call("write", { path: "secret.txt", content: "acme's\n" }, a)).ok).toBe(true);
    const read = await call("read", { path: "secret.txt" }, b);
    expect(read).toEqual({ ok: false, text: expect.stringMatching(/does not exist/) });
    expect((await call("read", { path: "secret.txt" }, a)).text).toContain("acme's");
    // What the workspace routes open for each thread (existing(): the thread's bound directory).
    const dirA = await host.workspaces.existing("thread-a", "acme");
    const dirB = await host.workspaces.existing("thread-b", "globex");
    expect(readlinkSync(`/proc/self/fd/${dirA!.fd}`)).toBe(join(root, "tenants/acme/proj"));
    expect(readlinkSync(`/proc/self/fd/${dirB!.fd}`)).toBe(join(root, "tenants/globex/proj"));
    expect((await host.workspaces.list(dirB!)).files).toEqual([]);
    await Promise.all([dirA!.close(), dirB!.close()]);
    // The default tenant's "proj" is a third directory.
    expect(await call("read", { path: "secret.txt" }, ctx("thread-c", "default", "proj"))).toMatchObject({ ok: false });
  });

  it.each([
    ["globex", "../acme/proj", /not a directory inside your part/],
    ["globex", "proj/../../acme/proj", /not a directory inside your part/],
    ["globex", `/tenants/acme/proj`, /not inside your part/],
    ["default", "tenants/acme/proj", /server's own "tenants"/],
    ["default", ".threadline/threads", /server's own ".threadline"/],
    ["acme", "missing", /does not exist in your part/],
  ])("tenant %s naming %j is refused: %s", async (tenant, dir, reason) => {
    const r = await call("ls", {}, ctx(`thread-${tenant}-x`, tenant, dir.startsWith("/") ? join(root, dir) : dir));
    expect(r).toEqual({ ok: false, text: expect.stringMatching(reason) });
  });

  it("an absolute workingDirectory inside the tenant's own part is accepted", async () => {
    const r = await call("ls", {}, ctx("thread-abs", "acme", join(root, "tenants/acme/proj")));
    expect(r.ok).toBe(true);
    expect(r.text).toContain("secret.txt");
  });
});

describe.each(backends())("a run naming a workingDirectory [%s]", (backend) => {
  let server: TestServer;
  let workspaceRoot: string;

  beforeAll(async () => {
    workspaceRoot = mkdtempSync(join(tmpdir(), "tenants-http-"));
    mkdirSync(join(workspaceRoot, "tenants/acme/proj"), { recursive: true });
    server = await startTestServer({ backend, env: { WORKSPACE_ROOT: workspaceRoot, API_KEYS: "acme:key-acme,globex:key-globex" } });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(workspaceRoot, { recursive: true, force: true });
  });

  const run = (key: string, threadId: string, workingDirectory: string) =>
    request(server.url)
      .post("/api/agents/default/run")
      .set({ authorization: `Bearer ${key}`, accept: "text/event-stream" })
      .send({ threadId, runId: randomUUID(), messages: [{ id: randomUUID(), role: "user", content: "hi" }], forwardedProps: { threadline: { workingDirectory } } });

  it("is refused with 400 before admission when the directory is not in the tenant's part, and nothing is written", async () => {
    for (const dir of ["../acme/proj", "proj", "/etc"]) {
      const threadId = `wd-${randomUUID().slice(0, 8)}`;
      const res = await run("key-globex", threadId, dir);
      expect(res.status, dir).toBe(400);
      expect(res.body.error).toMatchObject({ code: "INVALID_WORKING_DIRECTORY", issues: [{ path: "/forwardedProps/threadline/workingDirectory" }] });
      expect(await server.store.getThread(threadId, "globex")).toBeNull();
    }
  });

  it("is admitted when the directory is the tenant's own", async () => {
    const res = await run("key-acme", `wd-${randomUUID().slice(0, 8)}`, "proj");
    expect(res.status).toBe(200);
    expect(res.text).toContain("RUN_FINISHED");
  });
});
