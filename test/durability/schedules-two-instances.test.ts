/**
 * A schedule fires each tick exactly once across instances (docs/schedules.md): two instances on
 * one schema (two stores on Postgres, so two processes' worth of connections; one shared store on
 * PGlite), both polling, both setting a timer for every tick. A schedule every 2 s, left for 30 s,
 * starts 15 ± 1 runs (the ± is the tick at the 30th second, which the pause may meet either side
 * of), each tick's run admitted once, whichever instance claimed it. It runs for the 30 s it
 * measures: the interval is the thing under test.
 */
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends } from "../support/server.ts";
import { startTwoInstances, type TwoInstances } from "../support/two-instances.ts";

const EVERY_MS = 2_000;
const WINDOW_MS = 30_000;

describe.each(backends())("a schedule on two instances (%s)", (backend) => {
  let pair: TwoInstances;
  beforeAll(async () => {
    pair = await startTwoInstances(backend, { env: { SCHEDULE_POLL_MS: "500" } });
  });
  afterAll(() => pair?.close());

  it(`every ${EVERY_MS} ms for ${WINDOW_MS / 1000} s starts ${WINDOW_MS / EVERY_MS} ± 1 runs, none twice`, async () => {
    const created = await request(pair.a.url)
      .post("/api/schedules")
      .send({ agentId: "default", everyMs: EVERY_MS, input: { messages: [{ id: "u1", role: "user", content: "tick" }] } });
    expect(created.status).toBe(201);
    const { scheduleId, createdAt } = created.body;
    // The measured window: wall-clock time is what a schedule is about.
    await new Promise((r) => setTimeout(r, Date.parse(createdAt) + WINDOW_MS + EVERY_MS / 2 - Date.now()));
    expect((await request(pair.b.url).post(`/api/schedules/${scheduleId}/pause`)).body.paused).toBe(true);

    const runs: { threadId: string; runId: string; dueAt: string; error?: unknown }[] = (await request(pair.b.url).get(`/api/schedules/${scheduleId}/runs`)).body.runs;
    console.log(`[schedules] ${backend}: ${runs.length} runs in ${WINDOW_MS / 1000} s on two instances`);
    expect(runs.length).toBeGreaterThanOrEqual(WINDOW_MS / EVERY_MS - 1);
    expect(runs.length).toBeLessThanOrEqual(WINDOW_MS / EVERY_MS + 1);
    expect(runs.filter((r) => r.error)).toEqual([]);
    const dues = runs.map((r) => Date.parse(r.dueAt)).sort((x, y) => x - y);
    expect(new Set(dues).size).toBe(dues.length);
    for (let i = 1; i < dues.length; i++) expect(dues[i]! - dues[i - 1]!).toBe(EVERY_MS);
    // Each tick's run was admitted once (its own thread holds one run.accepted, under the tick's id).
    for (const r of runs) {
      const accepted = (await pair.store.read(r.threadId)).filter((e) => e.type === "run.accepted");
      expect(accepted.map((e) => e.runId), r.threadId).toEqual([r.runId]);
    }
  }, WINDOW_MS + 60_000);
});
