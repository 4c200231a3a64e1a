/**
 * Crash recovery across processes: server A is killed with SIGKILL in the middle of a run, and
 * B, alive on the same Postgres schema, takes its lease over once it expires (TTL + one sweep
 * interval) and finishes the run from the log. A is killed (a fresh A each time):
 * - during an LLM stream: B appends workflow.resumed and re-issues the same LLM request, whose
 *   answer (another one here) withdraws the half-streamed message for every client, and the run
 *   ends RUN_FINISHED (an answer that repeats the cut one is continued instead:
 *   multiprocess-handoff.test.ts);
 * - during a slow backend tool whose result is not recorded yet: B runs the tool again (its
 *   result was never recorded, so B's is its only completed execution), then answers;
 * - right after a tool result was recorded: B does not run the tool again, it re-issues the LLM
 *   request that follows it;
 * - and then cancelled through B during the outage: the thread goes CANCELLING, then CANCELLED
 *   as soon as B may claim it, and the cancel request answers CANCELLED (no "cancel is a no-op
 *   after a crash").
 * Each time: the thread settles within the lease bound and is never left RUNNING, a client that
 * resumes on B with the cursor of its last frame from A gets the rest with no gap and no
 * duplicate, a client that connects to B during the outage (no cursor, like a page reload)
 * follows the run to its end, and both @ag-ui/client versions accept the replay of the whole run.
 *
 * More takeovers (an agent that fails instead of resuming, a frozen instance, a new instance) are
 * in multiprocess-takeover.test.ts. Recovery times are printed (the `[recovery]` lines).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import {
  DATABASE_URL,
  EVENT_BOUND_MS,
  HEARTBEAT_MS,
  LEASE_TTL_MS,
  assertStrictlyIncreasing,
  connect,
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
  TAKEOVER_BOUND_MS,
  checkRecoveredRun,
  killAndRecover,
  lastRole,
  onlyAlive,
  printRecoveries,
  recoveries,
} from "../support/recovery-checks.ts";
import type { UpstreamRequest } from "../support/scripted-upstream.ts";
import { SLOW_TOOL_AGENT_ID, SLOW_TOOL_NAME, type ServerProcess, SPAWN_READY_BOUND_MS } from "../support/server-process.ts";

noticeSkip("multiprocess-recovery");

describe.skipIf(!DATABASE_URL)("recovery by another live instance after SIGKILL, on one Postgres schema", () => {
  let cluster: Cluster;
  let b: ServerProcess;
  /** The first victim, started with B (spawning is the slow part of these tests). */
  let a1: ServerProcess;

  beforeAll(async () => {
    cluster = await startCluster();
    [b, a1] = await Promise.all([cluster.spawn("B"), cluster.spawn("A1")]);
  }, SPAWN_READY_BOUND_MS + 30_000);

  afterAll(async () => {
    printRecoveries("multiprocess-recovery");
    await cluster?.close();
  }, 30_000);

  it("A killed during an LLM stream: B re-issues the request, the cut message is closed, the run finishes", async () => {
    const threadId = `mp-kill-llm-${Date.now()}`;
    const cut = pieces("cut", 12);
    const answer = pieces("answer", 12);
    let attempt = 0;
    cluster.upstream.script = () => (attempt++ === 0 ? { text: cut, holdAfter: 4 } : { text: answer, chunkDelayMs: 20 });
    const first = cluster.upstream.requests.length;
    const a = a1;
    await onlyAlive(cluster, a, b);
    const log = cluster.watch(threadId);

    const stream = await postRun(a, "default", { threadId, runId: "r1", text: "tell me a story" });
    const original = await within(10_000, cluster.upstream.request(first), "A's LLM request");
    await original.held;
    await within(EVENT_BOUND_MS, stream.waitFor((f) => isContent(f) && f.event.delta === cut[3]), "the 4th token on A's stream");

    const { fromA, rest, live, survivor } = await killAndRecover({
      scenario: "SIGKILL during an LLM stream", victim: a, survivor: () => b, agent: "default", threadId, stream, log,
      reloadWith: "1.0.0",
    });
    // The dead process's request was cut; B's is the same request again.
    expect((await original.closed).aborted).toBe(true);
    const reissued: UpstreamRequest = await cluster.upstream.request(first + 1);
    expect(reissued.body.messages).toEqual(original.body.messages);
    expect(cluster.upstream.requests.length).toBe(first + 2);

    const moved = await checkRecoveredRun(cluster, { survivor, agent: "default", threadId, fromA, rest, live, finalText: answer.join("") });
    // The cut message: started and streamed on A, withdrawn on B once its model answered
    // otherwise (closed, then superseded), never continued.
    expect(log.types().filter((t) => t === "stream.withdrawn")).toHaveLength(1);
    const cutId = fromA.find((f) => f.event.type === "TEXT_MESSAGE_START")!.event.messageId;
    expect(fromA.some((f) => f.event.type === "TEXT_MESSAGE_END")).toBe(false);
    const cutEnd = rest.findIndex((f) => f.event.type === "TEXT_MESSAGE_END" && f.event.messageId === cutId);
    const nextStart = rest.findIndex((f) => f.event.type === "TEXT_MESSAGE_START");
    expect(cutEnd).toBeGreaterThanOrEqual(0);
    expect(nextStart).toBeGreaterThan(cutEnd);
    expect(rest[nextStart]!.event.messageId).not.toBe(cutId);
    expect(moved.filter((f) => isContent(f) && f.event.messageId === cutId).map((f) => f.event.delta)).toEqual(cut.slice(0, 4));
  }, 60_000);

  it("A killed during a slow tool whose result is not recorded: B runs it again, once, and finishes", async () => {
    const threadId = `mp-kill-tool-${Date.now()}`;
    const callId = `call-slow-${Date.now()}`;
    const answer = pieces("done", 6);
    cluster.upstream.script = (body) =>
      lastRole(body) === "tool"
        ? { text: answer }
        : { toolCalls: [{ id: callId, name: SLOW_TOOL_NAME, arguments: JSON.stringify({ label: "slow" }) }] };
    const first = cluster.upstream.requests.length;
    // On A the tool would take a minute: it is still running when A dies.
    const a = await cluster.spawn("A2", { CHILD_TOOL_MS: "60000" });
    await onlyAlive(cluster, a, b);
    const log = cluster.watch(threadId);

    const stream = await postRun(a, SLOW_TOOL_AGENT_ID, { threadId, runId: "r1", text: "run the slow job" });
    await log.waitFor((e) => e.type === "activity.snapshot", 10_000, "the tool running on A");
    await within(EVENT_BOUND_MS, stream.waitFor((f) => f.event.type === "ACTIVITY_SNAPSHOT"), "the tool's activity on A's stream");

    const { fromA, rest, live, survivor } = await killAndRecover({
      scenario: "SIGKILL during a backend tool (result not recorded)", victim: a, survivor: () => b,
      agent: SLOW_TOOL_AGENT_ID, threadId, stream, log, reloadWith: "0.0.59",
    });
    await checkRecoveredRun(cluster, { survivor, agent: SLOW_TOOL_AGENT_ID, threadId, fromA, rest, live, finalText: answer.join("") });

    // Started on A (cut by the kill), started and completed on B: one completed execution.
    const runs = cluster.toolRuns().filter((r) => r.toolCallId === callId);
    expect(runs.map((r) => `${r.phase}@${r.instance}`)).toEqual(["start@A2", "start@B", "end@B"]);
    const thread = await getThread(survivor, threadId);
    expect(thread.messages.filter((m) => m.role === "tool" && m.toolCallId === callId)).toHaveLength(1);
    expect(JSON.parse(thread.messages.find((m) => m.role === "tool")!.content as string)).toMatchObject({ ranOn: "B" });
    // Two LLM requests in all: the one that called the tool (A), the answer after it (B).
    expect(cluster.upstream.requests.length).toBe(first + 2);
    expect([...fromA, ...rest].filter((f) => f.event.type === "TOOL_CALL_RESULT")).toHaveLength(1);
  }, SPAWN_READY_BOUND_MS + 60_000);

  it("A killed right after a tool result is recorded: B does not run the tool again", async () => {
    const threadId = `mp-kill-after-tool-${Date.now()}`;
    const callId = `call-quick-${Date.now()}`;
    const answer = pieces("after", 6);
    let followUps = 0;
    cluster.upstream.script = (body) => {
      if (lastRole(body) !== "tool") {
        return { toolCalls: [{ id: callId, name: SLOW_TOOL_NAME, arguments: JSON.stringify({ label: "quick" }) }] };
      }
      // A's request after the tool result hangs (A dies in it); B's gets the answer.
      return followUps++ === 0 ? { text: answer, holdAfter: 0 } : { text: answer, chunkDelayMs: 10 };
    };
    const first = cluster.upstream.requests.length;
    const a = await cluster.spawn("A3", { CHILD_TOOL_MS: "20" });
    await onlyAlive(cluster, a, b);
    const log = cluster.watch(threadId);

    const stream = await postRun(a, SLOW_TOOL_AGENT_ID, { threadId, runId: "r1", text: "run the quick job" });
    // The request after the tool is sent only once the result is committed (recordResult flushes).
    const followUp = await within(10_000, cluster.upstream.request(first + 1), "A's request after the tool result");
    await followUp.held;
    await log.waitFor((e) => e.type === "message.appended" && e.data.message.role === "tool", EVENT_BOUND_MS, "the tool result");
    await within(EVENT_BOUND_MS, stream.waitFor((f) => f.event.type === "TOOL_CALL_RESULT"), "the tool result on A's stream");

    const { fromA, rest, live, survivor } = await killAndRecover({
      scenario: "SIGKILL right after a tool result was recorded", victim: a, survivor: () => b,
      agent: SLOW_TOOL_AGENT_ID, threadId, stream, log, reloadWith: "1.0.0",
    });
    await checkRecoveredRun(cluster, { survivor, agent: SLOW_TOOL_AGENT_ID, threadId, fromA, rest, live, finalText: answer.join("") });

    const runs = cluster.toolRuns().filter((r) => r.toolCallId === callId);
    expect(runs.map((r) => `${r.phase}@${r.instance}`)).toEqual(["start@A3", "end@A3"]);
    const reissued = await cluster.upstream.request(first + 2);
    expect(reissued.body.messages).toEqual(followUp.body.messages);
    expect(cluster.upstream.requests.length).toBe(first + 3);
    expect([...fromA, ...rest].filter((f) => f.event.type === "TOOL_CALL_RESULT")).toHaveLength(1);
    const thread = await getThread(survivor, threadId);
    expect(thread.messages.filter((m) => m.role === "tool")).toHaveLength(1);
  }, SPAWN_READY_BOUND_MS + 60_000);

  it("A killed, then the run cancelled through B during the outage: CANCELLING, then CANCELLED once the lease expires", async () => {
    const threadId = `mp-kill-cancel-${Date.now()}`;
    const cut = pieces("orphan", 10);
    cluster.upstream.script = () => ({ text: cut, holdAfter: 3 });
    const first = cluster.upstream.requests.length;
    const a = await cluster.spawn("A4");
    await onlyAlive(cluster, a, b);
    const log = cluster.watch(threadId);

    const stream = await postRun(a, "default", { threadId, runId: "r1", text: "then never mind" });
    const cutOff = stream.done.catch(() => undefined);
    const original = await within(10_000, cluster.upstream.request(first), "A's LLM request");
    await original.held;
    await within(EVENT_BOUND_MS, stream.waitFor((f) => isContent(f) && f.event.delta === cut[2]), "the 3rd token on A's stream");
    const killedAt = Date.now();
    await a.kill("SIGKILL");
    // A's lease stays live until B has recorded the cancel, as if A were only cut off for that
    // long: the scenario needs the cancel inside the outage. Unheld, a loaded machine took longer
    // than the TTL from the kill to the cancel, and B resumed the run before it.
    const beatAsA = () => cluster.store.heartbeat("A4", [threadId], LEASE_TTL_MS).catch(() => []);
    expect(await beatAsA(), "A's lease, still live after the kill").toEqual([threadId]);
    const beating = setInterval(() => void beatAsA(), HEARTBEAT_MS);
    let lastBeatAt = Date.now();
    let res: Response;
    await cutOff;
    const fromA = stream.frames.slice();
    const resumed = await connect(b, "default", threadId, fromA.at(-1)!.id);
    try {
      // Nobody executes the run now, and A's lease has not expired yet: B records the request ...
      const cancelling = fetch(`${b.url}/api/threads/${threadId}/cancel`, { method: "POST" });
      await log.waitForType("workflow.cancelling", EVENT_BOUND_MS);
      clearInterval(beating);
      await beatAsA(); // the outage's last beat: from here the lease runs out on its own
      lastBeatAt = Date.now();
      res = await cancelling;
    } finally {
      clearInterval(beating);
    }
    const body = (await res.json()) as { cancelled: boolean; status: string };
    // ... and settles it as soon as its sweep may claim the thread; the request waits for that.
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ cancelled: true, status: "CANCELLED" });
    const cancelled = await log.waitForType("workflow.cancelled", EVENT_BOUND_MS);
    expect(log.types().filter((t) => t.startsWith("workflow."))).toEqual(["workflow.started", "workflow.cancelling", "workflow.cancelled"]);
    expect(cancelled.seenAt - lastBeatAt).toBeLessThanOrEqual(TAKEOVER_BOUND_MS);
    const settledMs = cancelled.seenAt - killedAt;
    recoveries.push({ scenario: "SIGKILL, then cancel through B (settled CANCELLED)", takeoverMs: settledMs, settledMs, by: "B" });
    expect(cluster.upstream.requests.length).toBe(first + 1); // never resumed

    const rest = await within(10_000, resumed.done, "the resumed client's response to end");
    const moved = [...fromA, ...rest];
    assertStrictlyIncreasing(moved);
    expect(moved.filter(isTerminal).map((f) => f.event)).toEqual([expect.objectContaining({ type: "RUN_ERROR", code: "CANCELLED" })]);
    expect((await getThread(b, threadId)).status).toBe("CANCELLED");
    for (const version of CLIENT_VERSIONS) {
      const out = await runClient(version, { url: `${b.url}/api/agents/default/connect`, input: { threadId }, headers: { "Last-Event-ID": "0" } });
      expect(out.error?.message, `@ag-ui/client ${version}`).toBeUndefined();
      expect(out.failed).toBe(false);
      expect(out.events.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "CANCELLED" });
    }
  }, SPAWN_READY_BOUND_MS + 60_000);
});
