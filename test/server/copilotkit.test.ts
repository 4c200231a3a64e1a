/**
 * CopilotKit's runtime at /api/copilotkit, on our runner: runs reach our engine (with the
 * caller's auth header), connect replays from the store (also after a restart, on a new
 * instance), stop cancels durably. Checked over HTTP as CopilotKit's browser core calls it.
 */
import { defaultAgent } from "../../server/agents/default-agent.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoUpstream } from "../support/demo-upstream.ts";
import { backends, openStore, startTestServer } from "../support/server.ts";
import { postSse } from "../support/sse-client.ts";

const input = (threadId: string, runId: string, text: string) => ({
  threadId, runId, state: {}, tools: [], context: [], forwardedProps: {},
  messages: [{ id: `${runId}-u`, role: "user", content: text }],
});

describe.each(backends())("CopilotKit runtime on %s", (backend) => {
  let upstream: Awaited<ReturnType<typeof startDemoUpstream>>;
  beforeAll(async () => {
    upstream = await startDemoUpstream({ latencyMs: 0 });
  });
  afterAll(() => upstream.stop());

  it("Regenerate and edit through the runtime route fork the thread; every branch stays readable", async () => {
    const store = openStore(backend);
    const a = await startTestServer({ backend, llmUrl: upstream.url, store });
    try {
      const run = (runId: string, messages: object[]) =>
        postSse(`${a.url}/api/copilotkit/agent/default/run`, { threadId: "ck-branch", runId, state: {}, tools: [], context: [], forwardedProps: {}, messages }).then((s) => s.done);
      const u1 = { id: "ck-u1", role: "user", content: "weather in Oslo?" };
      const first = await run("ck-b1", [u1]);
      expect(first.at(-1)?.event.type).toBe("RUN_FINISHED");
      const thread = async (q = "") => (await (await fetch(`${a.url}/api/threads/ck-branch${q}`)).json()) as { branch: string; messages: { id: string; role: string; content?: unknown }[] };
      const before = await thread();
      // Regenerate: the history up to the question.
      await run("ck-b2", [u1]);
      const regenerated = await thread();
      expect(regenerated.branch).toBe("ck-b2");
      expect(regenerated.messages.filter((m) => m.role === "user")).toHaveLength(1);
      expect(regenerated.messages.map((m) => m.id)).not.toContain(before.messages.at(-1)!.id);
      // Edit: the question under its id with new text.
      await run("ck-b3", [{ ...u1, content: "weather in Lima?" }]);
      const edited = await thread();
      expect(edited.branch).toBe("ck-b3");
      expect(edited.messages[0]).toMatchObject({ id: "ck-u1", content: "weather in Lima?" });
      // Both earlier branches stay readable.
      expect((await thread("?branch=main")).messages.map((m) => m.id)).toEqual(before.messages.map((m) => m.id));
      expect((await thread("?branch=ck-b2")).messages.map((m) => m.id)).toEqual(regenerated.messages.map((m) => m.id));
      // The answer on the current branch is about Lima (the demo model answers the question it got).
      expect(JSON.stringify(edited.messages.at(-1)!.content)).toContain("Lima");
    } finally {
      await a.close();
      await store.close();
    }
  });

  it("runs through our engine with the caller's key, and connect replays from the store after a restart", async () => {
    const store = openStore(backend);
    const auth = { authorization: "Bearer k1" };
    const a = await startTestServer({ backend, llmUrl: upstream.url, store, env: { API_KEYS: "k1" } });
    try {
      const info = await fetch(`${a.url}/api/copilotkit/info`, { headers: auth });
      expect(info.status).toBe(200);
      expect(Object.keys(((await info.json()) as { agents: object }).agents)).toContain("default");
      expect((await fetch(`${a.url}/api/copilotkit/info`)).status).toBe(401);

      const run = await postSse(`${a.url}/api/copilotkit/agent/default/run`, input("ck-1", "ck-r1", "weather in Oslo?"), auth);
      const frames = await run.done;
      expect(run.status).toBe(200);
      expect(frames[0]?.event.type).toBe("RUN_STARTED");
      expect(frames.map((f) => f.event.type)).toContain("TOOL_CALL_RESULT");
      expect(frames.at(-1)?.event.type).toBe("RUN_FINISHED");
      // The run went through our engine: it is in our log (our run endpoint accepted the key).
      expect((await store.getThread("ck-1"))?.status).toBe("WAITING");
    } finally {
      await a.close();
    }

    // A new instance on the same database: CopilotKit's connect replays the thread from it.
    const b = await startTestServer({ backend, llmUrl: upstream.url, store, env: { API_KEYS: "k1" } });
    try {
      const connect = await postSse(`${b.url}/api/copilotkit/agent/default/connect`, input("ck-1", "ck-connect", ""), auth);
      const replay = await connect.done;
      const snapshot = replay.find((f) => f.event.type === "MESSAGES_SNAPSHOT")?.event as { messages: { role: string }[] } | undefined;
      expect(snapshot?.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
      expect(replay.at(-1)?.event.type).toBe("RUN_FINISHED");

      const unknown = await postSse(`${b.url}/api/copilotkit/agent/default/connect`, input("ck-none", "x", ""), auth);
      expect(unknown.status).toBe(200);
      expect((await unknown.done).filter((f) => f.event.type === "MESSAGES_SNAPSHOT")).toEqual([]);
    } finally {
      await b.close();
      await store.close();
    }
  });

  it("stop cancels the run durably", async () => {
    // Plan steps long enough that the run cannot end on its own before the stop reaches it,
    // however loaded the machine: the steps wait on the abort signal, so the test stays quick.
    const server = await startTestServer({ backend, llmUrl: upstream.url, agents: [defaultAgent({ planStepDelayMs: 60_000 })] });
    try {
      const run = await postSse(`${server.url}/api/copilotkit/agent/default/run`, input("ck-stop", "ck-r2", "make a plan to test stop"));
      await run.waitFor((f) => f.event.type === "STATE_DELTA");
      const stop = await fetch(`${server.url}/api/copilotkit/agent/default/stop/ck-stop`, { method: "POST" });
      expect(stop.status).toBe(200);
      const frames = await run.done;
      expect(frames.at(-1)?.event).toMatchObject({ type: "RUN_ERROR", code: "CANCELLED" });
      expect((await server.store.getThread("ck-stop"))?.status).toBe("CANCELLED");
    } finally {
      await server.close();
    }
  });
});
