/**
 * An outage is a 503: with Postgres refusing, resetting or silent behind a real TCP proxy
 * (test/support/tcp-proxy.ts), every route that needs the database answers 503
 * DATABASE_UNAVAILABLE with Retry-After (the CopilotKit mount: a RUN_ERROR with that code inside
 * its own protocol), never another 5xx; /readyz answers 503 naming the database; and a run in
 * flight through the outage settles once the database is back. Postgres only: PGlite runs in
 * this process and has no network to fail.
 *
 * No timing is asserted. Each request gets a generous client deadline, so that a request that
 * hangs fails the test instead of timing out the suite.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresStore, type DbTimeouts } from "../../server/store/postgres.ts";
import { startTestServer, testSchema } from "../support/server.ts";
import { parseSse, postSse } from "../support/sse-client.ts";
import { startTcpProxy, type ProxyMode } from "../support/tcp-proxy.ts";
import { gatedAgent, runBody, startGatedUpstream, user } from "../server/support.ts";

const DATABASE_URL = process.env.DATABASE_URL;
if (!DATABASE_URL) console.warn("test/durability/db-outage.test.ts: skipped, DATABASE_URL is not set (Postgres only)");

const LEASE_TTL_MS = 4_000;
/** Short bounds, so that the silent case is over in seconds (docs/failure-modes.md "Database bounds" has the defaults). */
const TIMEOUTS: DbTimeouts = { connectMs: 1_000, statementMs: 2_000, lockMs: 1_000, idleInTransactionMs: 1_000, tcpMs: 2_000, leaseLockMs: 300 };
const RETRY_MAX_MS = 4_000;
/** The client's deadline on one request: far past every server bound, so only a hang reaches it. */
const CLIENT_DEADLINE_MS = 30_000;

interface Answer {
  status: number;
  retryAfter: string | null;
  text: string;
}

async function send(url: string, method: "GET" | "POST", body?: object): Promise<Answer> {
  const res = await fetch(url, {
    method,
    headers: body ? { "content-type": "application/json", accept: "text/event-stream" } : {},
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(CLIENT_DEADLINE_MS),
  });
  return { status: res.status, retryAfter: res.headers.get("retry-after"), text: await res.text() };
}

/** A plain route's answer during the outage: 503, the database's code, Retry-After, a sentence naming the database. */
function expectUnavailable(route: string, a: Answer): void {
  expect({ route, status: a.status }).toEqual({ route, status: 503 });
  const body = JSON.parse(a.text) as { error: { code: string; message: string } };
  expect(body.error.code).toBe("DATABASE_UNAVAILABLE");
  expect(body.error.message).toMatch(/database is unavailable/i);
  expect(Number(a.retryAfter)).toBeGreaterThan(0);
}

/** The CopilotKit mount answers inside its protocol: a stream whose RUN_ERROR names the database. */
function expectRunError(route: string, a: Answer): void {
  expect({ route, status: a.status }).toEqual({ route, status: 200 });
  const errors = parseSse(a.text).frames.map((f) => f.event).filter((e) => e.type === "RUN_ERROR");
  expect(errors).toEqual([expect.objectContaining({ code: "DATABASE_UNAVAILABLE", message: expect.stringMatching(/database is unavailable/i) })]);
}

describe.skipIf(!DATABASE_URL)("a database outage is a 503 (Postgres, through a TCP proxy)", () => {
  const url = DATABASE_URL!;
  let upstream: Awaited<ReturnType<typeof startGatedUpstream>>;
  beforeAll(async () => {
    upstream = await startGatedUpstream();
  });
  afterAll(async () => {
    await upstream.mock.stop();
  });

  const outages: [string, ProxyMode][] = [
    ["refused", "refuse"],
    ["reset", "reset"],
    ["silent", "blackhole"],
  ];

  it.each(outages)("connections %s: every route answers 503 DATABASE_UNAVAILABLE, /readyz names the database, the run in flight settles", async (_name, mode) => {
    const target = new URL(url);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const schema = testSchema();
    const store = createPostgresStore({ connectionString: proxy.url(url), schema, timeouts: TIMEOUTS, retry: { maxElapsedMs: RETRY_MAX_MS } });
    const gated = gatedAgent();
    const server = await startTestServer({
      backend: "postgres",
      llmUrl: upstream.url,
      agents: [gated.agent],
      store,
      env: { LEASE_TTL_MS: String(LEASE_TTL_MS) },
    });
    try {
      const api = `${server.url}/api`;
      const ck = `${api}/copilotkit/agent/gated`;
      // A settled thread (the routes that read one have one to read) and a run in flight, held
      // in its tool while the database goes away.
      const done = await postSse(`${api}/agents/gated/run`, runBody("t-done", [user("hello")]));
      expect((await done.done).at(-1)?.event.type).toBe("RUN_FINISHED");
      const flight = await postSse(`${api}/agents/gated/run`, { ...runBody("t-flight", [user("one step")]) });
      flight.done.catch(() => undefined); // its stream may break in the outage: the thread's end is checked below
      await gated.started.next();

      if (mode === "refuse") proxy.reset(); // the open connections go too, as when the database stops
      await proxy.setMode(mode);
      gated.release.open(); // the tool's result now waits for the database

      const ready = await send(`${server.url}/readyz`, "GET");
      expect(ready.status).toBe(503);
      expect(ready.retryAfter).not.toBeNull();
      expect(JSON.parse(ready.text)).toMatchObject({ ok: false, cause: "database", code: "DATABASE_UNAVAILABLE", error: expect.stringMatching(/database/i) });

      const routes: [string, () => Promise<Answer>][] = [
        ["POST /agents/:id/run", () => send(`${api}/agents/gated/run`, "POST", runBody("t-new", [user("hi")]))],
        ["POST /agents/:id/connect", () => send(`${api}/agents/gated/connect`, "POST", { threadId: "t-done" })],
        ["POST /threads/:id/cancel", () => send(`${api}/threads/t-flight/cancel`, "POST", {})],
        ["GET /threads", () => send(`${api}/threads`, "GET")],
        ["GET /threads/:id", () => send(`${api}/threads/t-done`, "GET")],
        ["GET /threads/:id/events", () => send(`${api}/threads/t-done/events`, "GET")],
        ["GET /threads/:id/workspace", () => send(`${api}/threads/t-done/workspace`, "GET")],
        ["GET /threads/:id/workspace/file", () => send(`${api}/threads/t-done/workspace/file?path=a.txt`, "GET")],
      ];
      for (const [route, call] of routes) expectUnavailable(route, await call());

      const ckInput = (threadId: string, runId: string) => runBody(threadId, [user("hi")], { runId });
      expectRunError("copilotkit run", await send(`${ck}/run`, "POST", ckInput("t-ck", "t-ck-r1")));
      expectRunError("copilotkit connect", await send(`${ck}/connect`, "POST", ckInput("t-done", "t-done-connect")));
      const stop = await send(`${ck}/stop/t-flight`, "POST", {});
      expectUnavailable("copilotkit stop", stop);

      // The database comes back: the run in flight settles (resumed here, or by recovery once its
      // lease lapsed), and the API says so.
      await proxy.setMode("pass");
      const settled = await send(`${api}/agents/gated/connect`, "POST", { threadId: "t-flight" });
      expect(settled.status).toBe(200);
      const thread = JSON.parse((await send(`${api}/threads/t-flight`, "GET")).text) as { status: string; messages: { role: string; content?: unknown }[] };
      expect(thread.status).toBe("WAITING"); // the run completed: its thread waits for the next message
      expect(thread.messages.at(-1)).toMatchObject({ role: "assistant", content: "steps done" });
      expect((await send(`${server.url}/readyz`, "GET")).status).toBe(200);
    } finally {
      gated.release.open();
      await proxy.close(); // a blackholed server would otherwise wait out its timeouts
      await server.close();
      await store.close();
      const direct = new pg.Client({ connectionString: url });
      await direct.connect();
      await direct.query(`drop schema if exists "${schema}" cascade`);
      await direct.end();
    }
  }, 120_000);
});
