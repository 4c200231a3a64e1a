/**
 * Schedules (docs/schedules.md): POST <mount>/schedules (201 { scheduleId }), GET <mount>/schedules,
 * GET|DELETE <mount>/schedules/:scheduleId, POST .../pause and .../resume, GET .../runs. All of
 * them the caller's tenant's: another tenant's schedule answers as an unknown one.
 */
import { Router } from "express";
import type { ScheduleRun, Schedules } from "../../schedules/schedules.ts";
import type { ScheduleRow } from "../../store/schedule-store.ts";
import { callerTenant } from "../auth.ts";
import { validatePathIds } from "../ids.ts";

export function scheduleRoutes(schedules: Schedules): Router {
  const router = Router();
  router.use("/schedules/:scheduleId", validatePathIds("scheduleId"));
  router.post("/schedules", async (req, res) => {
    const created = await schedules.create(callerTenant(res), req.body);
    res.status(201).location(`${req.baseUrl}/schedules/${created.scheduleId}`).json(scheduleJson(created));
  });
  router.get("/schedules", async (_req, res) => {
    res.json({ schedules: (await schedules.list(callerTenant(res))).map(scheduleJson) });
  });
  router.get("/schedules/:scheduleId", async (req, res) => {
    res.json(scheduleJson(await schedules.get(callerTenant(res), req.params.scheduleId)));
  });
  router.delete("/schedules/:scheduleId", async (req, res) => {
    await schedules.delete(callerTenant(res), req.params.scheduleId);
    res.status(204).end();
  });
  for (const [action, paused] of [["pause", true], ["resume", false]] as const) {
    router.post(`/schedules/:scheduleId/${action}`, async (req, res) => {
      res.json(scheduleJson(await schedules.setPaused(callerTenant(res), req.params.scheduleId, paused)));
    });
  }
  router.get("/schedules/:scheduleId/runs", async (req, res) => {
    res.json({ runs: (await schedules.runs(callerTenant(res), req.params.scheduleId)).map(scheduleRunJson) });
  });
  return router;
}

function scheduleJson(s: ScheduleRow) {
  return {
    scheduleId: s.scheduleId,
    agentId: s.agentId,
    ...(s.threadId !== null && { threadId: s.threadId }),
    ...(s.cron !== null && { cron: s.cron }),
    ...(s.timezone !== null && { timezone: s.timezone }),
    ...(s.everyMs !== null && { everyMs: s.everyMs }),
    missed: s.missed,
    paused: s.paused,
    ...(!s.paused && { nextAt: new Date(s.nextAt).toISOString() }),
    input: s.input,
    createdAt: new Date(s.createdAt).toISOString(),
    updatedAt: new Date(s.updatedAt).toISOString(),
  };
}

function scheduleRunJson(r: ScheduleRun) {
  return {
    threadId: r.threadId,
    runId: r.runId,
    dueAt: new Date(r.dueAt).toISOString(),
    ...(r.startedAt !== null && { startedAt: new Date(r.startedAt).toISOString() }),
    ...(r.status !== undefined && { status: r.status }),
    ...(r.error && { error: r.error }),
  };
}
