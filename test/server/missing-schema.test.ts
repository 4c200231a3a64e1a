/**
 * An instance whose schema lost its tables after it started (dropped, restored without them)
 * answers every /api route that reads or writes the store with 503 STORE_NOT_READY, the reason
 * (Postgres's "relation … does not exist") and Retry-After, as /readyz does: never a 500. Routes
 * that do not touch the store (the agents) still answer 200, and nothing recreates the tables
 * behind the operator's back.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgliteBackend, postgresBackend, type StoreBackend } from "../store/backends.ts";
import { backends, startTestServer, testSchema, type TestServer } from "../support/server.ts";

const J = { "content-type": "application/json" };

describe.each(backends())("a schema without its tables on %s", (backendName) => {
  let db: StoreBackend;
  let schema: string;
  let server: TestServer;
  const threadId = `ms-${randomUUID()}`;

  const runBody = () => JSON.stringify({ threadId, runId: randomUUID(), messages: [{ id: randomUUID(), role: "user", content: "hi" }], tools: [], context: [], state: {} });

  beforeAll(async () => {
    db = backendName === "postgres" ? postgresBackend(process.env.DATABASE_URL!) : pgliteBackend();
    schema = testSchema();
    server = await startTestServer({ backend: backendName, store: db.open(schema) });
    const run = await fetch(`${server.url}/api/agents/default/run`, { method: "POST", headers: J, body: runBody() });
    expect(await run.text()).toContain('"type":"RUN_FINISHED"');
    await db.dropSchema(schema);
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await server?.store.close();
    await db?.dropSchema(schema);
    await db?.dispose();
  });

  it("/readyz says 503 with the reason", async () => {
    const res = await fetch(`${server.url}/readyz`);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("every /api route on the store answers 503 STORE_NOT_READY with the reason, never 500", async () => {
    const routes: [string, string, string?][] = [
      ["GET", "/api/threads"],
      ["GET", `/api/threads/${threadId}`],
      ["GET", `/api/threads/${threadId}/events`],
      ["GET", `/api/threads/${threadId}/state?toolCallId=tc-1`],
      ["PATCH", `/api/threads/${threadId}`, JSON.stringify({ title: "renamed" })],
      ["POST", `/api/threads/${threadId}/cancel`, "{}"],
      ["DELETE", `/api/threads/${threadId}`],
      ["GET", `/api/threads/${threadId}/workspace`],
      ["GET", `/api/threads/${threadId}/workspace/file?path=a.txt`],
      ["POST", "/api/agents/default/run", runBody()],
      ["POST", "/api/agents/default/connect", JSON.stringify({ threadId })],
    ];
    const answers: string[] = [];
    for (const [method, path, body] of routes) {
      const res = await fetch(`${server.url}${path}`, { method, headers: body ? J : {}, body });
      const text = await res.text();
      answers.push(`${method} ${path} -> ${res.status} ${text.slice(0, 300)}`);
      expect(res.status, answers.at(-1)).toBe(503);
      expect(res.headers.get("retry-after"), answers.at(-1)).toMatch(/^\d+$/);
      const error = (JSON.parse(text) as { error: { code: string; message: string } }).error;
      expect(error.code, answers.at(-1)).toBe("STORE_NOT_READY");
      expect(error.message, answers.at(-1)).toMatch(/does not exist: the store's schema lost its tables, or was never migrated here; restart the server/);
    }
  });

  it("the CopilotKit door, whose runtime starts the stream itself, ends it with RUN_ERROR STORE_NOT_READY and the reason", async () => {
    for (const verb of ["connect", "run"]) {
      const res = await fetch(`${server.url}/api/copilotkit/agent/default/${verb}`, { method: "POST", headers: J, body: runBody() });
      const text = await res.text();
      expect(res.status, text).toBeLessThan(500);
      if (res.status === 503) {
        expect(JSON.parse(text).error.code).toBe("STORE_NOT_READY");
        continue;
      }
      const events = text
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => JSON.parse(l.slice(6)) as { type: string; code?: string; message?: string });
      expect(events.at(-1), text).toMatchObject({ type: "RUN_ERROR", code: "STORE_NOT_READY", message: expect.stringMatching(/does not exist: the store's schema lost its tables/) });
    }
  });

  it("routes that do not read the store still answer, and nothing recreated the tables", async () => {
    expect((await fetch(`${server.url}/api/agents`)).status).toBe(200);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const [row] = await db.sql<{ n: number }>("select count(*)::int as n from information_schema.tables where table_schema = $1", [schema]);
    expect(row!.n).toBe(0);
  });
});
