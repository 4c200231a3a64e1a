/**
 * checkAgUiServer in process: an Express app, an http.Server (listening or not) and a URL as
 * targets; headers; each rule failed by a server that breaks it (and only a model's choice
 * left inconclusive); the response bounds (time, size) at their limits.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { checkAgUiServer, MAX_RESPONSE_BYTES, type ConformanceReport } from "../../conformance/index.ts";
import { expressAgent, type ExpressAgentFault } from "./support/express-agent.ts";

const CORE = ["sse-response", "sse-framing", "event-schema", "client-1.0", "client-0.0.59", "lifecycle", "ids", "multi-turn", "frontend-tool", "state", "bad-input"];
const names = (rules: ConformanceReport["passed"]) => rules.map((r) => r.name).sort();

describe("checkAgUiServer in process", () => {
  it("passes a correct Express app given as the app itself", async () => {
    const report = await checkAgUiServer(expressAgent(), { path: "/agent" });
    expect(report.failed).toEqual([]);
    expect(names(report.passed)).toEqual([...CORE].sort());
  });

  it("starts an http.Server that is not listening and closes it after; leaves a listening one listening", async () => {
    const idle = createServer(expressAgent());
    expect((await checkAgUiServer(idle, { path: "/agent" })).failed).toEqual([]);
    expect(idle.listening).toBe(false);

    const running = createServer(expressAgent());
    await new Promise<void>((r) => running.listen(0, "127.0.0.1", r));
    try {
      expect((await checkAgUiServer(running, { path: "/agent" })).failed).toEqual([]);
      expect(running.listening).toBe(true);
      const { port } = running.address() as AddressInfo;
      expect((await checkAgUiServer(`http://127.0.0.1:${port}/agent`)).failed).toEqual([]);
    } finally {
      running.closeAllConnections();
      await new Promise<void>((r) => running.close(() => r()));
    }
  });

  it("sends the headers given with every request", async () => {
    const app = expressAgent({ apiKey: "k1" });
    const without = await checkAgUiServer(app, { path: "/agent" });
    expect(without.failed.find((r) => r.name === "sse-response")?.detail).toMatch(/^HTTP 401/);
    const withKey = await checkAgUiServer(app, { path: "/agent", headers: { Authorization: "Bearer k1" } });
    expect(withKey.failed).toEqual([]);
  });

  it.each<{ fault: ExpressAgentFault; rule: string; detail: RegExp; frame?: RegExp }>([
    { fault: "wrong-run-id", rule: "ids", detail: /RUN_STARTED\.runId is "run-[^"]+-x", the request's is "run-/, frame: /"type":"RUN_STARTED"/ },
    { fault: "bad-delta", rule: "state", detail: /does not apply/, frame: /"path":"\/missing\/turns"/ },
    { fault: "stream-on-bad-input", rule: "bad-input", detail: /HTTP 200, expected 4xx/ },
    { fault: "crlf", rule: "sse-framing", detail: /a CR in the stream/, frame: /RUN_STARTED/ },
    { fault: "no-data-prefix", rule: "sse-framing", detail: /a line that is no SSE field/, frame: /^\{"type":"CUSTOM","name":"bare"/ },
    { fault: "answers-frontend-tool", rule: "frontend-tool", detail: /answered a frontend tool call itself/, frame: /TOOL_CALL_RESULT/ },
    { fault: "rejects-history", rule: "multi-turn", detail: /ended in RUN_ERROR/, frame: /NO_HISTORY/ },
    { fault: "cancelled-outcome", rule: "event-schema", detail: /0\.0\.59 rejects it/, frame: /"outcome":\{"type":"cancelled"\}/ },
  ])("fails $rule for the $fault fault, with the frame", async ({ fault, rule, detail, frame }) => {
    const report = await checkAgUiServer(expressAgent({ fault }), { path: "/agent" });
    const broken = report.failed.find((r) => r.name === rule);
    expect(broken, `failed: ${names(report.failed).join(", ")}`).toBeDefined();
    expect(broken!.detail).toMatch(detail);
    if (frame) expect(broken!.frame).toMatch(frame);
  });

  it("reports a model that never calls the offered tool as inconclusive, not failed", async () => {
    const report = await checkAgUiServer(expressAgent({ fault: "never-calls-tool" }), { path: "/agent" });
    expect(report.failed).toEqual([]);
    expect(report.unsupported.find((r) => r.name === "frontend-tool")?.detail).toMatch(/^inconclusive: the model did not call conformance_clock/);
  });

  it("reports a server it cannot reach as failed, with the reason", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((r) => closed.close(() => r()));
    const report = await checkAgUiServer(`http://127.0.0.1:${port}/agent`, { timeoutMs: 10_000 });
    expect(report.failed.find((r) => r.name === "sse-response")?.detail).toMatch(/^the request failed: fetch failed: .*ECONNREFUSED/);
    expect(report.passed).toEqual([]);
  });

  it("cuts a response that never ends at timeoutMs", async () => {
    const report = await checkAgUiServer(expressAgent({ fault: "never-ends" }), { path: "/agent", timeoutMs: 300 });
    const rule = report.failed.find((r) => r.name === "sse-response");
    expect(rule?.detail).toBe("the response did not end within 300 ms");
    expect(rule?.frame).toMatch(/RUN_STARTED/);
    expect(names(report.failed)).toContain("lifecycle");
  });

  it("cuts a response past maxResponseBytes, and reads one at the bound whole", async () => {
    expect(MAX_RESPONSE_BYTES).toBe(16 * 1024 * 1024);
    const bound = 64 * 1024;
    const over = await checkAgUiServer(expressAgent({ fault: "huge", hugeChars: bound }), { path: "/agent", maxResponseBytes: bound });
    expect(over.failed.find((r) => r.name === "sse-response")?.detail).toBe(`the response grew past the kit's bound of ${bound} bytes without ending`);
    // The largest of the kit's responses, measured, then allowed exactly: nothing is cut.
    const measured = await checkAgUiServer(expressAgent({ fault: "huge", hugeChars: bound / 2 }), { path: "/agent" });
    expect(measured.failed).toEqual([]);
    const largest = Number(/largest (\d+) bytes/.exec(measured.passed.find((r) => r.name === "sse-response")!.detail)?.[1]);
    const at = await checkAgUiServer(expressAgent({ fault: "huge", hugeChars: bound / 2 }), { path: "/agent", maxResponseBytes: largest });
    expect(at.failed).toEqual([]);
    const under = await checkAgUiServer(expressAgent({ fault: "huge", hugeChars: bound / 2 }), { path: "/agent", maxResponseBytes: largest - 1 });
    expect(names(under.failed)).toContain("sse-response");
  });
});
