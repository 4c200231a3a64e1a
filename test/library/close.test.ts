/**
 * close() is graceful and bounded, with a second instance on the same Postgres store: new runs
 * on the closing instance get 503 with Retry-After; a run executing there finishes its step in
 * flight within drainTimeoutMs and is handed over before its next step, or, past the bound, has
 * that step cut and is handed over with it (marked workflow.handed_over, its lease freed at once,
 * so the other instance's next sweep continues it, logging and counting a hand-off); either way
 * it ends once, no finished step is done again, and the closing instance leaves no lease behind.
 */
import pg from "pg";
import request from "supertest";
import { endsRun } from "../../protocol/lifecycle.ts";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { postSse } from "../support/sse-client.ts";
import { testSchema } from "../support/server.ts";
import { gatedAgent, runBody, startGatedUpstream, user, type GatedAgent } from "../server/support.ts";
import { startLibraryApp, type LibraryApp } from "./support.ts";

const DATABASE_URL = process.env.DATABASE_URL;

describe.runIf(DATABASE_URL)("close() with a second instance on the same Postgres store", () => {
  let upstream: Awaited<ReturnType<typeof startGatedUpstream>>;
  let check: pg.Client;
  const open: LibraryApp[] = [];

  beforeAll(async () => {
    upstream = await startGatedUpstream();
    check = new pg.Client({ connectionString: DATABASE_URL });
    await check.connect();
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((a) => a.close()));
  });
  afterAll(async () => {
    await check?.end();
    await upstream?.mock.stop();
  });

  async function pair(gated: GatedAgent, drainTimeoutMs: number) {
    const schema = testSchema();
    const common = { llmUrl: upstream.url, mount: "/ai", agents: [gated.agent], database: DATABASE_URL!, schema };
    const a = await startLibraryApp({ ...common, leaseOwner: "A", drainTimeoutMs });
    const b = await startLibraryApp({ ...common, leaseOwner: "B" });
    open.push(b);
    return { a, b, schema };
  }

  async function leasesOf(schema: string, owner: string): Promise<string[]> {
    const { rows } = await check.query<{ thread_id: string }>(`select thread_id from "${schema}".threads where lease_owner = $1`, [owner]);
    return rows.map((r) => r.thread_id);
  }

  /** The thread's frames through B's connect, which ends once no run is active. */
  async function framesVia(app: LibraryApp, threadId: string) {
    const stream = await postSse(`${app.url}/ai/agents/gated/connect`, { threadId });
    return stream.done;
  }

  /** The model requests aimock has answered so far. */
  const modelRequests = () => upstream.mock.getRequests().filter((r) => r.path.includes("/chat/completions")).length;

  it("lets the step in flight finish within the bound, then hands the run over before its next step; new runs get 503 meanwhile", async () => {
    const gated = gatedAgent();
    const { a, b, schema } = await pair(gated, 60_000);
    const threadId = "close-finishes";
    const requestsBefore = modelRequests();
    const run = await postSse(`${a.url}/ai/agents/gated/run`, runBody(threadId, [user("one step")]));
    void run.done.catch(() => {});
    expect(await gated.started.next()).toBe("only");

    const closed = a.threadline.close();
    const refused = await fetch(`${a.url}/ai/agents/gated/run`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(runBody("close-new", [user("hello")])),
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("SERVER_CLOSING");
    expect(body.error.message).toMatch(/shutting down/);
    expect(await a.threadline.store.getThread("close-new")).toBeNull();

    // The tool (the step in flight) finishes on A; the model request after it is B's.
    gated.release.open();
    await closed;
    await a.close();
    const replay = await framesVia(b, threadId);
    expect(replay.filter((f) => f.event.type === "RUN_FINISHED")).toHaveLength(1);

    expect(gated.aborted).toEqual([]);
    expect(gated.completed.get("only")).toBe(1);
    expect(await leasesOf(schema, "A")).toEqual([]);
    const events = await b.threadline.store.read(threadId);
    expect(events.filter(endsRun).map((e) => e.type)).toEqual(["workflow.suspended"]); // waits for the next message
    // Two steps durable on A (the model's tool call, the tool), none done again on B.
    expect(events.filter((e) => e.type === "workflow.handed_over").map((e) => e.data)).toEqual([{ runId: expect.any(String), owner: "A", step: 2, cut: false }]);
    expect(events.filter((e) => e.type === "workflow.resumed").map((e) => e.data)).toEqual([
      { runId: expect.any(String), reason: "handed_over", owner: "B", from: "A" },
    ]);
    expect(modelRequests() - requestsBefore).toBe(2);
    expect(await handOffs(b)).toEqual({ in: 1, cut: 0 });
  });

  it("hands a run that outlasts the bound over to the other instance, leaving no lease of its own", async () => {
    const gated = gatedAgent();
    const { a, b, schema } = await pair(gated, 100);
    const threadId = "close-hands-over";
    const run = await postSse(`${a.url}/ai/agents/gated/run`, runBody(threadId, [user("one step")]));
    void run.done.catch(() => {});
    expect(await gated.started.next()).toBe("only");
    expect(await leasesOf(schema, "A")).toEqual([threadId]);

    await a.close(); // the drain ends at its bound with the tool still waiting: cut, handed over
    expect(gated.aborted).toEqual(["only"]);
    expect(await leasesOf(schema, "A")).toEqual([]);
    const mark = (await b.threadline.store.read(threadId)).find((e) => e.type === "workflow.handed_over");
    expect(mark?.data).toMatchObject({ owner: "A", step: 1, cut: true });

    // B's sweep claims the freed lease and executes the tool again from the log.
    expect(await gated.started.next()).toBe("only");
    gated.release.open();
    const replay = await framesVia(b, threadId);
    expect(replay.filter((f) => f.event.type === "RUN_FINISHED")).toHaveLength(1);

    const events = await b.threadline.store.read(threadId);
    const resumed = events.filter((e) => e.type === "workflow.resumed");
    expect(resumed.map((e) => e.data)).toEqual([{ runId: expect.any(String), reason: "handed_over", owner: "B", from: "A" }]);
    expect(events.filter(endsRun).map((e) => e.type)).toEqual(["workflow.suspended"]); // waits for the next message
    expect(await leasesOf(schema, "A")).toEqual([]);
    expect((await b.threadline.store.getThread(threadId))?.status).toBe("WAITING");
    expect(await handOffs(b)).toEqual({ in: 1, cut: 1 });
  });

  /** The hand-offs the instance's /metrics counts as continued there, and how many of those were cut. */
  async function handOffs(app: LibraryApp): Promise<{ in: number; cut: number }> {
    const text = (await request(app.threadline.app).get("/metrics")).text;
    const count = (cut: boolean) => Number(new RegExp(`^threadline_run_handoffs_total\\{direction="in",cut="${cut}"\\} (\\d+)$`, "m").exec(text)?.[1] ?? 0);
    return { in: count(false) + count(true), cut: count(true) };
  }
});
