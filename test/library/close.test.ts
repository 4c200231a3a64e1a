/**
 * close() is graceful and bounded, with a second instance on the same Postgres store: new runs
 * on the closing instance get 503 with Retry-After; a run executing there either finishes within
 * drainTimeoutMs or, past it, is stopped and handed over (its lease freed at once, so the other
 * instance's next sweep resumes it); either way it ends once, and the closing instance
 * leaves no lease behind.
 */
import pg from "pg";
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

  it("lets a run finish within the bound, refusing new runs with 503 meanwhile", async () => {
    const gated = gatedAgent();
    const { a, b, schema } = await pair(gated, 60_000);
    const threadId = "close-finishes";
    const run = await postSse(`${a.url}/ai/agents/gated/run`, runBody(threadId, [user("one step")]));
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

    gated.release.open();
    const frames = await run.done; // the run's own stream ends with its end, on A
    expect(frames.filter((f) => f.event.type === "RUN_FINISHED")).toHaveLength(1);
    await closed;
    await a.close();

    expect(gated.aborted).toEqual([]);
    expect(gated.completed.get("only")).toBe(1);
    expect(await leasesOf(schema, "A")).toEqual([]);
    const events = await b.threadline.store.read(threadId);
    expect(events.filter(endsRun).map((e) => e.type)).toEqual(["workflow.suspended"]); // waits for the next message
    expect(events.some((e) => e.type === "workflow.resumed")).toBe(false); // A finished it itself
    const replay = await framesVia(b, threadId);
    expect(replay.filter((f) => f.event.type === "RUN_FINISHED")).toHaveLength(1);
  });

  it("hands a run that outlasts the bound over to the other instance, leaving no lease of its own", async () => {
    const gated = gatedAgent();
    const { a, b, schema } = await pair(gated, 100);
    const threadId = "close-hands-over";
    const run = await postSse(`${a.url}/ai/agents/gated/run`, runBody(threadId, [user("one step")]));
    void run.done.catch(() => {});
    expect(await gated.started.next()).toBe("only");
    expect(await leasesOf(schema, "A")).toEqual([threadId]);

    await a.close(); // the drain ends at its bound with the tool still waiting: stopped, handed over
    expect(gated.aborted).toEqual(["only"]);
    expect(await leasesOf(schema, "A")).toEqual([]);

    // B's sweep claims the freed lease and executes the tool again from the log.
    expect(await gated.started.next()).toBe("only");
    gated.release.open();
    const replay = await framesVia(b, threadId);
    expect(replay.filter((f) => f.event.type === "RUN_FINISHED")).toHaveLength(1);

    const events = await b.threadline.store.read(threadId);
    const resumed = events.filter((e) => e.type === "workflow.resumed");
    expect(resumed.map((e) => e.type === "workflow.resumed" && e.data.owner)).toEqual(["B"]);
    expect(events.filter(endsRun).map((e) => e.type)).toEqual(["workflow.suspended"]); // waits for the next message
    expect(await leasesOf(schema, "A")).toEqual([]);
    expect((await b.threadline.store.getThread(threadId))?.status).toBe("WAITING");
  });
});
