/**
 * Threadline checks itself with the kit it ships: checkAgUiServer (library form) against an
 * Express app of the test's own with Threadline's router() mounted at /ai, on every backend,
 * with an aimock upstream scripted for the kit's prompts. No rule may fail; the rules only a
 * server with connect, cursors and capabilities can pass are expected to pass here too.
 */
import type { Fixture } from "@copilotkit/aimock";
import { LLMock } from "@copilotkit/aimock";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkAgUiServer, KIT_PROMPTS, KIT_TOOL, type ConformanceReport } from "../../conformance/index.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";

const fixtures: Fixture[] = [
  { match: { userMessage: KIT_PROMPTS.followUp }, response: { content: "Goodbye, and thank you for the chat." } },
  { match: { userMessage: KIT_PROMPTS.chat }, response: { content: "Hello there, nice to meet you." } },
  // First match wins: the turn carrying the tool result before the turn that asks for the call.
  { match: { userMessage: KIT_PROMPTS.tool, hasToolResult: true }, response: { content: "The clock says it is 12:34." } },
  { match: { userMessage: KIT_PROMPTS.tool }, response: { toolCalls: [{ name: KIT_TOOL.name, arguments: "{}" }] } },
];

/** Migrations on a fresh PGlite take seconds, more on a loaded machine. */
const START_TIMEOUT_MS = 120_000;
const ROOT = path.resolve(import.meta.dirname, "../..");

const names = (rules: ConformanceReport["passed"]) => rules.map((r) => r.name).sort();

describe.each(backends())("the conformance kit against Threadline [%s]", (backend) => {
  let mock: LLMock;
  let server: TestServer;
  beforeAll(async () => {
    mock = new LLMock({ port: 0, host: "127.0.0.1", chunkSize: 6, logLevel: "silent" });
    mock.addFixtures(fixtures);
    const mockUrl = `${(await mock.start()).replace(/\/$/, "")}/v1`;
    server = await startTestServer({ backend, llmUrl: mockUrl });
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await server?.close();
    await mock?.stop();
  });

  it("passes every rule through router() mounted in an app, the optional ones included", async () => {
    const app = express();
    app.use("/ai", server.threadline.router());
    const deleteThread = async (threadId: string) => {
      const res = await fetch(`${server.url}/api/threads/${encodeURIComponent(threadId)}`, { method: "DELETE" });
      if (!res.ok) throw new Error(`DELETE answered ${res.status}`);
    };
    const report = await checkAgUiServer(app, { agentPath: "/ai/agents/default", deleteThread });

    expect(report.failed).toEqual([]);
    // The kit's threads, deleted once every rule was judged: nothing of the check is left.
    expect(report.threads).toHaveLength(2);
    expect(report.threads.every((t) => t.startsWith("agui-conformance-"))).toBe(true);
    expect(report.cleanup).toEqual({ deleted: report.threads, failed: [] });
    for (const t of report.threads) expect(await server.store.getThread(t)).toBeNull();
    expect(names(report.passed)).toEqual(
      [
        "sse-response",
        "sse-framing",
        "event-schema",
        "client-1.0",
        "client-0.0.59",
        "lifecycle",
        "ids",
        "multi-turn",
        "frontend-tool",
        "state",
        "bad-input",
        "connect",
        "resume",
        "capabilities",
      ].sort(),
    );
    // Each real client's verdict names the package and version that ran.
    const detail = (name: string) => report.passed.find((r) => r.name === name)?.detail;
    expect(detail("client-1.0")).toMatch(/^@ag-ui\/client@1\.0\.0 accepted \d+ streams/);
    expect(detail("client-0.0.59")).toMatch(/^@ag-ui\/client-0059@0\.0\.59 accepted \d+ streams/);
    // What no probe of the kit can decide against any server.
    expect(names(report.unsupported)).toEqual(["cancel", "interrupts"]);
    // The aimock upstream was asked for each of the kit's turns.
    const asked = mock.getRequests().filter((e) => e.path.includes("/chat/completions")).length;
    expect(asked).toBeGreaterThanOrEqual(4);
  });

  it("the command's --delete-url deletes the kit's threads after the check, and says so", async () => {
    const agentPath = "/api/agents/default";
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", path.join(ROOT, "conformance/cli.ts"), server.url, "--agent-path", agentPath, "--delete-url", `${server.url}/api/threads/{threadId}`], { cwd: ROOT });
    expect(stdout).toMatch(/\nthreads deleted after the check: 2 of 2\n/);
    const listed = (await (await fetch(`${server.url}/api/threads?limit=200`)).json()) as { threads: { threadId: string }[] };
    const left = listed.threads.filter((t) => t.threadId.startsWith("agui-conformance-"));
    // The library test above deleted its own; this run's are gone too.
    expect(left).toEqual([]);
  }, START_TIMEOUT_MS);

  it("runs 0.0.59 installed under its own name as the 0.0.59 client, and says 1.x is missing rather than mislabelling it", async () => {
    // An application with only @ag-ui/client@0.0.59, installed as @ag-ui/client.
    const project = mkdtempSync(path.join(tmpdir(), "kit-clients-"));
    try {
      mkdirSync(path.join(project, "node_modules", "@ag-ui"), { recursive: true });
      symlinkSync(realpathSync(path.join(ROOT, "node_modules", "@ag-ui", "client-0059")), path.join(project, "node_modules", "@ag-ui", "client"));
      const app = express();
      app.use("/ai", server.threadline.router());
      const report = await checkAgUiServer(app, { agentPath: "/ai/agents/default", resolveClientsFrom: path.join(project, "app.js") });
      expect(report.failed).toEqual([]);
      expect(report.passed.find((r) => r.name === "client-0.0.59")?.detail).toMatch(/^@ag-ui\/client@0\.0\.59 accepted \d+ streams/);
      expect(report.unsupported.find((r) => r.name === "client-1.0")?.detail).toMatch(/^inconclusive: the installed @ag-ui\/client@0\.0\.59 is not 1\.x \(npm i -D @ag-ui\/client@1 to run it/);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
