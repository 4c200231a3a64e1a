/**
 * Memory across threads through the real HTTP API (docs/memory.md): per-tenant namespaced keys to
 * JSON values, searched by prefix and by text (Postgres full-text search), bounded per entry and
 * per tenant with errors that say which bound (and the bound holds exactly under concurrent
 * writes); and an agent with memory (the demo model driving remember and recall, offline) that
 * remembers a fact in one thread and recalls it in another thread of the same tenant, and not in
 * another tenant's. What it wrote is in the run's events.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultAgent } from "../../server/agents/default-agent.ts";
import { defineAgent } from "../../server/agents/define.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
import { postSse } from "../support/sse-client.ts";

const KEYS = { default: "key-default", acme: "key-acme", bounded: "key-bounded" };

describe.each(backends())("memory on %s", (backend) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      backend,
      agents: [defaultAgent(), defineAgent({ id: "memo", instructions: "Remember what the user asks you to; recall it when asked.", memory: true })],
      env: { API_KEYS: `${KEYS.default},acme:${KEYS.acme},bounded:${KEYS.bounded}`, MEMORY_MAX_ENTRIES: "5", MEMORY_MAX_VALUE_BYTES: "200", MEMORY_MAX_BYTES: "600" },
    });
  });
  afterAll(() => server?.close());

  const api = (method: "get" | "put" | "delete", path: string, key = KEYS.default) => request(server.url)[method](`/api${path}`).set("authorization", `Bearer ${key}`);

  it("puts, gets, lists by prefix, searches by text and deletes, per tenant", async () => {
    const created = await api("put", "/memory/prefs/ui.theme").send({ mode: "dark", note: "The user prefers dark themes at night" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ namespace: "prefs", key: "ui.theme", value: { mode: "dark" } });
    expect((await api("put", "/memory/prefs/ui.theme").send({ mode: "light", note: "Light themes in the day" })).status).toBe(200);
    await api("put", "/memory/prefs/ui.font").send({ family: "Inter", size: 14 });
    await api("put", "/memory/prefs/lang").send(["fr", "en"]);
    await api("put", "/memory/prefs/ui_x%25").send({ tricky: "a key with _ and %" });
    expect((await api("get", "/memory/prefs/ui.theme")).body.value).toEqual({ mode: "light", note: "Light themes in the day" });

    const ui = await api("get", "/memory/prefs?prefix=ui.");
    expect(ui.body.entries.map((e: { key: string }) => e.key)).toEqual(["ui.font", "ui.theme"]);
    // LIKE's wildcards in a prefix are taken literally.
    expect((await api("get", "/memory/prefs?prefix=ui_")).body.entries.map((e: { key: string }) => e.key)).toEqual(["ui_x%"]);
    const page = await api("get", "/memory/prefs?limit=2");
    expect(page.body.entries).toHaveLength(2);
    const rest = await api("get", `/memory/prefs?limit=2&after=${encodeURIComponent(page.body.next)}`);
    expect([...page.body.entries, ...rest.body.entries].map((e: { key: string }) => e.key)).toEqual(["lang", "ui.font", "ui.theme", "ui_x%"]);

    const found = await api("get", "/memory/prefs?q=light themes");
    expect(found.body.entries.map((e: { key: string }) => e.key)).toEqual(["ui.theme"]);
    expect((await api("get", "/memory/prefs?q=Inter")).body.entries.map((e: { key: string }) => e.key)).toEqual(["ui.font"]);
    expect((await api("get", "/memory/prefs?q=dark")).body.entries).toEqual([]); // overwritten

    // Another tenant sees none of it, and its own namespace of the same name is its own.
    expect((await api("get", "/memory/prefs/ui.theme", KEYS.acme)).status).toBe(404);
    expect((await api("get", "/memory/prefs?q=light", KEYS.acme)).body.entries).toEqual([]);
    expect((await api("delete", "/memory/prefs/ui.theme", KEYS.acme)).status).toBe(404);
    expect((await api("delete", "/memory/prefs/ui.theme")).status).toBe(204);
    expect((await api("get", "/memory/prefs/ui.theme")).status).toBe(404);
  });

  it("refuses bad names and values, and holds each bound exactly, with errors that name it", async () => {
    expect((await api("put", "/memory/bad%20space/k", KEYS.bounded).send({})).body.error.code).toBe("INVALID_MEMORY_KEY");
    const big = await api("put", "/memory/n/big", KEYS.bounded).send({ text: "x".repeat(300) });
    expect(big.status).toBe(413);
    expect(big.body.error).toMatchObject({ code: "MEMORY_VALUE_TOO_LARGE", limit: 200 });
    // Ten writers at once, five entries allowed: exactly five get in.
    const puts = await Promise.all(Array.from({ length: 10 }, (_, i) => api("put", `/memory/n/k${i}`, KEYS.bounded).send({ i })));
    expect(puts.filter((r) => r.status === 201)).toHaveLength(5);
    const full = puts.find((r) => r.status === 409)!;
    expect(full.body.error).toMatchObject({ code: "MEMORY_FULL", bound: "entries", limit: 5 });
    expect(full.body.error.message).toMatch(/MEMORY_MAX_ENTRIES/);
    expect((await api("get", "/memory/n?limit=100", KEYS.bounded)).body.entries).toHaveLength(5);
    // Overwriting an entry adds none; a delete makes room again.
    const kept = (await api("get", "/memory/n", KEYS.bounded)).body.entries[0].key;
    expect((await api("put", `/memory/n/${kept}`, KEYS.bounded).send({ again: true })).status).toBe(200);
    expect((await api("delete", `/memory/n/${kept}`, KEYS.bounded)).status).toBe(204);
    // The bytes bound (600): three values of 181 bytes (as JSON) fit, a fourth does not (another tenant, empty so far).
    for (const k of ["b1", "b2", "b3"]) expect((await api("put", `/memory/bytes/${k}`, KEYS.acme).send({ text: "y".repeat(170) })).status).toBe(201);
    const over = await api("put", "/memory/bytes/b4", KEYS.acme).send({ text: "z".repeat(170) });
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({ code: "MEMORY_FULL", bound: "bytes", limit: 600, usage: { entries: 3, bytes: 3 * 181 } });
    expect((await api("get", "/memory/bytes/b4", KEYS.acme)).status).toBe(404);
  });

  it("an agent remembers a fact in one thread and recalls it in another of the same tenant, not in another tenant's", async () => {
    const run = (threadId: string, text: string, key: string) =>
      postSse(`${server.url}/api/agents/memo/run`, { threadId, runId: `${threadId}-r`, messages: [{ id: `${threadId}-u`, role: "user", content: text }] }, { authorization: `Bearer ${key}` }).then((s) => s.done);
    const said = (frames: Awaited<ReturnType<typeof run>>) => frames.filter((f) => f.event.type === "TEXT_MESSAGE_CONTENT").map((f) => f.event.delta).join("");

    const first = await run(`mem-a-${backend}`, "Remember that my favourite colour is teal", KEYS.default);
    // What the agent wrote is in the run's events: the remember call with its key and value.
    const args = first.filter((f) => f.event.type === "TOOL_CALL_ARGS").map((f) => f.event.delta).join("");
    expect(JSON.parse(args)).toEqual({ key: "my favourite colour", value: "my favourite colour is teal" });
    expect(first.some((f) => f.event.type === "TOOL_CALL_START" && f.event.toolCallName === "remember")).toBe(true);
    expect(said(first)).toContain("I'll remember that");

    const recalled = await run(`mem-b-${backend}`, "What is my favourite colour?", KEYS.default);
    expect(said(recalled)).toContain("my favourite colour is teal");
    const elsewhere = await run(`mem-c-${backend}`, "What is my favourite colour?", KEYS.acme);
    expect(said(elsewhere)).toBe("I don't remember anything about that.");
    // The application reads the same entry through HTTP.
    expect((await api("get", "/memory/agent/my favourite colour")).body.value).toBe("my favourite colour is teal");
  });

  it("capabilities say memory is on for an agent with memory, off for one without", async () => {
    expect((await api("get", "/agents/memo")).body.capabilities.state.memory).toBe(true);
    expect((await api("get", "/agents/default")).body.capabilities.state.memory).toBe(false);
  });
});
