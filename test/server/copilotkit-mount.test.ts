/**
 * copilotkitHandler() in a user's own Express app, under a prefix of its choosing, with nothing
 * else of Threadline mounted and no port of the app's own: the app is driven by supertest and
 * never told where it listens, and it has no run or connect route to call back. Runs, connects
 * and stops through CopilotKit's runtime can therefore only reach the engine in process. Checked:
 * the runs are durable (the log holds them, a second connect replays them), auth and tenants
 * hold (no key -> 401, another tenant can neither see nor stop a thread), stop cancels durably.
 */
import express, { type Express } from "express";
import { pino } from "pino";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AgentRegistry } from "../../server/agents/define.ts";
import { copilotkitHandler } from "../../server/copilotkit/handler.ts";
import { Engine } from "../../server/engine/engine.ts";
import { createOpenAIClient } from "../../server/models/openai/client.ts";
import { OpenAIModel } from "../../server/models/openai/model.ts";
import { requireApiKey } from "../../server/http/auth.ts";
import type { EventStore } from "../../server/store/types.ts";
import { parseSse, type AguiEvent } from "../conformance/support/sse.ts";
import { backends, openStore } from "../support/server.ts";
import { gatedAgent, startGatedUpstream, type GatedAgent } from "./support.ts";

const MOUNT = "/x/y";
const KEYS = { acme: "key-acme", globex: "key-globex" } as const;
type Who = keyof typeof KEYS;
const auth = (who: Who) => ({ authorization: `Bearer ${KEYS[who]}` });

const input = (threadId: string, runId: string, text: string) => ({
  threadId, runId, state: {}, tools: [], context: [], forwardedProps: {},
  messages: [{ id: `${runId}-u`, role: "user", content: text }],
});

describe.each(backends())("copilotkitHandler() mounted in an app that never listens, on %s", (backend) => {
  let upstream: Awaited<ReturnType<typeof startGatedUpstream>>;
  let gated: GatedAgent;
  let store: EventStore;
  let engine: Engine;
  let app: Express;

  /** POSTs to the mount and parses the SSE answer (the whole of it: supertest waits for the end). */
  const post = async (who: Who | null, path: string, body: object) => {
    const res = await request(app)
      .post(`${MOUNT}${path}`)
      .set(who ? auth(who) : {})
      .set("accept", "text/event-stream")
      .send(body)
      .buffer(true)
      .parse((stream, done) => {
        let text = "";
        stream.on("data", (c: Buffer) => (text += c.toString("utf8")));
        stream.on("end", () => done(null, text));
      });
    const text = res.body as string;
    const events: AguiEvent[] = res.headers["content-type"]?.includes("event-stream") ? parseSse(text).frames.map((f) => f.event) : [];
    return { status: res.status, text, events, json: res.headers["content-type"]?.includes("json") ? (JSON.parse(text) as { error?: { code: string; message: string }; [k: string]: unknown }) : undefined };
  };
  const run = (who: Who, threadId: string, runId: string, text: string) => post(who, "/agent/gated/run", input(threadId, runId, text));
  const connect = (who: Who, threadId: string) => post(who, "/agent/gated/connect", input(threadId, `${threadId}-connect`, ""));
  const stop = (who: Who, threadId: string) => post(who, `/agent/gated/stop/${threadId}`, {});
  const footprint = async (threadId: string) => {
    const thread = await store.getThread(threadId);
    return { status: thread?.status, lastSeq: thread?.lastSeq, events: (await store.read(threadId)).length };
  };

  beforeAll(async () => {
    upstream = await startGatedUpstream();
    gated = gatedAgent();
    store = openStore(backend);
    await store.migrate();
    const agents = new AgentRegistry([gated.agent]);
    const client = createOpenAIClient({ baseURL: upstream.url, apiKey: "test", maxRetries: 0, connectTimeoutMs: 30_000, readTimeoutMs: 10_000 });
    const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });
    engine = new Engine({ store, agents, logger, models: () => new OpenAIModel({ client, model: "gpt-4o-mini" }) });
    await engine.start();
    app = express();
    app.get("/", (_req, res) => {
      res.send("my app");
    });
    const apiKeys = Object.entries(KEYS).map(([tenant, key]) => ({ tenant, key }));
    app.use(MOUNT, copilotkitHandler({ engine, store, agents, logger, auth: requireApiKey(apiKeys) }));
  });
  afterAll(async () => {
    gated.release.open();
    await engine?.close();
    await store?.close();
    await upstream?.mock.stop();
  });

  it("answers under its prefix only; no key is 401; an unknown agent is a 404 that names the real mount", async () => {
    const info = await request(app).get(`${MOUNT}/info`).set(auth("acme"));
    expect(info.status).toBe(200);
    expect(Object.keys(info.body.agents)).toEqual(["gated"]);
    expect((await request(app).get(`${MOUNT}/info`)).status).toBe(401);
    expect((await post(null, "/agent/gated/run", input("no-key", "no-key-r", "hi"))).status).toBe(401);
    expect(await store.getThread("no-key")).toBeNull();

    for (const agent of ["__proto__", "constructor", "nope"]) {
      const res = await post("acme", `/agent/${agent}/run`, input("t-unknown", "r-unknown", "hi"));
      expect(res.status, agent).toBe(404);
      expect(res.json?.error?.code).toBe("AGENT_NOT_FOUND");
      expect(res.json?.error?.message).toContain(`GET ${MOUNT}/info`);
    }
    expect((await post("acme", "/transcribe", {})).json?.error?.code).toBe("NOT_FOUND");
    // The app has no Threadline route of its own for a runner to call back into.
    expect((await request(app).post("/api/agents/gated/run").send({})).status).toBe(404);
    expect((await request(app).get("/")).text).toBe("my app");
  });

  it("every id in every route passes the id rule, and any other path under the mount is a 404: each in the API's error shape, nothing written", async () => {
    const rows = async () => (await store.listThreads({ limit: 200 })).threads.length;
    const before = await rows();
    const cases: [method: "get" | "post", path: string, body: object | undefined, status: number, code: string][] = [
      // Ids in the path: the stop's thread id reached Postgres (NUL: a 500 carrying its error text).
      ["post", "/agent/gated/stop/a%00b", {}, 400, "INVALID_ID"],
      ["post", "/agent/gated/stop/a%01b", {}, 400, "INVALID_ID"],
      ["post", `/agent/gated/stop/${"t".repeat(201)}`, {}, 400, "INVALID_ID"],
      ["post", "/agent/a%00b/stop/t", {}, 400, "INVALID_ID"],
      ["post", "/agent/a%00b/run", input("ok", "ok-r", "hi"), 400, "INVALID_ID"],
      // Ids in the body, before the runtime reads it.
      ["post", "/agent/gated/stop/t", { runId: "r\u0000" }, 400, "INVALID_ID"],
      ["post", "/agent/gated/stop/t", { runId: 42 }, 400, "INVALID_ID"],
      ["post", "/agent/gated/connect", input("a\u0000b", "r", ""), 400, "INVALID_ID"],
      ["post", "/agent/gated/connect", input("t".repeat(201), "r", ""), 400, "INVALID_ID"],
      ["post", "/agent/gated/run", input("a\u0001b", "r", "hi"), 400, "INVALID_ID"],
      ["post", "/agent/gated/suggest", input("ok", "r\u0000", "hi"), 400, "INVALID_ID"],
      // The runtime's own refusals, in our shape.
      ["post", "/agent/gated/stop/t", { other: 1 }, 400, "COPILOTKIT_HTTP_400"],
      // Bodies that are no RunAgentInput: refused before the runtime, which printed each ZodError to stderr.
      ["post", "/agent/gated/run", { threadId: "t" }, 400, "INVALID_RUN_INPUT"],
      ["post", "/agent/gated/connect", { threadId: "t", runId: "r", messages: "no" }, 400, "INVALID_RUN_INPUT"],
      // Segments before `agent`: the runtime matched them by their tail, past the checks.
      ["post", "/prefix/agent/gated/run", input("prefixed", "prefixed-r", "hi"), 404, "NOT_FOUND"],
      ["post", "/a/b/agent/__proto__/run", input("prefixed", "prefixed-r", "hi"), 404, "NOT_FOUND"],
      ["post", "/prefix/agent/gated/stop/a%00b", {}, 404, "NOT_FOUND"],
      ["post", "/prefix/agent/gated/connect", input("a\u0000b", "r", ""), 404, "NOT_FOUND"],
      ["get", "/prefix/info", undefined, 404, "NOT_FOUND"],
      ["get", "/threads", undefined, 404, "NOT_FOUND"],
      ["post", "/threads/a%00b/archive", {}, 404, "NOT_FOUND"],
      ["get", "/agent/gated/run", undefined, 404, "NOT_FOUND"],
      ["post", "", { method: "agent/run", params: { agentId: "gated" }, body: {} }, 404, "NOT_FOUND"],
    ];
    const printed = vi.spyOn(console, "error");
    for (const [method, path, body, status, code] of cases) {
      const req = request(app)[method](`${MOUNT}${path}`).set(auth("acme"));
      const res = body === undefined ? await req : await req.send(body);
      const what = `${method} ${path.slice(0, 60)} -> ${res.text.slice(0, 200)}`;
      expect(res.status, what).toBe(status);
      expect(res.body?.error?.code, what).toBe(code);
      expect(res.body.error.message.length, what).toBeGreaterThan(20);
      expect(res.text, what).not.toMatch(/invalid byte sequence|0x00|UTF8|syntax|postgres/i);
    }
    // Nothing of it went to stderr outside the server's logs.
    expect(printed).not.toHaveBeenCalled();
    printed.mockRestore();
    expect(await store.getThread("prefixed")).toBeNull();
    expect(await rows()).toBe(before);
  });

  it("a run through the runtime is in the log, and every connect replays it; another tenant sees nothing", async () => {
    const first = await run("acme", "mount-1", "mount-1-r1", "hello there");
    expect(first.status).toBe(200);
    expect(first.events[0]?.type).toBe("RUN_STARTED");
    expect(first.events.at(-1)?.type).toBe("RUN_FINISHED");
    const said = first.events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("");
    expect(said).toBe("answer to: hello there");

    // Durable: the thread is the caller's, and its log holds the run from start to end.
    expect((await store.getThread("mount-1", "acme"))?.status).toBe("WAITING");
    expect(await store.getThread("mount-1", "globex")).toBeNull();
    const types = (await store.read("mount-1")).filter((e) => e.runId === "mount-1-r1").map((e) => e.type);
    expect(types).toContain("workflow.started");
    expect(types.at(-1)).toBe("workflow.suspended"); // the turn ended: the thread waits for input

    const messagesOf = (events: AguiEvent[]) =>
      (events.find((e) => e.type === "MESSAGES_SNAPSHOT")?.messages as { role: string; content: unknown }[] | undefined)?.map((m) => [m.role, m.content]);
    const replay1 = await connect("acme", "mount-1");
    const replay2 = await connect("acme", "mount-1");
    expect(replay1.status).toBe(200);
    expect(messagesOf(replay1.events)).toEqual([["user", "hello there"], ["assistant", "answer to: hello there"]]);
    expect(replay2.events).toEqual(replay1.events);

    // Another tenant: the stream of an unknown thread, and a run on the id is refused unwritten.
    const before = await footprint("mount-1");
    const foreign = await connect("globex", "mount-1");
    const unknown = await connect("globex", "mount-none");
    expect(foreign.status).toBe(200);
    expect(foreign.events).toEqual(unknown.events);
    expect(messagesOf(foreign.events)).toBeUndefined();
    const intrusion = await run("globex", "mount-1", "globex-on-acme", "let me in");
    expect(intrusion.events).toContainEqual(expect.objectContaining({ type: "RUN_ERROR", code: "THREAD_NOT_FOUND" }));
    expect(await store.getRun("mount-1", "globex-on-acme")).toBeNull();
    expect(await footprint("mount-1")).toEqual(before);
  });

  it("another tenant's stop changes nothing; the owner's stop cancels the run durably", async () => {
    // The run waits in its tool until the stop: it is in flight while the other calls happen.
    const inFlight = run("acme", "mount-stop", "mount-stop-r1", "one step");
    expect(await gated.started.next()).toBe("only");
    const busy = await footprint("mount-stop");
    expect(busy.status).toBe("RUNNING");

    const foreignStop = await stop("globex", "mount-stop");
    expect(foreignStop.status).toBe(200);
    expect(foreignStop.json).toMatchObject({ stopped: false });
    const foreignConnect = await connect("globex", "mount-stop");
    expect(foreignConnect.events.filter((e) => e.type === "MESSAGES_SNAPSHOT")).toEqual([]);
    expect(await footprint("mount-stop")).toEqual(busy);
    expect(gated.aborted).toEqual([]);

    const ownStop = await stop("acme", "mount-stop");
    expect(ownStop.json).toMatchObject({ stopped: true });
    const frames = (await inFlight).events;
    expect(frames.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "CANCELLED" });
    expect(gated.aborted).toEqual(["only"]);
    expect((await store.getThread("mount-stop", "acme"))?.status).toBe("CANCELLED");
    expect((await store.read("mount-stop")).map((e) => e.type)).toEqual(expect.arrayContaining(["workflow.cancelling", "workflow.cancelled"]));
    // A stop of a settled thread is the runtime's "nothing to stop".
    expect((await stop("acme", "mount-stop")).json).toMatchObject({ stopped: false });
  });
});
