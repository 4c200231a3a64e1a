/**
 * Background runs through the real HTTP API (docs/background-runs.md): POST
 * /api/threads/:threadId/runs answers 202 before the run has done anything, the run goes on with
 * nobody streaming it, a client that connects halfway gets the rest of it exactly (and one that
 * resumes with Last-Event-ID gets exactly what follows its cursor), double texting is honoured,
 * and GET .../runs/:runId?wait= holds until the run is over. Every bad body is a 400 naming its
 * reasons, with nothing written.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedUpstream, type ScriptedUpstream } from "../support/scripted-upstream.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
import { postSse, type SseFrame } from "../support/sse-client.ts";

const PIECES = ["The", " answer", " comes", " in", " six", " pieces"];
const isContent = (f: SseFrame) => f.event.type === "TEXT_MESSAGE_CONTENT";
const textOf = (frames: SseFrame[]) => frames.filter(isContent).map((f) => f.event.delta).join("");

describe.each(backends())("background runs on %s", (backend) => {
  let upstream: ScriptedUpstream;
  let server: TestServer;
  beforeAll(async () => {
    // Every answer stops after its third piece until the test releases it.
    upstream = await startScriptedUpstream(() => ({ text: PIECES, holdAfter: 3 }));
    server = await startTestServer({ backend, llmUrl: upstream.url });
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.close();
  });

  const start = (threadId: string, body: unknown, headers: Record<string, string> = {}) =>
    request(server.url).post(`/api/threads/${threadId}/runs`).set(headers).send(body as object);

  it("starts with 202, runs with nobody streaming it, and a client that connects halfway gets the rest exactly", async () => {
    const threadId = `bg-join-${backend}`;
    const n = upstream.requests.length;
    const res = await start(threadId, { agentId: "default", input: { runId: "r1", messages: [{ id: "u1", role: "user", content: "hello" }] } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ runId: "r1", status: "running" });
    expect(res.headers.location).toBe(`/api/threads/${threadId}/runs/r1`);

    const held = await upstream.request(n);
    await held.held; // three pieces are in the log; the run waits on its model
    const status = await request(server.url).get(`/api/threads/${threadId}/runs/r1`);
    expect(status.body).toMatchObject({ runId: "r1", threadId, status: "running" });

    // A joins halfway: the log so far, then the live tail.
    const a = await postSse(`${server.url}/api/agents/default/connect`, { threadId });
    const secondPiece = await a.waitFor((f) => isContent(f) && f.event.delta === PIECES[1]);
    await a.waitFor((f) => isContent(f) && f.event.delta === PIECES[2]);
    // B resumes after A's second piece, as a reconnecting client does (Last-Event-ID).
    const b = await postSse(`${server.url}/api/agents/default/connect`, { threadId }, { "last-event-id": secondPiece.id! });
    await b.waitFor((f) => isContent(f) && f.event.delta === PIECES[2]);
    held.release();

    const [aFrames, bFrames] = await Promise.all([a.done, b.done]);
    expect(textOf(aFrames)).toBe(PIECES.join(""));
    expect(aFrames.at(-1)?.event.type).toBe("RUN_FINISHED");
    // B got exactly what follows its cursor in A's stream: the same frames, same ids, nothing twice.
    const after = aFrames.slice(aFrames.findIndex((f) => f.id === secondPiece.id) + 1);
    expect(bFrames.map((f) => [f.id, f.event.type, f.event.delta])).toEqual(after.map((f) => [f.id, f.event.type, f.event.delta]));

    const done = await request(server.url).get(`/api/threads/${threadId}/runs/r1`);
    expect(done.body).toMatchObject({ runId: "r1", status: "finished" });
    expect(done.body.error).toBeUndefined();
  });

  it("?wait= holds the answer until the run is over, and answers as it stands when the wait is up", async () => {
    const threadId = `bg-wait-${backend}`;
    const n = upstream.requests.length;
    expect((await start(threadId, { agentId: "default", input: { runId: "w1", messages: [{ id: "u1", role: "user", content: "hi" }] } })).status).toBe(202);
    const held = await upstream.request(n);
    await held.held;
    // The wait is up first: the run still runs.
    const early = await request(server.url).get(`/api/threads/${threadId}/runs/w1?wait=200`);
    expect(early.body.status).toBe("running");
    const waiting = request(server.url).get(`/api/threads/${threadId}/runs/w1?wait=20000`).then((r) => r);
    held.release();
    const late = await waiting;
    expect(late.status).toBe(200);
    expect(late.body).toMatchObject({ runId: "w1", status: "finished" });
  });

  it("honours double texting: a busy thread refuses (409) or queues (202 queued) by the run's policy", async () => {
    const threadId = `bg-busy-${backend}`;
    const n = upstream.requests.length;
    const body = (runId: string) => ({ agentId: "default", input: { runId, messages: [{ id: `u-${runId}`, role: "user", content: runId }] } });
    expect((await start(threadId, body("d1"))).status).toBe(202);
    const held = await upstream.request(n);
    await held.held;
    const refused = await start(threadId, body("d2"));
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("THREAD_BUSY");
    const queued = await start(threadId, body("d3"), { "x-threadline-double-texting": "enqueue" });
    expect(queued.status).toBe(202);
    expect(queued.body).toEqual({ runId: "d3", status: "queued" });
    expect((await request(server.url).get(`/api/threads/${threadId}/runs/d3`)).body.status).toBe("queued");
    held.release();
    (await upstream.request(n + 1)).release();
    const d3 = await request(server.url).get(`/api/threads/${threadId}/runs/d3?wait=20000`);
    expect(d3.body.status).toBe("finished");
    expect((await request(server.url).get(`/api/threads/${threadId}/runs/d2`)).status).toBe(404);
  });

  it("refuses bad bodies with 400 and every reason, writing nothing", async () => {
    const threadId = `bg-bad-${backend}`;
    const cases: [unknown, string[]][] = [
      [{ input: {} }, ["agentId"]],
      [{ agentId: "default", input: { messages: "no" } }, ["input.messages"]],
      [{ agentId: "default", input: { threadId: "other", messages: [] } }, ["input.threadId"]],
      [{ agentId: "default", input: {}, webhook: { url: "ftp://example.com/x" } }, ["webhook.url"]],
      [{ agentId: "default", input: {}, webhook: { url: "http://127.0.0.1:9/x" } }, ["webhook.url"]],
      [{ agentId: "default", input: {}, extra: true }, ["(root)"]],
    ];
    for (const [body, paths] of cases) {
      const res = await start(threadId, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("INVALID_RUN_INPUT");
      expect(res.body.error.issues.map((i: { path: string }) => i.path)).toEqual(expect.arrayContaining(paths));
    }
    // A valid webhook on a server that cannot sign: refused before anything is written.
    const unsigned = await start(threadId, { agentId: "default", input: {}, webhook: { url: "https://example.com/hook" } });
    expect(unsigned.status).toBe(400);
    expect(unsigned.body.error.code).toBe("WEBHOOKS_NOT_CONFIGURED");
    expect((await start(threadId, { agentId: "nobody", input: {} })).status).toBe(404);
    expect((await request(server.url).get(`/api/threads/${threadId}`)).status).toBe(404);
    const tooLong = await request(server.url).get(`/api/threads/${threadId}/runs/x?wait=600000`);
    expect(tooLong.status).toBe(400);
  });
});
