/**
 * The log lines to debug with, captured from pino's destination: one "request" line per request
 * (method, route pattern, status, duration, request id, tenant, thread, run), one "run ended"
 * line per run (agent, tenant, outcome, error code, duration, tokens), the request id in every
 * line of a run; and the request id in the response header and in the run's RUN_ERROR, which
 * both @ag-ui/client versions accept, live and in a replay.
 */
import { randomUUID } from "node:crypto";
import { LLMock } from "@copilotkit/aimock";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import { expectAccepted, ofType } from "../conformance/support/expect.ts";
import { backends, startTestServer } from "../support/server.ts";
import { postSse } from "../support/sse-client.ts";
import { lastUserText, runBody, user } from "./support.ts";

type Line = Record<string, unknown> & { level: number; msg: string };

/** pino writing into an array: each line parsed as it is written. */
function capturedLogger() {
  const lines: Line[] = [];
  const logger = pino({ level: "debug" }, { write: (s: string) => void lines.push(JSON.parse(s) as Line) });
  return { logger, lines };
}

async function startUpstream(): Promise<{ mock: LLMock; url: string }> {
  const mock = new LLMock({ port: 0, host: "127.0.0.1", latency: 0, logLevel: "silent" });
  mock.addFixtures([
    { match: { predicate: (req) => lastUserText(req).includes("[boom]") }, response: { error: { message: "upstream exploded", type: "server_error" }, status: 500 } },
    { match: { predicate: () => true }, response: (req) => ({ content: `answer to: ${lastUserText(req)}` }) },
  ]);
  const base = await mock.start();
  return { mock, url: `${base.replace(/\/$/, "")}/v1` };
}

describe.each(backends())("logs on %s", (backend) => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  beforeAll(async () => {
    upstream = await startUpstream();
  });
  afterAll(() => upstream.mock.stop());

  it("twelve requests, one refused with 400, make twelve request lines; each run ends with one line", { timeout: 60_000 }, async () => {
    const { logger, lines } = capturedLogger();
    const server = await startTestServer({ backend, llmUrl: upstream.url, logger });
    const sent: { res: Response | { status: number; headers: Headers }; method: string; route: string }[] = [];
    const request = async (method: string, route: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { ...(body !== undefined && { "content-type": "application/json" }), ...headers },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      await res.arrayBuffer(); // the whole response: streams included
      sent.push({ res, method, route });
      return res;
    };
    const ok = runBody("t-ok", [user("hello")]);
    const boom = runBody("t-boom", [user("[boom] now")]);
    try {
      await request("GET", "/healthz", "/healthz");
      await request("GET", "/api/agents", "/api/agents");
      await request("GET", "/api/agents/:agentId", "/api/agents/default");
      await request("POST", "/api/agents/:agentId/run", "/api/agents/default/run", ok, { "X-Request-Id": "req-ok-1" });
      const refused = await request("POST", "/api/agents/:agentId/run", "/api/agents/default/run", { threadId: "t-ok" });
      expect(refused.status).toBe(400);
      await request("POST", "/api/agents/:agentId/run", "/api/agents/default/run", boom, { "X-Request-Id": "req-boom-1" });
      await request("GET", "/api/threads", "/api/threads");
      await request("GET", "/api/threads/:threadId", "/api/threads/t-ok", undefined, { "X-Request-Id": "not a request id!" });
      await request("GET", "/api/threads/:threadId/events", "/api/threads/t-ok/events");
      await request("POST", "/api/agents/:agentId/connect", "/api/agents/default/connect", { threadId: "t-ok" });
      await request("POST", "/api/threads/:threadId/cancel", "/api/threads/t-ok/cancel");
      await request("GET", "/api/*", "/api/no-such-route?apiKey=secret");
    } finally {
      await server.close(); // every response has closed, and logged, by then
    }

    const requestLines = lines.filter((l) => l.msg === "request");
    expect(requestLines).toHaveLength(12);
    requestLines.forEach((line, i) => {
      const { res, method, route } = sent[i]!;
      expect(line).toMatchObject({ method, route, status: res.status, requestId: res.headers.get("x-request-id") });
      expect(typeof line.durationMs).toBe("number");
      if (route !== "/healthz") expect(line.tenantId).toBe("default");
    });
    // The client's id when it is one; a fresh one when it is not.
    expect(requestLines[3]).toMatchObject({ requestId: "req-ok-1", threadId: "t-ok", runId: ok.runId, status: 200 });
    expect(requestLines[4]).toMatchObject({ status: 400, threadId: "t-ok" });
    expect(requestLines[7]!.requestId).toMatch(/^[0-9a-f-]{36}$/);
    // Probes log at debug; the rest at info. No query string (it may carry a key).
    expect(requestLines[0]!.level).toBe(20);
    expect(requestLines.slice(1).every((l) => l.level === 30)).toBe(true);
    expect(requestLines[11]).toMatchObject({ path: "/api/no-such-route", status: 404 });
    expect(JSON.stringify(lines)).not.toContain("secret");

    const ends = lines.filter((l) => l.msg === "run ended");
    expect(ends).toHaveLength(2);
    const okEnd = ends.find((l) => l.runId === ok.runId)!;
    expect(okEnd).toMatchObject({ requestId: "req-ok-1", threadId: "t-ok", agentId: "default", tenantId: "default", outcome: "waiting" });
    expect(okEnd.errorCode).toBeUndefined();
    expect((okEnd.tokens as { totalTokens: number }).totalTokens).toBeGreaterThan(0);
    expect(typeof okEnd.durationMs).toBe("number");
    const boomEnd = ends.find((l) => l.runId === boom.runId)!;
    expect(boomEnd).toMatchObject({ requestId: "req-boom-1", agentId: "default", tenantId: "default", outcome: "failed", errorCode: "UPSTREAM_HTTP_500" });
    // Every line about the failed run names the request that posted it.
    const ofRun = lines.filter((l) => l.runId === boom.runId);
    expect(ofRun.length).toBeGreaterThanOrEqual(2);
    expect(ofRun.every((l) => l.requestId === "req-boom-1")).toBe(true);
  });

  it.each(CLIENT_VERSIONS)("RUN_ERROR names the request id, live and in a replay (@ag-ui/client %s)", async (version) => {
    const server = await startTestServer({ backend, llmUrl: upstream.url });
    try {
      const threadId = `t-${randomUUID()}`;
      const requestId = `req-${randomUUID()}`;
      const out = await runClient(version, {
        url: `${server.url}/api/agents/default/run`,
        input: { threadId, messages: [{ id: `u-${randomUUID()}`, role: "user", content: "[boom] now" }] },
        headers: { "X-Request-Id": requestId },
      });
      expectAccepted(out);
      expect(ofType(out.events, "RUN_ERROR")).toEqual([expect.objectContaining({ code: "UPSTREAM_HTTP_500", metadata: { requestId } })]);
      // The replay is the log's: the same id, from any connect, on any instance.
      const replay = await (await postSse(`${server.url}/api/agents/default/connect`, { threadId, lastSeenEventId: "0" })).done;
      expect(replay.filter((f) => f.event.type === "RUN_ERROR").map((f) => f.event)).toEqual([expect.objectContaining({ metadata: { requestId } })]);
    } finally {
      await server.close();
    }
  });
});
