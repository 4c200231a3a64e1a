/**
 * The edge, request by request: JSON-only state changes, the Origin rule, /metrics protection,
 * the input limits as a client sees them (JSON pointer and limit, nothing written), and each
 * request that used to reach a 500, now a 4xx of the error model.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoUpstream } from "../support/demo-upstream.ts";
import { socketOrigins } from "../../server/http/web.ts";
import type { EventStore } from "../../server/store/types.ts";
import { backends, openStore, startTestServer, type TestServer } from "../support/server.ts";
import { send } from "./raw-http.ts";

const J = { "content-type": "application/json" };
const run = (threadId: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ threadId, runId: `r-${threadId}`, messages: [{ id: `m-${threadId}`, role: "user", content: "hi" }], ...extra });

describe("socketOrigins: this server's origins from the connection's local address", () => {
  it("loopback gives the three loopback names at the port; another interface gives its own address", () => {
    const loop = ["http://localhost:3000", "https://localhost:3000", "http://127.0.0.1:3000", "https://127.0.0.1:3000", "http://[::1]:3000", "https://[::1]:3000"];
    expect(socketOrigins("127.0.0.1", 3000).sort()).toEqual([...loop].sort());
    expect(socketOrigins("::ffff:127.0.0.1", 3000).sort()).toEqual([...loop].sort());
    expect(socketOrigins("::1", 3000).sort()).toEqual([...loop].sort());
    expect(socketOrigins("::ffff:192.168.1.5", 8080)).toEqual(["http://192.168.1.5:8080", "https://192.168.1.5:8080"]);
    expect(socketOrigins("fe80::1", 3000)).toEqual(["http://[fe80::1]:3000", "https://[fe80::1]:3000"]);
    // A default port is absent from an Origin header, as browsers send it.
    expect(socketOrigins("127.0.0.1", 80)).toContain("http://localhost");
    expect(socketOrigins(undefined, undefined)).toEqual([]);
  });
});

describe.each(backends())("the edge on %s", (backend) => {
  let upstream: Awaited<ReturnType<typeof startDemoUpstream>>;
  let server: TestServer;
  let guarded: TestServer;
  let keyed: TestServer;
  let store: EventStore;
  beforeAll(async () => {
    upstream = await startDemoUpstream({ latencyMs: 0 });
    // One database for the three servers (instances of one deployment): a PGlite store takes
    // seconds of CPU to create and migrate, three of them outlasted the hook on a loaded machine,
    // and guarded and keyed only serve /metrics and /healthz.
    store = openStore(backend);
    server = await startTestServer({ backend, store, llmUrl: upstream.url, env: { ALLOWED_ORIGINS: "https://app.example.com, http://localhost:5173" } });
    guarded = await startTestServer({ backend, store, llmUrl: upstream.url, env: { METRICS_TOKEN: "scrape-me" } });
    keyed = await startTestServer({ backend, store, llmUrl: upstream.url, env: { API_KEYS: "k1,k2" } });
  });
  afterAll(async () => {
    await Promise.all([server?.close(), guarded?.close(), keyed?.close()]);
    await store?.close();
    await upstream?.stop();
  });

  const noThread = async (threadId: string) => expect(await server.store.getThread(threadId)).toBeNull();

  describe("state-changing requests accept only JSON", () => {
    it.each([
      ["text/plain", "/api/agents/default/run"],
      ["application/x-www-form-urlencoded", "/api/agents/default/run"],
      ["multipart/form-data; boundary=x", "/api/agents/default/run"],
      ["text/plain", "/api/copilotkit/agent/default/run"],
      ["text/plain", "/api/agents/default/connect"],
    ])("%s to %s: 415, nothing written", async (type, path) => {
      const res = await send(server.url, { method: "POST", path, headers: { "content-type": type }, body: run("t-415") });
      expect(res.status).toBe(415);
      expect(res.json?.error?.code).toBe("UNSUPPORTED_MEDIA_TYPE");
      expect(res.json?.error?.message).toMatch(/Content-Type: application\/json/);
      await noThread("t-415");
    });

    it("a POST with no body and no Content-Type (cancel) reaches its route", async () => {
      const res = await send(server.url, { method: "POST", path: "/api/threads/nope/cancel" });
      expect(res.status).toBe(404);
      expect(res.json?.error?.code).toBe("THREAD_NOT_FOUND");
    });
  });

  describe("Origin", () => {
    it("a foreign origin may not start a run (403 with how to allow it), nor cancel or delete", async () => {
      const res = await send(server.url, { method: "POST", path: "/api/agents/default/run", headers: { ...J, origin: "https://evil.example" }, body: run("t-origin") });
      expect(res.status).toBe(403);
      expect(res.json?.error?.code).toBe("ORIGIN_NOT_ALLOWED");
      expect(res.json?.error?.message).toMatch(/ALLOWED_ORIGINS/);
      await noThread("t-origin");
      for (const [method, path] of [["POST", "/api/threads/x/cancel"], ["DELETE", "/api/threads/x"], ["POST", "/api/copilotkit/agent/default/run"]] as const) {
        expect((await send(server.url, { method, path, headers: { origin: "https://evil.example" } })).status, path).toBe(403);
      }
      expect((await send(server.url, { method: "POST", path: "/api/threads/x/cancel", headers: { origin: "null" } })).status).toBe(403);
    });

    it("the server's own origin, an allowed one, and none at all pass; reads are not checked", async () => {
      const { port } = new URL(server.url);
      const own = [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`, `http://LOCALHOST:${port}/`];
      for (const origin of [...own, "https://app.example.com", "http://localhost:5173", undefined]) {
        const res = await send(server.url, { method: "POST", path: "/api/threads/nope/cancel", headers: origin ? { origin } : {} });
        expect(res.status, String(origin)).toBe(404);
      }
      expect((await send(server.url, { method: "GET", path: "/api/threads", headers: { origin: "https://evil.example" } })).status).toBe(200);
    });

    it("DNS rebinding: Host and Origin both evil.example at our port get 403 on every state-changing route, and nothing is written", async () => {
      const { port } = new URL(server.url);
      const rebound = { host: `evil.example:${port}`, origin: `http://evil.example:${port}` };
      const res = await send(server.url, { method: "POST", path: "/api/agents/default/run", headers: { ...J, ...rebound }, body: run("t-rebind") });
      expect(res.status).toBe(403);
      expect(res.json?.error).toMatchObject({ code: "ORIGIN_NOT_ALLOWED", origin: rebound.origin });
      expect(res.json?.error?.message).toMatch(/ALLOWED_ORIGINS/);
      await noThread("t-rebind");
      for (const [method, path] of [["POST", "/api/threads/t-rebind/cancel"], ["DELETE", "/api/threads/t-rebind"], ["POST", "/api/copilotkit/agent/default/run"]] as const) {
        const r = await send(server.url, { method, path, headers: { ...J, ...rebound }, body: method === "POST" ? run("t-rebind") : undefined });
        expect(r.status, path).toBe(403);
        expect(r.json?.error?.code, path).toBe("ORIGIN_NOT_ALLOWED");
      }
      // Another port of our own host name is another origin too.
      const otherPort = await send(server.url, { method: "POST", path: "/api/threads/nope/cancel", headers: { origin: `http://127.0.0.1:${Number(port) + 1}` } });
      expect(otherPort.status).toBe(403);
      await noThread("t-rebind");
    });
  });

  describe("/metrics", () => {
    it("is open when neither METRICS_TOKEN nor API_KEYS is set", async () => {
      expect((await send(server.url, { method: "GET", path: "/metrics" })).status).toBe(200);
    });
    it("needs METRICS_TOKEN when it is set", async () => {
      expect((await send(guarded.url, { method: "GET", path: "/metrics" })).status).toBe(401);
      expect((await send(guarded.url, { method: "GET", path: "/metrics", headers: { authorization: "Bearer nope" } })).status).toBe(401);
      const ok = await send(guarded.url, { method: "GET", path: "/metrics", headers: { authorization: "Bearer scrape-me" } });
      expect(ok.status).toBe(200);
      expect(ok.text).toMatch(/# HELP/);
    });
    it("needs an API key when API_KEYS is set and METRICS_TOKEN is not", async () => {
      expect((await send(keyed.url, { method: "GET", path: "/metrics" })).status).toBe(401);
      expect((await send(keyed.url, { method: "GET", path: "/metrics", headers: { authorization: "Bearer k2" } })).status).toBe(200);
      expect((await send(keyed.url, { method: "GET", path: "/healthz" })).status).toBe(200);
    });
  });

  describe("input limits as a client sees them", () => {
    it("forwardedProps nested 5,000 deep: 400 naming the pointer and the limit, nothing written, server alive", async () => {
      const deep = `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`;
      const body = `${run("t-deep").slice(0, -1)},"forwardedProps":{"x/y":{"~":${deep}}}}`;
      const res = await send(server.url, { method: "POST", path: "/api/agents/default/run", headers: J, body });
      expect(res.status).toBe(400);
      expect(res.json?.error?.code).toBe("INPUT_LIMIT_EXCEEDED");
      expect(res.json?.error?.issues).toEqual([
        { path: `/forwardedProps/x~1y/~0${"/a".repeat(61)}`, limit: "MAX_JSON_DEPTH", max: 64, message: expect.stringMatching(/64/) },
      ]);
      await noThread("t-deep");
      expect((await send(server.url, { method: "GET", path: "/healthz" })).status).toBe(200);
    });

    it("NUL and lone surrogates in values and keys: 400 UNSAFE_TEXT for each, nothing written", async () => {
      const body = run("t-nul", { state: { "k\u0000": "v", ok: "\uD800" } });
      const res = await send(server.url, { method: "POST", path: "/api/agents/default/run", headers: J, body });
      expect(res.status).toBe(400);
      expect(res.json?.error?.code).toBe("UNSAFE_TEXT");
      expect(res.json?.error?.issues?.map((i) => [i.path, i.limit])).toEqual([
        ["/state/k\u0000", "UNSAFE_TEXT"],
        ["/state/ok", "UNSAFE_TEXT"],
      ]);
      await noThread("t-nul");
    });

    it("a string over MAX_STRING_BYTES: 413 naming it", async () => {
      const res = await send(server.url, { method: "POST", path: "/api/agents/default/run", headers: J, body: run("t-big", { state: { s: "x".repeat(1024 * 1024 + 1) } }) });
      expect(res.status).toBe(413);
      expect(res.json?.error?.issues).toMatchObject([{ path: "/state/s", limit: "MAX_STRING_BYTES", max: 1024 * 1024 }]);
      await noThread("t-big");
    });
  });

  describe("requests that used to reach a 500", () => {
    it.each([
      ["GET", "/api/threads?cursor=abc", {}, 400, "INVALID_QUERY"],
      ["GET", "/api/threads?agentId=%00", {}, 400, "UNSAFE_TEXT"],
      ["GET", "/api/threads/x/events", { accept: "text/event-stream", "last-event-id": "abc" }, 400, "INVALID_CURSOR"],
      ["GET", "/api/threads/x/events", { accept: "text/event-stream", "last-event-id": "1e400" }, 400, "INVALID_CURSOR"],
      ["GET", "/api/threads/x/events", { accept: "text/event-stream", "last-event-id": "-1" }, 400, "INVALID_CURSOR"],
      ["GET", "/api/threads/x/events?after=99999999999999999999", {}, 400, "INVALID_QUERY"],
      ["GET", "/api/threads/%00", {}, 400, "INVALID_ID"],
      ["GET", "/api/threads/%zz", {}, 400, "BAD_REQUEST"],
      ["DELETE", "/api/threads/%zz", {}, 400, "BAD_REQUEST"],
      ["POST", "/api/threads/a%00b/cancel", J, 400, "INVALID_ID"],
      ["GET", `/api/threads/${"t".repeat(201)}`, {}, 400, "INVALID_ID"],
      ["POST", "/api/agents/__proto__/run", J, 404, "AGENT_NOT_FOUND"],
      ["POST", "/api/agents/constructor/connect", J, 404, "AGENT_NOT_FOUND"],
      ["POST", "/api/copilotkit/agent/__proto__/run", J, 404, "AGENT_NOT_FOUND"],
      ["POST", "/api/copilotkit/agent/constructor/connect", J, 404, "AGENT_NOT_FOUND"],
      ["POST", "/api/copilotkit/transcribe", J, 404, "NOT_FOUND"],
      ["POST", "/api/agents/default/run", { ...J, "content-encoding": "br2" }, 415, "UNSUPPORTED_ENCODING"],
      ["POST", "/api/agents/default/run", { "content-type": "application/json; charset=koi9" }, 415, "UNSUPPORTED_ENCODING"],
    ] as const)("%s %s %j: %d %s", async (method, path, headers, status, code) => {
      const res = await send(server.url, { method, path, headers, body: method === "POST" ? run("t-500") : undefined });
      expect(res.status, res.text.slice(0, 300)).toBe(status);
      expect(res.json?.error?.code).toBe(code);
      expect(res.json?.error?.message?.length).toBeGreaterThan(20);
      await noThread("t-500");
    });

    it("a thread id of 201 characters in a run body is refused like one in a path", async () => {
      const res = await send(server.url, { method: "POST", path: "/api/agents/default/run", headers: J, body: run("t".repeat(201)) });
      expect(res.status).toBe(400);
      expect(res.json?.error?.issues).toContainEqual({ path: "threadId", message: "must be at most 200 characters" });
    });
  });
});
