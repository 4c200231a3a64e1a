/**
 * Two tenants (and the default one) on one server: a thread belongs to the tenant whose key
 * created it, and every route, the CopilotKit runtime's included, answers another tenant as it
 * answers an unknown thread. Each refusal is checked to have changed nothing: status, event
 * count and run rows of the owner's thread stay as they were.
 */
import type { LLMock } from "@copilotkit/aimock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultAgent } from "../../server/agents/default-agent.ts";
import { ConfigError, loadConfig } from "../../server/config.ts";
import { DEFAULT_TENANT } from "../../server/tenant.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
import { postSse } from "../support/sse-client.ts";
import { gatedAgent, startGatedUpstream, type GatedAgent } from "./support.ts";

const KEYS = { acme: "key-acme", globex: "key-globex", plain: "key-plain" } as const;
const API_KEYS = `acme:${KEYS.acme}, globex:${KEYS.globex}, ${KEYS.plain}`;
type Who = keyof typeof KEYS;

const input = (threadId: string, runId: string, text: string) => ({
  threadId, runId, state: {}, tools: [], context: [], forwardedProps: {},
  messages: [{ id: `${runId}-u`, role: "user", content: text }],
});

describe("API_KEYS", () => {
  const keysOf = (raw: string | undefined) => loadConfig({ API_KEYS: raw }).API_KEYS;

  it("maps tenant:key entries to tenants, plain keys to the default tenant, split at the first ':'", () => {
    expect(keysOf(undefined)).toEqual([]);
    expect(keysOf(" ")).toEqual([]);
    expect(keysOf("acme:k1, k2 ,globex:k3,,default:x:y, acme:k4")).toEqual([
      { tenant: "acme", key: "k1" },
      { tenant: DEFAULT_TENANT, key: "k2" },
      { tenant: "globex", key: "k3" },
      { tenant: DEFAULT_TENANT, key: "x:y" },
      { tenant: "acme", key: "k4" },
    ]);
    expect(keysOf("k1,default:k1")).toEqual([{ tenant: DEFAULT_TENANT, key: "k1" }]);
  });

  it("refuses bad tenant names, empty keys and a key shared by two tenants, without echoing keys", () => {
    for (const [raw, reason] of [
      ["ac me:secret-1", /tenant name "ac me"/],
      ["sk/live:secret-2", /needs a tenant prefix/],
      ["acme:", /no key/],
      ["acme:secret-3,globex:secret-3", /both tenant "acme" and tenant "globex"/],
      [`${"t".repeat(65)}:secret-4`, /1-64 characters/],
    ] as const) {
      let err: unknown;
      try {
        keysOf(raw);
      } catch (e) {
        err = e;
      }
      expect(err, raw).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(reason);
      expect((err as Error).message).not.toMatch(/secret/);
    }
  });
});

describe.each(backends())("tenants on %s", (backend) => {
  let upstream: { mock: LLMock; url: string };
  let gated: GatedAgent;
  let server: TestServer;

  const auth = (who: Who) => ({ authorization: `Bearer ${KEYS[who]}` });
  const call = async (who: Who, method: string, path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}${path}`, { method, headers: { ...auth(who), ...headers } });
    const text = await res.text();
    return { status: res.status, type: res.headers.get("content-type") ?? "", body: text ? (JSON.parse(text) as { error: { code: string }; events: unknown[]; threads: unknown; next: unknown }) : null };
  };
  const run = async (who: Who, threadId: string, runId: string, text: string, headers: Record<string, string> = {}) =>
    postSse(`${server.url}/api/agents/gated/run`, input(threadId, runId, text), { ...auth(who), ...headers });
  const connect = async (who: Who, threadId: string, via: "api" | "copilotkit" = "api") => {
    const path = via === "api" ? "/api/agents/gated/connect" : "/api/copilotkit/agent/gated/connect";
    const s = await postSse(`${server.url}${path}`, via === "api" ? { threadId } : input(threadId, `${threadId}-c`, ""), auth(who));
    return { status: s.status, frames: await s.done };
  };
  const listAll = async (who: Who, query = "") => {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await call(who, "GET", `/api/threads?limit=1${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(page.status).toBe(200);
      ids.push(...(page.body!.threads as { threadId: string }[]).map((t) => t.threadId));
      cursor = page.body!.next as string | null;
    } while (cursor);
    return ids;
  };
  /** What a refusal must not change: the row's status and the log's length. */
  const footprint = async (threadId: string) => {
    const thread = await server.store.getThread(threadId);
    return { status: thread?.status, lastSeq: thread?.lastSeq, events: (await server.store.read(threadId)).length };
  };

  beforeAll(async () => {
    upstream = await startGatedUpstream();
    gated = gatedAgent();
    server = await startTestServer({
      backend,
      llmUrl: upstream.url,
      agents: [gated.agent, defaultAgent({ planStepDelayMs: 20 })],
      env: { API_KEYS },
    });
    // acme: one settled thread and one whose run waits on the gate; globex and the default
    // tenant: one settled thread each.
    expect((await (await run("acme", "acme-done", "acme-r1", "hello")).done).at(-1)?.event.type).toBe("RUN_FINISHED");
    await run("acme", "acme-busy", "acme-r2", "one step");
    expect(await gated.started.next()).toBe("only");
    expect((await (await run("globex", "globex-1", "globex-r1", "hello")).done).at(-1)?.event.type).toBe("RUN_FINISHED");
    expect((await (await run("plain", "plain-1", "plain-r1", "hello")).done).at(-1)?.event.type).toBe("RUN_FINISHED");
  });
  afterAll(async () => {
    gated.release.open();
    await server?.close();
    await upstream?.mock.stop();
  });

  it("a key that is not in API_KEYS, or a tenant:key pair sent whole, is 401", async () => {
    for (const token of ["nope", `acme:${KEYS.acme}`]) {
      const res = await fetch(`${server.url}/api/threads`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(401);
    }
  });

  it("each tenant lists only its own threads, page by page", async () => {
    expect(await listAll("acme")).toEqual(["acme-busy", "acme-done"]);
    expect(await listAll("globex")).toEqual(["globex-1"]);
    expect(await listAll("plain")).toEqual(["plain-1"]);
    expect(await listAll("globex", "&agentId=gated")).toEqual(["globex-1"]);
    expect(await listAll("globex", "&status=RUNNING")).toEqual([]);
    expect(await listAll("acme", "&status=RUNNING")).toEqual(["acme-busy"]);
    // acme's cursor, replayed by globex, pages through globex's threads only.
    const first = await call("acme", "GET", "/api/threads?limit=1");
    const crossed = await call("globex", "GET", `/api/threads?cursor=${encodeURIComponent(first.body!.next as string)}`);
    expect((crossed.body!.threads as { threadId: string }[]).map((t) => t.threadId)).not.toContain("acme-done");
  });

  it("another tenant's thread reads as unknown: GET, events as JSON and as SSE", async () => {
    for (const [who, threadId] of [["globex", "acme-done"], ["globex", "acme-busy"], ["plain", "acme-done"], ["acme", "plain-1"], ["acme", "globex-1"]] as const) {
      const one = await call(who, "GET", `/api/threads/${threadId}`);
      expect(one.status, `${who} GET ${threadId}`).toBe(404);
      expect(one.body!.error.code).toBe("THREAD_NOT_FOUND");
      const events = await call(who, "GET", `/api/threads/${threadId}/events`);
      expect(events.status).toBe(404);
      const sse = await call(who, "GET", `/api/threads/${threadId}/events`, { accept: "text/event-stream" });
      expect(sse.status).toBe(404);
      expect(sse.type).toMatch(/application\/json/);
    }
    // The owner still sees it all, and an unknown thread answers exactly the same 404.
    expect((await call("acme", "GET", "/api/threads/acme-done")).status).toBe(200);
    expect((await call("acme", "GET", "/api/threads/acme-done/events")).body!.events.length).toBeGreaterThan(0);
    const unknown = await call("globex", "GET", "/api/threads/nope/events", { accept: "text/event-stream" });
    const foreign = await call("globex", "GET", "/api/threads/acme-done/events", { accept: "text/event-stream" });
    expect(foreign.body!.error.code).toBe(unknown.body!.error.code);
  });

  it("connect to another tenant's thread is an unknown thread's: 200 and an empty stream", async () => {
    const unknown = await connect("globex", "nope");
    expect(unknown).toEqual({ status: 200, frames: [] });
    // acme-busy is running: its owner would get the snapshot and the live tail, globex nothing.
    expect(await connect("globex", "acme-busy")).toEqual(unknown);
    expect(await connect("globex", "acme-done")).toEqual(unknown);
    expect(await connect("plain", "acme-done")).toEqual(unknown);
    const own = await connect("acme", "acme-done");
    expect(own.frames.map((f) => f.event.type)).toContain("MESSAGES_SNAPSHOT");
  });

  it("cancel and delete of another tenant's thread are 404 and leave it untouched", async () => {
    const busy = await footprint("acme-busy");
    const done = await footprint("acme-done");
    expect(busy.status).toBe("RUNNING");
    for (const who of ["globex", "plain"] as const) {
      const cancel = await call(who, "POST", "/api/threads/acme-busy/cancel");
      expect(cancel.status).toBe(404);
      expect(cancel.body!.error.code).toBe("THREAD_NOT_FOUND");
      expect((await call(who, "DELETE", "/api/threads/acme-done")).status).toBe(404);
      // acme-busy is active: its owner would get 409; another tenant gets the same 404.
      expect((await call(who, "DELETE", "/api/threads/acme-busy")).status).toBe(404);
    }
    expect(await footprint("acme-busy")).toEqual(busy);
    expect(await footprint("acme-done")).toEqual(done);
    expect(gated.aborted).toEqual([]);
    expect((await call("acme", "DELETE", "/api/threads/acme-busy")).status).toBe(409);
  });

  it("a run on another tenant's threadId is 404 with a hint, whatever the policy, and writes nothing", async () => {
    for (const [threadId, headers] of [
      ["acme-done", {}],
      ["acme-busy", {}],
      ["acme-busy", { "x-threadline-double-texting": "enqueue" }],
      ["acme-busy", { "x-threadline-double-texting": "interrupt" }],
    ] as const) {
      const before = await footprint(threadId);
      const runId = `globex-on-${threadId}-${Object.values(headers).join("") || "default"}`;
      const res = await fetch(`${server.url}/api/agents/gated/run`, {
        method: "POST",
        headers: { "content-type": "application/json", ...auth("globex"), ...headers },
        body: JSON.stringify(input(threadId, runId, "let me in")),
      });
      expect(res.status).toBe(404);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("THREAD_NOT_FOUND");
      expect(body.error.message).toMatch(/another threadId/);
      expect(await footprint(threadId)).toEqual(before);
      expect(await server.store.getRun(threadId, runId)).toBeNull();
    }
    // Another agent's route for the same id: still the tenant's 404, not the agent mismatch 409.
    const other = await fetch(`${server.url}/api/agents/default/run`, {
      method: "POST",
      headers: { "content-type": "application/json", ...auth("plain") },
      body: JSON.stringify(input("acme-done", "plain-on-acme", "hi")),
    });
    expect(other.status).toBe(404);
    expect(gated.aborted).toEqual([]);
  });

  it("CopilotKit's runtime carries the caller's key: another tenant cannot connect, stop or run there", async () => {
    const busy = await footprint("acme-busy");
    const done = await footprint("acme-done");

    // connect through the runtime: the owner gets the conversation, another tenant nothing.
    const own = await connect("acme", "acme-done", "copilotkit");
    expect(own.status).toBe(200);
    expect(own.frames.map((f) => f.event.type)).toContain("MESSAGES_SNAPSHOT");
    const foreign = await connect("globex", "acme-done", "copilotkit");
    const unknown = await connect("globex", "nope", "copilotkit");
    expect(foreign.status).toBe(200);
    expect(foreign.frames.filter((f) => f.event.type === "MESSAGES_SNAPSHOT")).toEqual([]);
    expect(foreign.frames.map((f) => f.event.type)).toEqual(unknown.frames.map((f) => f.event.type));

    // stop: the runtime's answer for a thread with nothing to stop, and the run goes on.
    const stop = await fetch(`${server.url}/api/copilotkit/agent/gated/stop/acme-busy`, { method: "POST", headers: auth("globex") });
    expect(stop.status).toBe(200);
    expect(await stop.json()).toMatchObject({ stopped: false });

    // run: our 404 reaches the caller as a RUN_ERROR, and nothing is written.
    const runId = "globex-ck-on-acme";
    const attempt = await postSse(`${server.url}/api/copilotkit/agent/gated/run`, input("acme-done", runId, "let me in"), auth("globex"));
    const frames = await attempt.done;
    expect(frames.map((f) => f.event)).toContainEqual(expect.objectContaining({ type: "RUN_ERROR", code: "THREAD_NOT_FOUND" }));
    expect(await server.store.getRun("acme-done", runId)).toBeNull();

    expect(await footprint("acme-busy")).toEqual(busy);
    expect(await footprint("acme-done")).toEqual(done);
    expect(gated.aborted).toEqual([]);
  });

  it("the owner still runs, cancels and deletes its threads", async () => {
    const cancel = await call("acme", "POST", "/api/threads/acme-busy/cancel");
    expect(cancel.status).toBe(200);
    expect(cancel.body).toMatchObject({ cancelled: true, status: "CANCELLED" });
    expect(gated.aborted).toEqual(["only"]);
    expect((await call("acme", "DELETE", "/api/threads/acme-done")).status).toBe(204);
    expect(await server.store.getThread("acme-done")).toBeNull();
    // The id is free again: now any tenant may take it.
    const again = await run("globex", "acme-done", "globex-r2", "hello");
    expect((await again.done).at(-1)?.event.type).toBe("RUN_FINISHED");
    expect((await server.store.getThread("acme-done"))?.tenantId).toBe("globex");
    expect(await listAll("acme")).toEqual(["acme-busy"]);
  });
});
