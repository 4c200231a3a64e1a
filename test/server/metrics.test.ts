/**
 * The metrics an operator alerts on, read from /metrics after the things they count: runs that
 * succeed, fail (an upstream 500) and are cancelled, a run recovered from an expired lease, a
 * run queued behind a busy thread, an unknown tool, a stream read from the log by a second
 * instance, and a run left behind by a shutdown. The server opens its own store on the database
 * (not a store built by the test), so the store's hooks (commit latency, pool waits) are wired
 * as in an application.
 */
import { PGlite } from "@electric-sql/pglite";
import { LLMock } from "@copilotkit/aimock";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { WorkflowEvent } from "../../protocol/events.ts";
import { defaultAgent } from "../../server/agents/default-agent.ts";
import type { DatabaseOption } from "../../server/options.ts";
import { createPgliteStore } from "../../server/store/pglite.ts";
import type { EventStore } from "../../server/store/types.ts";
import { parseMetrics, type Sample, sampleOf, scrape } from "../support/prometheus.ts";
import { backends, openStore, startTestServer, testSchema, type BackendName } from "../support/server.ts";
import { isType, postSse } from "../support/sse-client.ts";
import { gatedAgent, lastUserText, runBody, user } from "./support.ts";

async function startUpstream(): Promise<{ mock: LLMock; url: string }> {
  const mock = new LLMock({ port: 0, host: "127.0.0.1", latency: 0, logLevel: "silent" });
  mock.addFixtures([
    { match: { predicate: (req) => req.messages.at(-1)?.role === "tool" }, response: { content: "steps done" } },
    { match: { predicate: (req) => lastUserText(req).includes("[boom]") }, response: { error: { message: "upstream exploded", type: "server_error" }, status: 500 } },
    { match: { predicate: (req) => lastUserText(req).includes("one step") }, response: { toolCalls: [{ name: "slow_step", arguments: '{"label":"only"}', id: "call-only" }] } },
    { match: { predicate: (req) => lastUserText(req).includes("bad tool") }, response: { toolCalls: [{ name: "no_such_tool", arguments: "{}", id: "call-bad" }] } },
    { match: { predicate: () => true }, response: (req) => ({ content: `answer to: ${lastUserText(req)}` }) },
  ]);
  const base = await mock.start();
  return { mock, url: `${base.replace(/\/$/, "")}/v1` };
}

/** One database two instances share: a PGlite instance, or a fresh schema of the Postgres at DATABASE_URL. */
function sharedDatabase(backend: BackendName): { option: DatabaseOption; schema: string; store(): EventStore; close(): Promise<void> } {
  const schema = testSchema();
  if (backend === "postgres") {
    return { option: process.env.DATABASE_URL!, schema, store: () => openStore("postgres", schema), close: async () => {} };
  }
  const pglite = new PGlite();
  return { option: pglite, schema, store: () => createPgliteStore({ pglite, schema }), close: () => pglite.close() };
}

/** What a dead instance leaves: a started run under a lease that has expired. */
async function orphan(store: EventStore, threadId: string): Promise<void> {
  await store.migrate();
  await store.ensureThread(threadId, "default");
  const events: WorkflowEvent[] = [
    { type: "thread.created", data: { agentId: "default" } },
    { type: "run.accepted", data: { runId: "r-orphan", tools: [], context: [] } },
    { type: "message.appended", data: { runId: "r-orphan", source: "input", message: { id: "u-orphan", role: "user", content: "hello" } } },
    { type: "workflow.started", data: { runId: "r-orphan" } },
  ];
  await store.append(threadId, events);
  expect(await store.acquireLease(threadId, "dead-instance", 0)).toBe(true);
}

const M = "gpt-4o-mini";

describe.each(backends())("metrics on %s", (backend) => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  beforeAll(async () => {
    upstream = await startUpstream();
  });
  afterAll(() => upstream.mock.stop());

  it("runs, a failure, a cancel, a recovery, a queue and a shutdown each move their series", { timeout: 120_000 }, async () => {
    const db = sharedDatabase(backend);
    const setup = db.store();
    await orphan(setup, "t-orphan");
    await setup.close();
    const gated = gatedAgent();
    const agents = () => [defaultAgent(), gated.agent];
    // drainTimeoutMs 0: the last step's run is left to recovery at close, not awaited.
    const a = await startTestServer({ backend, llmUrl: upstream.url, agents, database: db, drainTimeoutMs: 0 });
    let b: Awaited<ReturnType<typeof startTestServer>> | undefined;
    try {
      // The orphan was recovered by A's start: follow it to its end.
      const recovered = await (await postSse(`${a.url}/api/agents/default/connect`, { threadId: "t-orphan", lastSeenEventId: "0" })).done;
      expect(recovered.at(-1)?.event.type).toBe("RUN_FINISHED");

      const ok = await (await postSse(`${a.url}/api/agents/default/run`, runBody("t-ok", [user("hello")]))).done;
      expect(ok.at(-1)?.event.type).toBe("RUN_FINISHED");
      const boom = await (await postSse(`${a.url}/api/agents/default/run`, runBody("t-boom", [user("[boom] now")]))).done;
      expect(boom.at(-1)?.event).toMatchObject({ type: "RUN_ERROR", code: "UPSTREAM_HTTP_500" });
      const bad = await (await postSse(`${a.url}/api/agents/default/run`, runBody("t-bad", [user("bad tool please")]))).done;
      expect(bad.at(-1)?.event.type).toBe("RUN_FINISHED");
      const refused = await fetch(`${a.url}/api/agents/default/run`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ threadId: "t-x" }) });
      expect(refused.status).toBe(400);
      expect((await fetch(`${a.url}/api/no-such-route`)).status).toBe(404);

      // A run in flight, and one queued behind it (the runs above have settled, queues included).
      await a.threadline.engine.idle();
      const running = await postSse(`${a.url}/api/agents/gated/run`, runBody("t-gated", [user("one step")]));
      expect(await gated.started.next()).toBe("only");
      const queued = await postSse(`${a.url}/api/agents/gated/run`, runBody("t-gated", [user("later")]), { "X-Threadline-Double-Texting": "enqueue" });
      let m = await scrape(a.url);
      expect(sampleOf(m, "threadline_runs_in_flight", { agent: "gated" })).toBe(1);
      expect(sampleOf(m, "threadline_leases_held")).toBe(1);
      expect(sampleOf(m, "threadline_runs_queued")).toBe(1);
      expect(sampleOf(m, "threadline_runs_queued_total", { agent: "gated" })).toBe(1);

      // A second instance follows the run: its frames come from the log (source "log").
      b = await startTestServer({ backend, llmUrl: upstream.url, agents, database: db });
      const follower = await postSse(`${b.url}/api/agents/gated/connect`, { threadId: "t-gated" });
      await follower.waitFor(isType("TOOL_CALL_END"));
      // Past the backlog, following the live tail (a subscription has no event of its own to await).
      const bStore = b.store;
      await vi.waitFor(() => expect(bStore.followerCount()).toBe(1), { timeout: 15_000, interval: 20 });

      expect((await fetch(`${a.url}/api/threads/t-gated/cancel`, { method: "POST" })).status).toBe(200);
      expect((await running.done).at(-1)?.event).toMatchObject({ type: "RUN_ERROR", code: "CANCELLED" });
      expect((await follower.done).at(-1)?.event).toMatchObject({ type: "RUN_ERROR", code: "CANCELLED" });
      expect((await queued.done).at(-1)?.event.type).toBe("RUN_FINISHED");
      await a.threadline.engine.idle();

      m = await scrape(a.url);
      const at = (name: string, labels: Record<string, string> = {}) => sampleOf(m, name, labels);
      // Runs
      expect(at("threadline_runs_started_total", { agent: "default" })).toBe(3);
      expect(at("threadline_runs_started_total", { agent: "gated" })).toBe(2);
      expect(at("threadline_runs_finished_total", { agent: "default", outcome: "waiting" })).toBe(3); // recovered, ok, bad tool
      expect(at("threadline_runs_finished_total", { agent: "default", outcome: "failed" })).toBe(1);
      expect(at("threadline_runs_finished_total", { agent: "gated", outcome: "cancelled" })).toBe(1);
      expect(at("threadline_runs_finished_total", { agent: "gated", outcome: "waiting" })).toBe(1); // the queued run
      expect(at("threadline_runs_failed_total", { agent: "default", code: "UPSTREAM_HTTP_500" })).toBe(1);
      expect(at("threadline_run_duration_seconds_count", { agent: "default", outcome: "waiting" })).toBe(3);
      expect(at("threadline_run_duration_seconds_count", { agent: "gated", outcome: "cancelled" })).toBe(1);
      expect(at("threadline_runs_in_flight", { agent: "gated" })).toBe(0);
      expect(at("threadline_leases_held")).toBe(0);
      expect(at("threadline_runs_queued")).toBe(0);
      expect(at("threadline_run_recoveries_total", { agent: "default", outcome: "resumed" })).toBe(1);
      expect(at("threadline_lease_heartbeat_failures_total")).toBe(0);
      // Model and tools: 6 requests (orphan, ok, bad tool x2, gated, queued), 1 failed.
      const model = { provider: "openai", model: M };
      expect(at("threadline_model_time_to_first_token_seconds_count", model)).toBe(6);
      expect(at("threadline_model_request_duration_seconds_count", { ...model, outcome: "ok" })).toBe(6);
      expect(at("threadline_model_request_duration_seconds_count", { ...model, outcome: "error" })).toBe(1);
      expect(at("threadline_model_errors_total", { ...model, code: "UPSTREAM_HTTP_500" })).toBe(1);
      expect(at("threadline_model_tokens_total", { ...model, kind: "input" })).toBeGreaterThan(0);
      expect(at("threadline_model_tokens_total", { ...model, kind: "output" })).toBeGreaterThan(0);
      expect(at("threadline_tool_duration_seconds_count", { tool: "slow_step", outcome: "aborted" })).toBe(1);
      expect(at("threadline_tool_duration_seconds_count", { tool: "other", outcome: "error" })).toBe(1);
      expect(at("threadline_tool_errors_total", { tool: "other", code: "UNKNOWN_TOOL" })).toBe(1);
      // HTTP, by route pattern
      const run = { method: "POST", route: "/api/agents/:agentId/run" };
      expect(at("threadline_http_requests_total", { ...run, status: "200" })).toBe(5);
      expect(at("threadline_http_requests_total", { ...run, status: "400" })).toBe(1);
      expect(at("threadline_http_requests_total", { method: "GET", route: "/api/*", status: "404" })).toBe(1);
      expect(at("threadline_http_requests_total", { method: "POST", route: "/api/threads/:threadId/cancel", status: "200" })).toBe(1);
      expect(at("threadline_http_request_duration_seconds_count", run)).toBe(6);
      // Stream lag: every live frame A wrote was committed here; B read A's commits from the log.
      expect(at("threadline_stream_lag_seconds_count", { source: "handover" })).toBeGreaterThan(0);
      expect(sampleOf(await scrape(b.url), "threadline_stream_lag_seconds_count", { source: "log" })).toBeGreaterThan(0);
      // Store and pools
      expect(at("threadline_store_commit_seconds_count", { outcome: "ok" })).toBeGreaterThan(0);
      expect(at("threadline_append_batch_events_count")).toBeGreaterThan(0);
      if (backend === "postgres") {
        for (const pool of ["main", "lease", "writer"]) {
          expect(at("threadline_db_pool_connections", { pool, state: "idle" })).toBeGreaterThanOrEqual(0);
          expect(at("threadline_db_pool_waiting_clients", { pool })).toBeGreaterThanOrEqual(0); // a snapshot: the scrape's own count may wait
          expect(at("threadline_db_pool_wait_seconds_count", { pool })).toBeGreaterThan(0);
        }
      } else {
        expect(m.some((s) => s.name.startsWith("threadline_db_pool"))).toBe(false); // PGlite: no pools
      }
      // Node's own: the event loop's lag
      expect(at("nodejs_eventloop_lag_seconds")).toBeGreaterThanOrEqual(0);

      // A shutdown leaves its run for another instance.
      await b.close();
      b = undefined;
      const left = await postSse(`${a.url}/api/agents/gated/run`, runBody("t-left", [user("one step")]));
      await gated.started.next();
      left.close(); // the run goes on without its client, until the shutdown
      await a.close();
      const after: Sample[] = parseMetrics(await a.threadline.metrics.metrics());
      expect(sampleOf(after, "threadline_runs_left_total", { reason: "shutdown" })).toBe(1);
      expect(sampleOf(after, "threadline_runs_in_flight", { agent: "gated" })).toBe(0);
    } finally {
      gated.release.open();
      await b?.close();
      await a.close();
      await db.close();
    }
  });
});
