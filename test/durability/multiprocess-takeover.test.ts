/**
 * More takeovers across processes on one Postgres schema:
 * - an agent whose runs must not be resumed (onRecovery "fail"): A is killed during its tool; B,
 *   once the lease expired, ends the run with RUN_ERROR INSTANCE_LOST (both client versions accept
 *   it), never runs the tool again, and the thread takes the next message;
 * - a frozen instance (SIGSTOP, as in a long GC pause or a suspended VM) past its lease: B takes
 *   the run over and finishes it; A, woken with the rest of its stale model stream in its socket,
 *   must write nothing more to the run (no stale deltas, no second answer, no second terminal);
 * - no other instance alive: A is killed mid-run and a new instance C starts; C's sweep recovers
 *   the run A left behind.
 * Recovery times are printed (the `[recovery]` lines).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { framesAfter } from "../../protocol/project.ts";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import {
  DATABASE_URL,
  EVENT_BOUND_MS,
  assertStrictlyIncreasing,
  getThread,
  isContent,
  isTerminal,
  noticeSkip,
  pieces,
  postRun,
  startCluster,
  within,
  type Cluster,
} from "../support/multiprocess-kit.ts";
import {
  SETTLE_BOUND_MS,
  TAKEOVER_BOUND_MS,
  checkRecoveredRun,
  killAndRecover,
  lastRole,
  onlyAlive,
  printRecoveries,
  recoveries,
} from "../support/recovery-checks.ts";
import { lastUserText } from "../support/scripted-upstream.ts";
import { SLOW_TOOL_NAME, STRICT_TOOL_AGENT_ID, type ServerProcess, SPAWN_READY_BOUND_MS } from "../support/server-process.ts";

noticeSkip("multiprocess-takeover");

describe.skipIf(!DATABASE_URL)("takeovers across processes on one Postgres schema", () => {
  let cluster: Cluster;
  let b: ServerProcess;
  /** The first victim, started with B: its tool takes a minute, so it is still running when A dies. */
  let a1: ServerProcess;

  beforeAll(async () => {
    cluster = await startCluster();
    [b, a1] = await Promise.all([cluster.spawn("B"), cluster.spawn("A1", { CHILD_TOOL_MS: "60000" })]);
  }, SPAWN_READY_BOUND_MS + 30_000);

  afterAll(async () => {
    printRecoveries("multiprocess-takeover");
    await cluster?.close();
  }, 30_000);

  it("an agent that must not resume (onRecovery fail): B fails the run cleanly, the tool never runs again", async () => {
    const threadId = `mp-kill-strict-${Date.now()}`;
    const callId = `call-strict-${Date.now()}`;
    cluster.upstream.script = (body) =>
      lastRole(body) === "user" && lastUserText(body).includes("again")
        ? { text: pieces("back", 3) }
        : { toolCalls: [{ id: callId, name: SLOW_TOOL_NAME, arguments: JSON.stringify({ label: "strict" }) }] };
    const first = cluster.upstream.requests.length;
    const a = a1;
    await onlyAlive(cluster, a, b);
    const log = cluster.watch(threadId);

    const stream = await postRun(a, STRICT_TOOL_AGENT_ID, { threadId, runId: "r1", text: "run the strict job" });
    await log.waitFor((e) => e.type === "activity.snapshot", 10_000, "the tool running on A");
    await within(EVENT_BOUND_MS, stream.waitFor((f) => f.event.type === "ACTIVITY_SNAPSHOT"), "the tool's activity on A's stream");

    const { fromA, rest, live, survivor } = await killAndRecover({
      scenario: "SIGKILL during a tool, agent onRecovery fail", victim: a, survivor: () => b,
      agent: STRICT_TOOL_AGENT_ID, threadId, stream, log, reloadWith: "1.0.0", recovery: "fail",
    });
    expect((await getThread(survivor, threadId)).status).toBe("FAILED");
    expect(log.types()).not.toContain("workflow.resumed");
    expect(cluster.toolRuns().filter((r) => r.toolCallId === callId).map((r) => `${r.phase}@${r.instance}`)).toEqual(["start@A1"]);
    expect(cluster.upstream.requests.length).toBe(first + 1);

    const moved = [...fromA, ...rest];
    assertStrictlyIncreasing(moved);
    expect(moved.filter(isTerminal).map((f) => f.event)).toEqual([expect.objectContaining({ type: "RUN_ERROR", code: "INSTANCE_LOST" })]);
    const projected = framesAfter(await cluster.store.read(threadId)).map((f) => ({ id: f.id, event: f.event }));
    expect(moved).toEqual(projected);
    expect(live.error?.message).toBeUndefined();
    expect(live.failed).toBe(false);
    expect(live.events.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "INSTANCE_LOST" });
    for (const version of CLIENT_VERSIONS) {
      const out = await runClient(version, {
        url: `${survivor.url}/api/agents/${STRICT_TOOL_AGENT_ID}/connect`,
        input: { threadId },
        headers: { "Last-Event-ID": "0" },
      });
      expect(out.error?.message, `@ag-ui/client ${version}`).toBeUndefined();
      expect(out.failed).toBe(false);
      expect(out.events.filter((e) => e.type === "RUN_ERROR" || e.type === "RUN_FINISHED")).toEqual([
        expect.objectContaining({ type: "RUN_ERROR", code: "INSTANCE_LOST" }),
      ]);
    }

    // Not stuck: the next message on the failed thread is answered (by B).
    const next = await postRun(survivor, STRICT_TOOL_AGENT_ID, { threadId, runId: "r2", text: "try again" });
    expect((await within(10_000, next.done, "the next run")).at(-1)?.event).toMatchObject({ type: "RUN_FINISHED", runId: "r2" });
    expect((await getThread(survivor, threadId)).status).toBe("WAITING");
  }, 60_000);

  it("A frozen past its lease (SIGSTOP): B takes the run over; A, woken, writes nothing more to it", async () => {
    const threadId = `mp-frozen-${Date.now()}`;
    const stale = pieces("stale", 10);
    const answer = pieces("fresh", 6);
    let attempt = 0;
    cluster.upstream.script = () => (attempt++ === 0 ? { text: stale, holdAfter: 3 } : { text: answer });
    const first = cluster.upstream.requests.length;
    const a = await cluster.spawn("A2");
    await onlyAlive(cluster, a, b);
    const log = cluster.watch(threadId);

    const stream = await postRun(a, "default", { threadId, runId: "r1", text: "freeze in the middle" });
    void stream.done.catch(() => {});
    const original = await within(10_000, cluster.upstream.request(first), "A's LLM request");
    await original.held;
    await log.waitFor((e) => e.type === "text.delta" && e.data.delta === stale[2], EVENT_BOUND_MS, "the 3rd token in the log");

    const frozenAt = Date.now();
    a.signal("SIGSTOP");
    const takeover = await log.waitForType("workflow.resumed", TAKEOVER_BOUND_MS + 5_000);
    expect(takeover.event.type === "workflow.resumed" && takeover.event.data.owner).toBe("B");
    const settled = await log.waitForType("workflow.suspended", SETTLE_BOUND_MS + 5_000);
    recoveries.push({
      scenario: "SIGSTOP past the lease (A frozen, not dead)",
      takeoverMs: takeover.seenAt - frozenAt,
      settledMs: settled.seenAt - frozenAt,
      by: "B",
    });

    // While A sleeps its model keeps streaming into the socket; then A wakes up with all of it.
    original.release();
    await within(EVENT_BOUND_MS, original.closed, "the rest of A's stream to be sent");
    a.signal("SIGCONT");
    // A learns at its next heartbeat that the lease is gone, and leaves the run to its owner.
    const verdict = await a.waitForOutput(/run left for recovery|run ended|could not record/, EVENT_BOUND_MS);
    await a.kill("SIGTERM"); // a graceful stop flushes whatever A still had queued for the log

    const events = await cluster.store.read(threadId);
    const after = events.filter((e) => e.seq > takeover.event.seq);
    expect(verdict, `A on waking:\n${log.describe()}`).toMatch(/run left for recovery/);
    const staleDeltas = after.filter((e) => e.type === "text.delta" && stale.includes(e.data.delta));
    expect(staleDeltas.map((e) => e.seq), "A appended its stale stream after B took over").toEqual([]);
    expect(events.filter((e) => e.type === "workflow.suspended")).toHaveLength(1);
    expect(events.at(-1)?.seq).toBe(settled.event.seq);
    const thread = await getThread(b, threadId);
    expect(thread.status).toBe("WAITING");
    expect(thread.messages.filter((m) => m.role === "assistant")).toEqual([
      expect.objectContaining({ content: answer.join("") }),
    ]);
    expect(cluster.upstream.requests.length).toBe(first + 2);
  }, SPAWN_READY_BOUND_MS + 60_000);

  it("an instance that starts recovers what a dead one left behind", async () => {
    // Nobody else may recover it: B leaves (gracefully; it holds nothing).
    const [a] = await Promise.all([cluster.spawn("A3"), b.kill("SIGTERM")]);
    await onlyAlive(cluster, a);
    const threadId = `mp-kill-then-start-${Date.now()}`;
    const cut = pieces("left", 10);
    const answer = pieces("picked", 8);
    let attempt = 0;
    cluster.upstream.script = () => (attempt++ === 0 ? { text: cut, holdAfter: 3 } : { text: answer, chunkDelayMs: 10 });
    const first = cluster.upstream.requests.length;
    const log = cluster.watch(threadId);

    const stream = await postRun(a, "default", { threadId, runId: "r1", text: "start something" });
    const original = await within(10_000, cluster.upstream.request(first), "A's LLM request");
    await original.held;
    await within(EVENT_BOUND_MS, stream.waitFor((f) => isContent(f) && f.event.delta === cut[2]), "the 3rd token on A's stream");

    const { fromA, rest, live, survivor } = await killAndRecover({
      scenario: "SIGKILL, then a new instance C starts",
      victim: a,
      survivor: () => cluster.spawn("C"),
      agent: "default",
      threadId,
      stream,
      log,
      reloadWith: "0.0.59",
    });
    // Until C came up the run stayed RUNNING with an expired lease; C's sweep took it over.
    expect(log.types().filter((t) => t === "workflow.resumed")).toHaveLength(1);
    const reissued = await cluster.upstream.request(first + 1);
    expect(reissued.body.messages).toEqual(original.body.messages);
    await checkRecoveredRun(cluster, { survivor, agent: "default", threadId, fromA, rest, live, finalText: answer.join("") });
  }, 2 * SPAWN_READY_BOUND_MS + 60_000);
});
