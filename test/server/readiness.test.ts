/**
 * Ready means serving (issue 29): /readyz answers 503 NOT_STARTED (with Retry-After and a
 * sentence) until start() has finished, and 200 only when a run would be accepted; once close()
 * began it answers 503 SERVER_CLOSING, the code a run gets then. Polled every 50 ms from the
 * start: the standalone server (server/main.ts, a child process) on Postgres and on a fresh
 * PGlite DATA_DIR, and an application that mounts router() and health() itself. The first run
 * sent right after the first 200 is accepted. Before, /readyz only pinged the store, and said
 * 200 for up to 6.8 s of a start on a loaded machine while every run got 503 NOT_STARTED.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import express from "express";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.ts";
import { createThreadline } from "../../server/threadline.ts";
import { spawnMain, type MainProcess } from "../support/main-process.ts";
import { boundUrl, expectNotStartedBefore, probe, sendRun, START_BOUND_MS, untilReady } from "../support/readiness-probe.ts";
import { backends, testSchema, type BackendName } from "../support/server.ts";


const tmp = mkdtempSync(join(tmpdir(), "threadline-readiness-"));
const children: MainProcess[] = [];
afterAll(async () => {
  for (const c of children) await c.kill("SIGKILL");
  rmSync(tmp, { recursive: true, force: true });
});

function envFor(backend: BackendName): Record<string, string> {
  if (backend === "postgres") return { DATABASE_URL: process.env.DATABASE_URL!, DATABASE_SCHEMA: testSchema("rd") };
  return { DATA_DIR: mkdtempSync(join(tmp, "data-")) };
}

describe.each(backends())("/readyz of the standalone server on %s, polled from process start", (backend) => {
  it(
    "503 NOT_STARTED until start() finished; the first run after the first 200 is accepted",
    async () => {
      const child = spawnMain({ ...envFor(backend), PORT: "0", LOG_LEVEL: "info" });
      children.push(child);
      // From the moment its port is bound: before, nothing answers.
      const url = await boundUrl(child);
      const seen = await untilReady(url, child.exited);
      const run = await sendRun(`${url}/api/agents/default/run`);
      console.log(`${backend}: first 200 after ${seen.length} probes (${seen.filter((p) => p.code === "NOT_STARTED").length} answered 503 NOT_STARTED)`);
      expect(run.status, run.text).toBe(200);
      expect(run.text).toContain('"type":"RUN_FINISHED"');
      expectNotStartedBefore(seen);
      await child.kill("SIGTERM");
    },
    START_BOUND_MS + 30_000,
  );
});

describe.each(backends())("/readyz of an application that mounts router() and health() itself, on %s", (backend) => {
  it("503 NOT_STARTED until start() finished, the first run after the first 200 accepted, 503 SERVER_CLOSING once close() began", async () => {
    const dataDir = mkdtempSync(join(tmp, "lib-"));
    const threadline = createThreadline({
      ...(backend === "postgres" ? { database: process.env.DATABASE_URL!, schema: testSchema("rd") } : {}),
      config: loadConfig({ LOG_LEVEL: "silent", DATA_DIR: dataDir }),
      logger: pino({ level: "silent" }),
    });
    const app = express();
    app.use(threadline.health());
    app.use("/ai", threadline.router());
    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      // Before start(): the application has not called it yet.
      expect(await probe(url)).toMatchObject({ status: 503, code: "NOT_STARTED", retryAfter: "1" });
      const starting = threadline.start();
      const seen = await untilReady(url, starting.then(() => new Promise(() => {})));
      const run = await sendRun(`${url}/ai/agents/default/run`);
      expect(run.status, run.text).toBe(200);
      expect(run.text).toContain('"type":"RUN_FINISHED"');
      expectNotStartedBefore(seen);
      await starting;

      // Draining: not ready from the moment close() is called, and a run gets the same code.
      const closing = threadline.close();
      const draining = await probe(url);
      await closing;
      const closed = await probe(url);
      const refused = await sendRun(`${url}/ai/agents/default/run`);
      for (const p of [draining, closed]) expect(p).toMatchObject({ status: 503, code: "SERVER_CLOSING", retryAfter: "5" });
      expect(refused.status).toBe(503);
      expect(JSON.parse(refused.text)).toMatchObject({ error: { code: "SERVER_CLOSING" } });
    } finally {
      await threadline.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
