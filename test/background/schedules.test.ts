/**
 * Schedules through the real HTTP API (docs/schedules.md): created, listed, read, paused, resumed
 * and deleted per tenant, refused with every reason when they cannot be kept; a schedule's ticks
 * start runs (a new thread each, or its fixed thread) that GET /schedules/:id/runs lists with
 * their status; and a tick missed while no instance ran fires once on return, or is skipped,
 * by the schedule's policy.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, openStore, startTestServer, type TestServer } from "../support/server.ts";
import { MISSED_AFTER_MS } from "../../server/schedules/timing.ts";
import type { EventStore } from "../../server/store/types.ts";

const KEYS = { default: "key-default", acme: "key-acme" };
const input = { messages: [{ id: "u1", role: "user", content: "hello" }] };

describe.each(backends())("schedules on %s", (backend) => {
  let server: TestServer;
  let store: EventStore;
  beforeAll(async () => {
    store = openStore(backend);
    server = await startTestServer({ backend, store, env: { API_KEYS: `${KEYS.default},acme:${KEYS.acme}`, SCHEDULE_POLL_MS: "200" } });
  });
  afterAll(async () => {
    await server?.close();
    await store?.close();
  });

  const api = (method: "get" | "post" | "delete", path: string, key = KEYS.default) => request(server.url)[method](`/api${path}`).set("authorization", `Bearer ${key}`);
  /** The schedule's runs once `n` of them have started and settled (each run is a demo answer). */
  async function runsOf(scheduleId: string, n: number, key = KEYS.default) {
    for (;;) {
      const { body } = await api("get", `/schedules/${scheduleId}/runs`, key);
      const settled = body.runs.filter((r: { status?: string }) => r.status === "finished");
      if (settled.length >= n) return body.runs as { threadId: string; runId: string; dueAt: string; status?: string }[];
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it("creates, reads, lists, pauses, resumes and deletes a tenant's schedule", async () => {
    const created = await api("post", "/schedules").send({ agentId: "default", cron: "0 9 * * 1-5", timezone: "Europe/Paris", input });
    expect(created.status).toBe(201);
    const { scheduleId } = created.body;
    expect(scheduleId).toEqual(expect.any(String));
    expect(created.headers.location).toBe(`/api/schedules/${scheduleId}`);
    const read = await api("get", `/schedules/${scheduleId}`);
    expect(read.body).toMatchObject({ scheduleId, agentId: "default", cron: "0 9 * * 1-5", timezone: "Europe/Paris", missed: "once", paused: false, input });
    // Weekdays at 09:00 in Paris: 07:00 or 08:00 UTC.
    expect(new Date(read.body.nextAt).getUTCHours()).toBeGreaterThanOrEqual(7);
    expect((await api("get", "/schedules")).body.schedules.map((s: { scheduleId: string }) => s.scheduleId)).toContain(scheduleId);
    // Another tenant sees nothing of it.
    expect((await api("get", `/schedules/${scheduleId}`, KEYS.acme)).status).toBe(404);
    expect((await api("get", "/schedules", KEYS.acme)).body.schedules).toEqual([]);
    expect((await api("delete", `/schedules/${scheduleId}`, KEYS.acme)).status).toBe(404);

    const paused = await api("post", `/schedules/${scheduleId}/pause`);
    expect(paused.body).toMatchObject({ paused: true });
    expect(paused.body.nextAt).toBeUndefined();
    const resumed = await api("post", `/schedules/${scheduleId}/resume`);
    expect(resumed.body).toMatchObject({ paused: false, nextAt: read.body.nextAt });
    expect((await api("delete", `/schedules/${scheduleId}`)).status).toBe(204);
    expect((await api("get", `/schedules/${scheduleId}`)).status).toBe(404);
    expect((await api("post", `/schedules/${scheduleId}/pause`)).status).toBe(404);
  });

  it("refuses a schedule it cannot keep, with every reason, writing nothing", async () => {
    const cases: [object, string[]][] = [
      [{ agentId: "default", input }, ["cron"]],
      [{ agentId: "default", cron: "* * * * *", everyMs: 5000, input }, ["cron"]],
      [{ agentId: "default", cron: "often", input }, ["cron"]],
      [{ agentId: "default", cron: "* * * * *", timezone: "Mars/Olympus", input }, ["timezone"]],
      [{ agentId: "default", everyMs: 10, input }, ["everyMs"]],
      [{ agentId: "default", everyMs: 5000, timezone: "UTC", input }, ["timezone"]],
      [{ agentId: "default", everyMs: 5000, input: { ...input, runId: "x" } }, ["input.runId"]],
      [{ agentId: "default", everyMs: 5000, input: { messages: "no" } }, ["input.messages"]],
      [{ agentId: "default", everyMs: 5000, threadId: "", input }, ["threadId"]],
      [{ agentId: "default", everyMs: 5000, input, missed: "always" }, ["missed"]],
    ];
    for (const [body, paths] of cases) {
      const res = await api("post", "/schedules").send(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("INVALID_SCHEDULE");
      expect(res.body.error.issues.map((i: { path: string }) => i.path)).toEqual(expect.arrayContaining(paths));
    }
    expect((await api("post", "/schedules").send({ agentId: "nobody", everyMs: 5000, input })).status).toBe(404);
    expect((await api("get", "/schedules")).body.schedules).toEqual([]);
  });

  it("ticks start runs, a new thread each, listed with their status; pause stops them", async () => {
    const { body } = await api("post", "/schedules").send({ agentId: "default", everyMs: 1000, input });
    const runs = await runsOf(body.scheduleId, 2);
    await api("post", `/schedules/${body.scheduleId}/pause`);
    // Paused: over the next interval and a half no tick is added (a tick claimed just before the
    // pause is already in the list read after it).
    const before = (await api("get", `/schedules/${body.scheduleId}/runs`)).body.runs.length;
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await api("get", `/schedules/${body.scheduleId}/runs`)).body.runs.length).toBe(before);
    const threads = new Set(runs.map((r) => r.threadId));
    expect(threads.size).toBe(runs.length);
    for (const r of runs.filter((x) => x.status === "finished")) {
      const thread = await api("get", `/threads/${r.threadId}`);
      expect(thread.body.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant"]);
      // Another tenant's key does not see the schedule's threads.
      expect((await api("get", `/threads/${r.threadId}`, KEYS.acme)).status).toBe(404);
    }
    // Ticks are one interval apart, each fired once.
    const dues = runs.map((r) => Date.parse(r.dueAt)).sort((x, y) => x - y);
    for (let i = 1; i < dues.length; i++) expect(dues[i]! - dues[i - 1]!).toBe(1000);
  });

  it("a tick missed while no instance ran fires once on return (missed: once), and not at all (missed: skip)", async () => {
    // Both schedules were due 15.5 intervals ago (past MISSED_AFTER_MS), as if every instance had been down since.
    const now = Date.now();
    const missedAt = now - MISSED_AFTER_MS - 5_500;
    for (const [scheduleId, missed] of [[`missed-once-${backend}`, "once"], [`missed-skip-${backend}`, "skip"]] as const) {
      await store.schedules.create({ tenantId: "default", scheduleId, agentId: "default", threadId: null, cron: null, timezone: null, everyMs: 1000, input, missed, nextAt: missedAt, createdAt: missedAt - 1000 });
    }
    const once = await runsOf(`missed-once-${backend}`, 2);
    const dues = once.map((r) => Date.parse(r.dueAt)).sort((x, y) => x - y);
    expect(dues[0]).toBe(missedAt); // the missed tick, once
    // then on its phase, from after the time it was found: none of the ticks in between
    expect(dues[1]! - missedAt).toBeGreaterThanOrEqual(now - missedAt);
    expect((dues[1]! - missedAt) % 1000).toBe(0);
    const skip = (await runsOf(`missed-skip-${backend}`, 1)).map((r) => Date.parse(r.dueAt));
    expect(Math.min(...skip) - missedAt).toBeGreaterThanOrEqual(now - missedAt);
    expect((Math.min(...skip) - missedAt) % 1000).toBe(0);
    for (const id of [`missed-once-${backend}`, `missed-skip-${backend}`]) await api("delete", `/schedules/${id}`);
  });
});
