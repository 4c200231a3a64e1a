/**
 * The thread list's titles, rename, archive, search and "waiting for you", and the state as one
 * tool call left it, on both backends with the built-in demo model: a title is the first user
 * message until someone renames the thread; PATCH validates (400 with reasons, nothing written),
 * is tenant-scoped (404 for another tenant's thread); archived threads leave the default list;
 * ?q= finds threads by title; the thread view carries the same title and marks; a thread waiting for an approval is marked, an idle one is not; two
 * plans' calls each have their own run's state.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approvalsAgent } from "../../server/agents/approvals-agent.ts";
import { defaultAgent } from "../../server/agents/default-agent.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
import { postSse } from "../support/sse-client.ts";

interface Listed {
  threadId: string;
  title: string | null;
  titleSet: boolean;
  archived: boolean;
  waitingForYou: boolean;
  status: string;
}

const KEYS = "acme:key-a,globex:key-b";
/** See beforeAll. */
const FIRST_START_AND_RUNS_MS = 120_000;

describe.each(backends())("thread titles, archive and search on %s", (backend) => {
  let server: TestServer;
  const as = (key: string) => ({ authorization: `Bearer ${key}` });
  const req = async <T>(method: string, path: string, body?: unknown, key = "key-a") => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { ...as(key), ...(body !== undefined && { "content-type": "application/json" }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (res.status === 204 ? null : await res.json()) as T };
  };
  const list = async (query = "") => (await req<{ threads: Listed[] }>("GET", `/api/threads${query}`)).body.threads;
  const say = async (agent: string, threadId: string, text: string, n = 1) =>
    (
      await postSse(
        `${server.url}/api/agents/${agent}/run`,
        { threadId, runId: `${threadId}-r${n}`, messages: [{ id: `${threadId}-u${n}`, role: "user", content: text }] },
        as("key-a"),
      )
    ).done;

  // The three threads' runs at once: each is paced by the demo model's timers, which overlap.
  // The hook's bound covers a first server start of the file (module loading, a PGlite, or the
  // migrations of a fresh schema) and those runs: 12–14 s with two busy loops per core and
  // another suite beside it; at load 10–15 (the whole suite and more) it passed the 60 s default
  // (issue 29), as a file's first start does elsewhere (test/server/startup-errors.test.ts).
  beforeAll(async () => {
    server = await startTestServer({ backend, env: { API_KEYS: KEYS }, agents: [defaultAgent({ planStepDelayMs: 5 }), approvalsAgent()] });
    await Promise.all([
      say("default", "tm-hello", "hello   there,\n how are you?"),
      say("approvals", "tm-email", "Email the team a status update"),
      say("default", "tm-long", `Tell me ${"very ".repeat(40)}much`),
    ]);
  }, FIRST_START_AND_RUNS_MS);
  afterAll(() => server.close());

  it("titles each thread with its first user message (one line, cut short) and marks the one waiting for an answer", async () => {
    const rows = new Map((await list()).map((t) => [t.threadId, t]));
    expect(rows.get("tm-hello")).toMatchObject({ title: "hello there, how are you?", titleSet: false, archived: false, waitingForYou: false, status: "WAITING" });
    expect(rows.get("tm-email")).toMatchObject({ title: "Email the team a status update", waitingForYou: true, status: "WAITING" });
    const long = rows.get("tm-long")!.title!;
    expect(long.length).toBe(80);
    expect(long.endsWith("…")).toBe(true);
  });

  it("renames (and back to the derived title with null), archives and unarchives; search finds by title", async () => {
    const renamed = await req<Listed>("PATCH", "/api/threads/tm-hello", { title: "  Greetings thread  " });
    expect(renamed).toMatchObject({ status: 200, body: { threadId: "tm-hello", title: "Greetings thread", titleSet: true } });
    expect((await list("?q=greetINGS")).map((t) => t.threadId)).toEqual(["tm-hello"]);
    expect((await list("?q=status%20update")).map((t) => t.threadId)).toEqual(["tm-email"]);
    expect(await list("?q=nothing-like-this")).toEqual([]);

    const archived = await req<Listed>("PATCH", "/api/threads/tm-hello", { archived: true });
    expect(archived.body).toMatchObject({ archived: true, title: "Greetings thread" });
    // The thread view says the same as the list: the app's header shows it for a thread opened by its address.
    expect((await req<Listed>("GET", "/api/threads/tm-hello")).body).toMatchObject({ title: "Greetings thread", titleSet: true, archived: true, waitingForYou: false });
    expect((await req<Listed>("GET", "/api/threads/tm-email")).body).toMatchObject({ title: "Email the team a status update", waitingForYou: true });
    expect((await req("GET", "/api/threads/tm-hello", undefined, "key-b")).status).toBe(404);
    expect((await list()).map((t) => t.threadId)).not.toContain("tm-hello");
    expect((await list("?archived=true")).map((t) => t.threadId)).toEqual(["tm-hello"]);
    expect((await list("?archived=all")).map((t) => t.threadId)).toContain("tm-hello");

    await req("PATCH", "/api/threads/tm-hello", { archived: false, title: null });
    const back = (await list()).find((t) => t.threadId === "tm-hello");
    expect(back).toMatchObject({ archived: false, title: "hello there, how are you?", titleSet: false });
  });

  it("refuses a bad patch with reasons and writes nothing; another tenant's thread is not found", async () => {
    for (const body of [{}, { title: "" }, { title: "   " }, { title: "a\nb" }, { title: "x".repeat(201) }, { archived: "yes" }, { color: "red" }]) {
      const res = await req<{ error: { code: string; issues: unknown[] } }>("PATCH", "/api/threads/tm-email", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("INVALID_THREAD_PATCH");
      expect(res.body.error.issues.length).toBeGreaterThan(0);
    }
    expect((await list()).find((t) => t.threadId === "tm-email")).toMatchObject({ title: "Email the team a status update", titleSet: false });

    expect((await req("PATCH", "/api/threads/tm-email", { title: "mine now" }, "key-b")).status).toBe(404);
    expect((await req("PATCH", "/api/threads/no-such-thread", { title: "x" })).status).toBe(404);
    expect((await list()).find((t) => t.threadId === "tm-email")?.titleSet).toBe(false);
  });

  it("deletes a thread from the list", async () => {
    await say("default", "tm-delete", "hello");
    expect((await req("DELETE", "/api/threads/tm-delete")).status).toBe(204);
    expect((await list("?archived=all")).map((t) => t.threadId)).not.toContain("tm-delete");
  });

  it("gives each of two plans the state its own run left", async () => {
    await say("default", "tm-plans", "Make a plan to launch the website", 1);
    await say("default", "tm-plans", "Make a plan to move house", 2);
    const view = (await req<{ toolCalls: Record<string, { name: string }> }>("GET", "/api/threads/tm-plans")).body;
    const calls = Object.keys(view.toolCalls);
    expect(calls).toHaveLength(2);
    type At = { done: boolean; state: { plan: { goal: string; steps: { status: string }[] } } };
    const [first, second] = await Promise.all(calls.map((id) => req<At>("GET", `/api/threads/tm-plans/state?toolCallId=${encodeURIComponent(id)}`)));
    expect(first!.body).toMatchObject({ done: true, state: { plan: { goal: "launch the website" } } });
    expect(second!.body).toMatchObject({ done: true, state: { plan: { goal: "move house" } } });
    expect(first!.body.state.plan.steps.every((s) => s.status === "completed")).toBe(true);
    expect((await req("GET", "/api/threads/tm-plans/state?toolCallId=nope")).status).toBe(404);
    expect((await req("GET", "/api/threads/tm-plans/state")).status).toBe(400);
  });
});
