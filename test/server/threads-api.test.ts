/** The thread API: list (filters, pages), one thread, raw events (JSON and live SSE), delete. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoUpstream } from "../support/demo-upstream.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
import { postSse, readSseFrames } from "../support/sse-client.ts";

interface ThreadJson {
  threadId: string;
  agentId: string;
  status: string;
  updatedAt: string;
}

describe.each(backends())("thread API on %s", (backend) => {
  let upstream: Awaited<ReturnType<typeof startDemoUpstream>>;
  let server: TestServer;
  const get = async <T>(path: string) => {
    const res = await fetch(`${server.url}${path}`);
    return { status: res.status, body: (await res.json()) as T };
  };
  const chat = async (threadId: string, text: string) => {
    const s = await postSse(`${server.url}/api/agents/default/run`, {
      threadId, runId: `${threadId}-r${Math.random()}`, messages: [{ id: `${threadId}-u`, role: "user", content: text }],
    });
    return s.done;
  };

  beforeAll(async () => {
    upstream = await startDemoUpstream({ latencyMs: 0 });
    server = await startTestServer({ backend, llmUrl: upstream.url });
    for (const id of ["a1", "a2", "a3", "a4", "a5"]) await chat(id, "hello");
  });
  afterAll(async () => {
    await server.close();
    await upstream.stop();
  });

  it("lists threads newest activity first, filtered, in pages", async () => {
    const all = await get<{ threads: ThreadJson[]; next: string | null }>("/api/threads?limit=50");
    expect(all.body.threads.map((t) => t.threadId)).toEqual(["a5", "a4", "a3", "a2", "a1"]);
    expect(all.body.threads.every((t) => t.status === "WAITING" && t.agentId === "default")).toBe(true);

    const pages: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { threads: ThreadJson[]; next: string | null } } = await get(
        `/api/threads?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expect(page.body.threads.length).toBeLessThanOrEqual(2);
      pages.push(...page.body.threads.map((t) => t.threadId));
      cursor = page.body.next;
    } while (cursor);
    expect(pages).toEqual(["a5", "a4", "a3", "a2", "a1"]);

    expect((await get<{ threads: ThreadJson[] }>("/api/threads?status=RUNNING")).body.threads).toEqual([]);
    expect((await get<{ threads: ThreadJson[] }>("/api/threads?agentId=other")).body.threads).toEqual([]);
    const bad = await get<{ error: { code: string; issues: { path: string }[] } }>("/api/threads?status=BUSY&limit=0");
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues.map((i) => i.path).sort()).toEqual(["limit", "status"]);
  });

  it("returns one thread rebuilt from the log, and 404 with a hint for an unknown one", async () => {
    const one = await get<{ status: string; messages: { role: string }[]; state: unknown }>("/api/threads/a1");
    expect(one.status).toBe(200);
    expect(one.body.status).toBe("WAITING");
    expect(one.body.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    const missing = await get<{ error: { code: string; message: string } }>("/api/threads/nope");
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toMatch(/first run/);
  });

  it("serves the raw events as JSON pages and as a live SSE stream", async () => {
    const page = await get<{ events: { seq: number; type: string }[]; next: number | null }>("/api/threads/a2/events?limit=3");
    expect(page.body.events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(page.body.events[0]!.type).toBe("thread.created");
    expect(page.body.next).toBe(3);
    const rest = await get<{ events: { seq: number }[] }>(`/api/threads/a2/events?after=${page.body.next}`);
    expect(rest.body.events[0]!.seq).toBe(4);

    // Live: the SSE stream replays after the cursor and then carries a new run's events.
    const controller = new AbortController();
    const res = await fetch(`${server.url}/api/threads/a2/events`, { headers: { accept: "text/event-stream", "last-event-id": "2" }, signal: controller.signal });
    expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
    const seen: { id: string; type: string }[] = [];
    const reading = (async () => {
      for await (const { id, event } of readSseFrames(res.body as AsyncIterable<Uint8Array>)) {
        if (id) seen.push({ id, type: event.type });
        if (event.type === "workflow.suspended" && seen.filter((s) => s.type === "workflow.suspended").length === 2) return;
      }
    })();
    await chat("a2", "hello again");
    await reading;
    controller.abort();
    expect(seen[0]!.id).toBe("3");
    expect(seen.map((s) => Number(s.id))).toEqual(seen.map((_, i) => i + 3));
  });

  it("deletes a settled thread, and refuses an unknown one", async () => {
    const del = await fetch(`${server.url}/api/threads/a3`, { method: "DELETE" });
    expect(del.status).toBe(204);
    expect((await get("/api/threads/a3")).status).toBe(404);
    expect(await server.store.read("a3")).toEqual([]);
    expect((await fetch(`${server.url}/api/threads/a3`, { method: "DELETE" })).status).toBe(404);
  });

  it("lists the agents it hosts", async () => {
    const agents = await get<{ agents: { id: string; tools: { name: string }[] }[] }>("/api/agents");
    expect(agents.body.agents.map((a) => a.id)).toEqual(["default"]);
    expect(agents.body.agents[0]!.tools.map((t) => t.name)).toEqual(["get_weather", "update_tasks", "run_plan"]);
  });
});
