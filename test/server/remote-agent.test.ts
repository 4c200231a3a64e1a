/**
 * remoteAgent: a real remote AG-UI server (the Node one on @ag-ui/encoder, and the Python FastAPI
 * one when python3 has fastapi and uvicorn), two Threadline instances on one store, the real
 * @ag-ui/client 1.0.0 and 0.0.59. What a remote agent's thread must get that Threadline's own get:
 * resume by cursor on the other instance, reload, a follow-up that carries the conversation,
 * cancel from the other instance reaching the remote, one RUN_ERROR per failure, a drain that
 * finishes or cuts the run, and recovery.
 */
import type { Message } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { remoteAgent } from "../../server/agents/remote-agent.ts";
import type { EventStore } from "../../server/store/types.ts";
import { CLIENT_VERSIONS, cancelledEnd, runClient } from "../support/agui-clients.ts";
import { pythonUnavailable, type RemoteFixture, type RemoteKind, startRemote } from "../support/remote-agui.ts";
import { backends, openStore, startTestServer, testSchema, type TestServer } from "../support/server.ts";
import { startTwoInstances, type TwoInstances } from "../support/two-instances.ts";
import { postSse } from "../support/sse-client.ts";
import { eventually, terminals, textOf } from "../support/frame-checks.ts";

const noPython = pythonUnavailable();
if (noPython) console.warn(`[remote-agent] ${noPython}`);
const kinds: RemoteKind[] = noPython ? ["node"] : ["node", "python"];

/** Silence past this fails a run with REMOTE_TIMEOUT; the slow answers pause 150 ms between chunks. */
const READ_MS = 2_000;

const user = (id: string, content: string): Message => ({ id, role: "user", content });

async function thread(server: TestServer, threadId: string) {
  return (await (await fetch(`${server.url}/api/threads/${threadId}`)).json()) as { status: string; messages: Message[]; state: Record<string, unknown> };
}


describe.each(backends())("remoteAgent on %s", (backend) => {
  describe.each(kinds)("with the %s remote", (kind) => {
    let remote: RemoteFixture;
    let instances: TwoInstances;
    let store: EventStore;
    let a: TestServer;
    let b: TestServer;
    const agents = () => [
      remoteAgent({ id: "remote", url: remote.url, timeouts: { readMs: READ_MS } }),
      remoteAgent({ id: "down", url: "http://127.0.0.1:9/agent" }),
    ];
    beforeAll(async () => {
      remote = await startRemote(kind);
      instances = await startTwoInstances(backend, { agents });
      ({ a, b, store } = instances);
    }, 60_000);
    afterAll(async () => {
      await instances?.close();
      await remote?.close();
    });

    it.each(CLIENT_VERSIONS)("@ag-ui/client %s runs it, then a follow-up on the other instance sends the remote the whole conversation", async (version) => {
      const threadId = `remote-${kind}-${version}-${Date.now()}`;
      const first = await runClient(version, { url: `${a.url}/api/agents/remote/run`, input: { threadId, runId: "r1", messages: [user("u1", "hello")] } });
      expect(first.error?.message).toBeUndefined();
      expect(first.failed).toBe(false);
      const answer = first.messages.at(-1) as { id: string; content: string };
      expect(answer).toMatchObject({ role: "assistant", content: "You said: hello. This is turn 1. " });
      expect(first.state).toEqual({ turns: 1, last: "hello" });
      // What the remote sent after RUN_FINISHED is not part of the run.
      expect(JSON.stringify(first.events)).not.toContain("after the end");
      expect(first.events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => (e as unknown as { delta: string }).delta)).toEqual(["You said: hello. This is turn 1. "]);

      const before = (await remote.received()).length;
      const second = await runClient(version, {
        url: `${b.url}/api/agents/remote/run`,
        input: { threadId, runId: "r2", messages: [...first.messages, user("u2", "again")], state: first.state },
      });
      expect(second.failed).toBe(false);
      const got = (await remote.received())[before]!;
      // The conversation as the log has it, and the state the remote left.
      expect(got.messages.map((m) => [m.role, m.content])).toEqual([
        ["user", "hello"],
        ["assistant", "You said: hello. This is turn 1. "],
        ["user", "again"],
      ]);
      expect(got.state).toEqual({ turns: 1, last: "hello" });
      expect(got.threadId).toBe(threadId);

      // The remote said "msg-1" both times: the second is made unique, by the stated rule.
      const saved = await thread(a, threadId);
      const ids = saved.messages.filter((m) => m.role === "assistant").map((m) => m.id);
      expect(ids[0]).toBe("msg-1");
      expect(ids[1]).toMatch(/^msg-1-[0-9a-f]{8}$/);
      expect(saved.state).toEqual({ turns: 2, last: "again" });
      expect(saved.status).toBe("WAITING");
    });

    it("a stream cut on one instance resumes on the other by cursor, exactly; a reload shows the remote's answer and state", async () => {
      const threadId = `remote-cut-${kind}-${Date.now()}`;
      const live = await postSse(`${a.url}/api/agents/remote/run`, { threadId, runId: "r1", messages: [user("u1", "slow please")], state: {}, tools: [], context: [] });
      await live.waitFor((f) => f.event.type === "TEXT_MESSAGE_CONTENT" && live.frames.filter((g) => g.event.type === "TEXT_MESSAGE_CONTENT").length >= 3);
      live.close();
      const seen = [...live.frames];
      const cursor = seen.at(-1)!.id!;
      const rest = await (await postSse(`${b.url}/api/agents/remote/connect`, { threadId, lastSeenEventId: cursor })).done;
      const all = await (await postSse(`${b.url}/api/agents/remote/connect`, { threadId, lastSeenEventId: "0" })).done;
      // The frames before the cursor and after it are the whole run, each once, in order.
      const ids = [...seen, ...rest].map((f) => f.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(textOf([...seen, ...rest])).toBe(textOf(all));
      expect(textOf(all)).toBe(`You said: slow please. This is turn 1. ${"More words follow here. ".repeat(20)}`);
      expect(terminals(rest)).toHaveLength(1);
      expect(terminals(rest)[0]!.event.type).toBe("RUN_FINISHED");

      const saved = await thread(b, threadId);
      expect(saved.messages.at(-1)).toMatchObject({ role: "assistant", content: textOf(all) });
      expect(saved.state).toEqual({ turns: 1, last: "slow please" });
    });

    // A cancel reaches the executing instance through the log's doorbell from other processes'
    // stores: with PGlite's one store there is no other, so it is sent to the same instance.
    it.each(CLIENT_VERSIONS)("cancel through the other instance aborts the remote request (@ag-ui/client %s)", async (version) => {
      const canceller = backend === "postgres" ? b : a;
      const threadId = `remote-cancel-${kind}-${version}-${Date.now()}`;
      const runId = `cancel-${kind}-${version}`; // the remote records disconnects by run id
      const client = runClient(version, { url: `${a.url}/api/agents/remote/run`, input: { threadId, runId, messages: [user("u1", "slow cancel me")] } });
      await eventually(() => thread(b, threadId).then((t) => t.status).catch(() => ""), (s) => s === "RUNNING", "the run to start", 10_000);
      await eventually(() => store.read(threadId).then((es) => es.filter((e) => e.type === "text.delta").length), (n) => n >= 2, "two chunks in the log", 10_000);
      const res = await fetch(`${canceller.url}/api/threads/${threadId}/cancel`, { method: "POST" });
      expect(res.status).toBe(200);
      const out = await client;
      expect(out.failed).toBe(false);
      expect(out.events.filter((e) => e.type === "RUN_ERROR" || e.type === "RUN_FINISHED")).toHaveLength(1);
      expect(out.events.at(-1)).toMatchObject(cancelledEnd(version));
      // The remote saw its client go away.
      await eventually(() => remote.disconnects(), (d) => d.includes(runId), "the remote to see the disconnect", 10_000);
      expect((await thread(a, threadId)).status).toBe("CANCELLED");
    });

    it.each([
      ["fail", "REMOTE_RUN_ERROR", /quota is exhausted \(its code: QUOTA\)/],
      ["garbage", "REMOTE_MALFORMED", /TEXT_MESSAGE_CONTENT event AG-UI does not allow/],
      ["http500", "REMOTE_HTTP_ERROR", /HTTP 500.*down for maintenance/],
      ["silent", "REMOTE_TIMEOUT", new RegExp(`silent for ${READ_MS} ms`)],
    ])("a remote that answers %s ends the run with one RUN_ERROR %s", async (say, code, message) => {
      const threadId = `remote-${say}-${kind}-${Date.now()}`;
      const frames = await (await postSse(`${b.url}/api/agents/remote/run`, { threadId, runId: "r1", messages: [user("u1", say)], state: {}, tools: [], context: [] })).done;
      const ends = terminals(frames);
      expect(ends).toHaveLength(1);
      expect(ends[0]!.event).toMatchObject({ type: "RUN_ERROR", code });
      expect(ends[0]!.event.message).toMatch(message);
      expect((await thread(a, threadId)).status).toBe("FAILED");
    });

    it("a remote nobody listens at ends the run with REMOTE_UNREACHABLE", async () => {
      const threadId = `remote-down-${kind}-${Date.now()}`;
      const frames = await (await postSse(`${a.url}/api/agents/down/run`, { threadId, runId: "r1", messages: [user("u1", "hi")], state: {}, tools: [], context: [] })).done;
      expect(terminals(frames).map((f) => f.event.code)).toEqual(["REMOTE_UNREACHABLE"]);
      expect(String(terminals(frames)[0]!.event.message)).toMatch(/could not be reached.*Check that it is running/);
    });

    it("a remote interrupt leaves the thread WAITING, and the answer is forwarded as resume", async () => {
      const threadId = `remote-ask-${kind}-${Date.now()}`;
      const asked = await (await postSse(`${a.url}/api/agents/remote/run`, { threadId, runId: "r1", messages: [user("u1", "ask")], state: {}, tools: [], context: [] })).done;
      const end = terminals(asked)[0]!.event as { type: string; outcome?: { type: string; interrupts: { id: string; message: string }[] } };
      expect(end).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "interrupt", interrupts: [{ id: "ask-r1", message: "Which city?" }] } });
      expect((await thread(b, threadId)).status).toBe("WAITING");
      const before = (await remote.received()).length;
      const answered = await (
        await postSse(`${b.url}/api/agents/remote/run`, {
          threadId,
          runId: "r2",
          messages: [user("u1", "ask")],
          state: {},
          tools: [],
          context: [],
          resume: [{ interruptId: "ask-r1", status: "resolved", payload: { city: "Paris" } }],
        })
      ).done;
      expect(textOf(answered)).toBe('You chose {"city":"Paris"}.');
      expect((await remote.received())[before]!.resume).toEqual([{ interruptId: "ask-r1", status: "resolved", payload: { city: "Paris" } }]);
    });
  });

  it.each([
    ["finishes the remote's run within its drain timeout", 20_000, "RUN_FINISHED", undefined],
    ["past its drain timeout cuts the run: the other instance ends it REMOTE_RUN_LOST", 200, "RUN_ERROR", "REMOTE_RUN_LOST"],
  ] as const)("a draining instance %s", async (_what, drainTimeoutMs, end, code) => {
    const remote = await startRemote("node");
    const schema = testSchema();
    const storeA = openStore(backend, schema);
    const storeB = backend === "postgres" ? openStore(backend, schema) : storeA;
    const agents = [remoteAgent({ id: "remote", url: remote.url })];
    const env = { LEASE_TTL_MS: "1500" };
    const a = await startTestServer({ backend, store: storeA, agents, env, drainTimeoutMs, leaseOwner: "drained" });
    const b = await startTestServer({ backend, store: storeB, agents, env, leaseOwner: "survivor" });
    const threadId = `remote-drain-${drainTimeoutMs}`;
    let drained = false;
    try {
      const live = await postSse(`${a.url}/api/agents/remote/run`, { threadId, runId: "r1", messages: [user("u1", "slow drain")], state: {}, tools: [], context: [] });
      await live.waitFor((f) => f.event.type === "TEXT_MESSAGE_CONTENT");
      const closing = a.close(); // the drain, as on SIGTERM
      drained = true;
      await closing;
      const seen = await live.done.catch(() => live.frames);
      const rest = await (await postSse(`${b.url}/api/agents/remote/connect`, { threadId, lastSeenEventId: seen.at(-1)!.id })).done;
      const ends = terminals([...seen, ...rest]);
      expect(ends).toHaveLength(1);
      expect(ends[0]!.event).toMatchObject({ type: end, ...(code && { code }) });
      expect((await remote.received()).filter((r) => r.threadId === threadId)).toHaveLength(1);
    } finally {
      if (!drained) await a.close();
      await b.close();
      await storeA.close();
      if (storeB !== storeA) await storeB.close();
      await remote.close();
    }
  });

  it("through CopilotKit's runtime (/api/copilotkit) and under tenants, as Threadline's own agents", async () => {
    const remote = await startRemote("node");
    const server = await startTestServer({
      backend,
      agents: [remoteAgent({ id: "remote", url: remote.url, headers: { "x-remote-key": "s3cret" } })],
      env: { API_KEYS: "acme:k1,globex:k2" },
    });
    const as = (key: string) => ({ authorization: `Bearer ${key}` });
    try {
      const body = { threadId: "ck-remote", runId: "r1", state: {}, tools: [], context: [], forwardedProps: {}, messages: [user("u1", "via copilotkit")] };
      const frames = await (await postSse(`${server.url}/api/copilotkit/agent/remote/run`, body, as("k1"))).done;
      expect(terminals(frames).map((f) => f.event.type)).toEqual(["RUN_FINISHED"]);
      expect(textOf(frames)).toBe("You said: via copilotkit. This is turn 1. ");
      // The remote gets its own headers, never the caller's credentials for Threadline.
      const sent = remote.headers?.().at(-1);
      expect(sent).toMatchObject({ "x-remote-key": "s3cret", accept: "text/event-stream", "content-type": "application/json" });
      expect(sent?.authorization).toBeUndefined();
      const mine = await fetch(`${server.url}/api/threads/ck-remote`, { headers: as("k1") });
      expect(((await mine.json()) as { messages: Message[] }).messages.at(-1)).toMatchObject({ id: "msg-1", content: "You said: via copilotkit. This is turn 1. " });
      // Another tenant does not see the thread, nor can it follow or cancel it.
      expect((await fetch(`${server.url}/api/threads/ck-remote`, { headers: as("k2") })).status).toBe(404);
      const theirs = await (await postSse(`${server.url}/api/agents/remote/connect`, { threadId: "ck-remote", lastSeenEventId: "0" }, as("k2"))).done;
      expect(theirs).toEqual([]);
    } finally {
      await server.close();
      await remote.close();
    }
  });

  it("a remote run whose instance died ends with one RUN_ERROR REMOTE_RUN_LOST on the instance that recovers it", async () => {
    const store = openStore(backend);
    await store.migrate();
    const threadId = "remote-lost";
    await store.ensureThread(threadId, "remote");
    await store.append(threadId, [
      { type: "thread.created", data: { agentId: "remote" } },
      { type: "run.accepted", data: { runId: "r1", tools: [], context: [] } },
      { type: "message.appended", data: { runId: "r1", source: "input", message: { id: "u1", role: "user", content: "hello" } } },
      { type: "workflow.started", data: { runId: "r1" } },
      { type: "text.started", data: { runId: "r1", messageId: "msg-1" } },
      { type: "text.delta", data: { runId: "r1", messageId: "msg-1", delta: "half an ans" } },
    ]);
    // The dead instance's lease, already expired by the database clock.
    expect(await store.acquireLease(threadId, "dead-instance", 0)).toBe(true);
    const remote = await startRemote("node");
    const server = await startTestServer({ backend, store, agents: [remoteAgent({ id: "remote", url: remote.url })] });
    try {
      const frames = await (await postSse(`${server.url}/api/agents/remote/connect`, { threadId, lastSeenEventId: "0" })).done;
      expect(terminals(frames).map((f) => f.event.code)).toEqual(["REMOTE_RUN_LOST"]);
      expect(frames.map((f) => f.event.type)).toContain("TEXT_MESSAGE_END"); // the cut text is closed for clients
      expect((await store.getThread(threadId))?.status).toBe("FAILED");
      expect(await remote.received()).toHaveLength(0); // never re-executed
    } finally {
      await server.close();
      await store.close();
      await remote.close();
    }
  });
});
