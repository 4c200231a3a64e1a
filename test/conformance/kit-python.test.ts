/**
 * The kit against a server written in another language: the FastAPI agent of
 * test/fixtures/conformance-servers/agent.py passes; each of its faulty variants (`?fault=`)
 * fails with the rule it breaks named and the offending frame quoted. The command line is run
 * as a user runs it (node, the CLI file, a URL), for its exit codes and its report.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkAgUiServer, type ConformanceReport } from "../../conformance/index.ts";
import { pythonMissing, startPythonAgent, type PythonAgent } from "./support/python-agent.ts";

const missing = pythonMissing();
if (missing) process.stderr.write(`[conformance] SKIPPED the FastAPI agent suite: ${missing}\n`);

const CLI = fileURLToPath(new URL("../../conformance/cli.ts", import.meta.url));
const names = (rules: ConformanceReport["passed"]) => rules.map((r) => r.name).sort();

function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", "tsx", CLI, ...args], { encoding: "utf8" }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe.skipIf(missing !== undefined)("the conformance kit against a FastAPI agent", () => {
  let agent: PythonAgent;
  beforeAll(async () => {
    agent = await startPythonAgent();
  }, 90_000);
  afterAll(async () => {
    await agent?.close();
  });

  it("passes the correct agent, and reports the optional features it lacks as unsupported", async () => {
    const report = await checkAgUiServer(agent.url);
    expect(report.failed).toEqual([]);
    expect(names(report.passed)).toEqual(
      ["sse-response", "sse-framing", "event-schema", "client-1.0", "client-0.0.59", "lifecycle", "ids", "multi-turn", "frontend-tool", "state", "bad-input"].sort(),
    );
    expect(names(report.unsupported)).toEqual(["cancel", "capabilities", "connect", "interrupts", "resume"]);
  });

  it.each([
    { fault: "content-before-start", rule: "lifecycle", detail: /TEXT_MESSAGE_CONTENT .* before its TEXT_MESSAGE_START/, frame: /"type": "TEXT_MESSAGE_CONTENT"/ },
    { fault: "no-run-finished", rule: "lifecycle", detail: /ended without RUN_FINISHED or RUN_ERROR/, frame: /"type": "STATE_DELTA"/ },
    { fault: "malformed-json", rule: "sse-framing", detail: /data is not JSON/, frame: /^data: \{"type": "TEXT_MESSAGE_CONTENT", "messageId": "[^"]*$/ },
    { fault: "after-terminal", rule: "lifecycle", detail: /CUSTOM after the terminal RUN_FINISHED/, frame: /"type": "CUSTOM"/ },
  ])("fails the $fault variant on $rule, quoting the frame", async ({ fault, rule, detail, frame }) => {
    const report = await checkAgUiServer(`${agent.url}?fault=${fault}`);
    const broken = report.failed.find((r) => r.name === rule);
    expect(broken, `failed: ${names(report.failed).join(", ")}`).toBeDefined();
    expect(broken!.detail).toMatch(detail);
    expect(broken!.frame).toMatch(frame);
    expect(broken!.scenario).toBe("chat");
    // What the fault does not touch still passes.
    expect(names(report.passed)).toEqual(expect.arrayContaining(["sse-response", "ids", "bad-input"]));
  });

  it("the command exits 0 with a JSON report for the correct agent, 1 with the broken frame for a faulty one", async () => {
    const good = await runCli([agent.url, "--json", "--header", "X-Conformance: yes"]);
    expect(good.code, good.stderr).toBe(0);
    const report = JSON.parse(good.stdout) as ConformanceReport;
    expect(report.failed).toEqual([]);
    expect(report.passed.length).toBe(11);

    const bad = await runCli([`${agent.url}?fault=after-terminal`]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("FAIL  lifecycle: CUSTOM after the terminal RUN_FINISHED");
    expect(bad.stdout).toContain('data: {"type": "CUSTOM", "name": "late", "value": 1}');
    expect(bad.stdout).toMatch(/\d+ passed, [1-9]\d* failed, \d+ unsupported or inconclusive/);
  });

  it("the command refuses bad usage with exit 2 and says why", async () => {
    expect(await runCli([])).toMatchObject({ code: 2, stderr: expect.stringContaining("Give exactly one URL.") });
    expect(await runCli(["not a url"])).toMatchObject({ code: 2, stderr: expect.stringContaining('"not a url" is not a URL.') });
    expect(await runCli([agent.url, "--header", "NoColon"])).toMatchObject({ code: 2, stderr: expect.stringContaining('is not "Name: value"') });
  });
});
