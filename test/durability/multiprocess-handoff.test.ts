/**
 * A model answer cut by a stopping instance, across processes on one Postgres schema, with a
 * model that answers the same when asked again (as aimock's fixtures do):
 * - SIGTERM with DRAIN_TIMEOUT_MS longer than the answer: the answer finishes on the instance
 *   that started it; the model is asked once, and nothing is handed over;
 * - SIGTERM with a drain shorter than the answer: the run is handed over mid-answer
 *   (workflow.handed_over), logged and counted on both sides, and the next instance continues the
 *   answer; the model is asked twice;
 * - SIGKILL mid-answer: the next instance takes the run over once the lease expires and continues
 *   the answer the same way.
 * Each time the client, which reconnects with its last frame's id, assembles every word once, and
 * what it got equals the log's projection. The times are printed (`[handoff]` lines); set
 * HANDOFF_ANSWER_MS (default 3000) for a longer answer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { framesAfter } from "../../protocol/project.ts";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import { assembledText, followToEnd } from "../support/follow-run.ts";
import {
  DATABASE_URL,
  LEASE_TTL_MS,
  assertStrictlyIncreasing,
  isTerminal,
  noticeSkip,
  pieces,
  startCluster,
  within,
  type Cluster,
} from "../support/multiprocess-kit.ts";
import { SETTLE_BOUND_MS, onlyAlive } from "../support/recovery-checks.ts";
import { SPAWN_READY_BOUND_MS, type ServerProcess } from "../support/server-process.ts";
import type { SseFrame } from "../support/sse-client.ts";

noticeSkip("multiprocess-handoff");

const ANSWER_MS = Number(process.env.HANDOFF_ANSWER_MS || 3_000);
const WORDS = 60;
const words = pieces("w", WORDS);
/** The words clients have when the instance is stopped. */
const CUT_AT = 5;

describe.skipIf(!DATABASE_URL)("a model answer cut by a stopping instance", () => {
  let cluster: Cluster;
  let b: ServerProcess;
  const timings: string[] = [];

  beforeAll(async () => {
    cluster = await startCluster();
    b = await cluster.spawn("B");
  }, SPAWN_READY_BOUND_MS + 30_000);

  afterAll(async () => {
    if (timings.length > 0) console.info(`[handoff] an answer of ${WORDS} words over ${ANSWER_MS} ms\n${timings.join("\n")}`);
    await cluster?.close();
  }, 30_000);

  /**
   * Starts a run on `victim`, stops it once CUT_AT words are in the log, follows the run to its end.
   * The victim's model stream is held after CUT_AT words until the signal is sent, so the cut is
   * mid-answer however late this process sees the log: unheld, a loaded machine let the whole
   * answer land before the signal (one model request, nothing handed over). Once released, the
   * rest still takes (WORDS - CUT_AT) chunk delays, which the short drain cannot cover.
   */
  async function cutMidAnswer(victim: ServerProcess, threadId: string, signal: "SIGTERM" | "SIGKILL") {
    const firstRequest = cluster.upstream.requests.length;
    const chunkDelayMs = Math.round(ANSWER_MS / WORDS);
    cluster.upstream.script = (_body, n) => (n === firstRequest ? { text: words, chunkDelayMs, holdAfter: CUT_AT } : { text: words, chunkDelayMs });
    await onlyAlive(cluster, victim, b);
    const log = cluster.watch(threadId);
    const startedAt = Date.now();
    const client = followToEnd({ threadId, first: victim, servers: () => cluster.servers.filter((s) => s.alive) });
    const held = await cluster.upstream.request(firstRequest);
    await within(10_000, held.held, `the victim's model stream held after word ${CUT_AT}`, () => cluster.output());
    await log.waitFor((e) => e.type === "text.delta" && e.data.delta === words[CUT_AT - 1], 10_000, `word ${CUT_AT} in the log`);
    const stoppedAt = Date.now();
    const exit = victim.kill(signal);
    held.release(); // a SIGTERM drains with the rest of the answer coming; a SIGKILL closed the stream
    const frames = await within(ANSWER_MS * 3 + SETTLE_BOUND_MS, client.frames, "the client's terminal frame", () => cluster.output());
    const endedAt = Date.now();
    expect((await exit).signal).toBe(signal === "SIGKILL" ? "SIGKILL" : null);
    const events = await cluster.store.read(threadId);
    const requests = cluster.upstream.requests.length - firstRequest;
    return { frames, events, requests, stoppedAt, took: { total: endedAt - startedAt, afterStop: endedAt - stoppedAt } };
  }

  /** Every word once, in order, in one message; what the client got is what the log projects; clients accept the replay. */
  async function checkWordsOnce(threadId: string, frames: SseFrame[]) {
    assertStrictlyIncreasing(frames);
    expect(frames.filter(isTerminal).map((f) => f.event.type)).toEqual(["RUN_FINISHED"]);
    expect(assembledText(frames)).toBe(words.join(""));
    expect(new Set(frames.filter((f) => f.event.type === "TEXT_MESSAGE_START").map((f) => f.event.messageId)).size).toBe(1);
    expect(frames).toEqual(framesAfter(await cluster.store.read(threadId)).map((f) => ({ id: f.id, event: f.event })));
    for (const version of CLIENT_VERSIONS) {
      const out = await runClient(version, { url: `${b.url}/api/agents/default/connect`, input: { threadId }, headers: { "Last-Event-ID": "0" } });
      expect(out.error?.message, `@ag-ui/client ${version}`).toBeUndefined();
      expect(out.messages.filter((m) => m.role === "assistant").map((m) => m.content)).toEqual([words.join("")]);
    }
  }

  it("SIGTERM with a drain longer than the answer: it finishes where it started, the model asked once", async () => {
    // Far longer than the answer: at three answers' length a loaded run saw the drain end first.
    const drainMs = ANSWER_MS * 10;
    const a = await cluster.spawn("A1", { DRAIN_TIMEOUT_MS: String(drainMs) });
    const threadId = `mp-drain-long-${Date.now()}`;
    const { frames, events, requests, took } = await cutMidAnswer(a, threadId, "SIGTERM");
    await checkWordsOnce(threadId, frames);
    expect(requests).toBe(1);
    expect(events.filter((e) => e.type === "workflow.handed_over" || e.type === "workflow.resumed")).toEqual([]);
    expect(a.output()).toMatch(/"msg":"run ended"/);
    expect(a.output()).not.toMatch(/handing over/);
    timings.push(`[handoff] SIGTERM, drain ${drainMs} ms: finished on ${a.name}, ${requests} model request, ${took.total} ms from the run's start to its end (${took.afterStop} ms after the signal)`);
  }, SPAWN_READY_BOUND_MS + ANSWER_MS * 4 + 60_000);

  it("SIGTERM with a drain shorter than the answer: handed over mid-answer, continued on B, every word once", async () => {
    const drainMs = Math.round(ANSWER_MS / 4);
    const a = await cluster.spawn("A2", { DRAIN_TIMEOUT_MS: String(drainMs) });
    const threadId = `mp-drain-short-${Date.now()}`;
    const { frames, events, requests, took } = await cutMidAnswer(a, threadId, "SIGTERM");
    await checkWordsOnce(threadId, frames);
    expect(requests).toBe(2);
    const messageId = frames.find((f) => f.event.type === "TEXT_MESSAGE_START")!.event.messageId;
    expect(events.filter((e) => e.type === "workflow.handed_over").map((e) => e.data)).toEqual([{ runId: "r1", owner: "A2", step: 0, cut: true }]);
    expect(events.filter((e) => e.type === "workflow.resumed").map((e) => e.data)).toEqual([
      { runId: "r1", reason: "handed_over", owner: "B", from: "A2", continues: [messageId] },
    ]);
    expect(events.some((e) => e.type === "stream.withdrawn")).toBe(false);
    expect(a.output()).toMatch(/handing over run r1 at step 0: the step in flight did not finish within the drain/);
    await b.waitForOutput(new RegExp(`continuing a run handed over by A2 at step 0.*${threadId}|${threadId}.*continuing a run handed over by A2 at step 0`), 1_000);
    const metrics = await (await fetch(`${b.url}/metrics`)).text();
    expect(metrics).toMatch(/^threadline_run_handoffs_total\{direction="in",cut="true"\} [1-9]/m);
    timings.push(`[handoff] SIGTERM, drain ${drainMs} ms: handed over to B mid-answer, ${requests} model requests, ${took.total} ms from the run's start to its end (${took.afterStop} ms after the signal)`);
  }, SPAWN_READY_BOUND_MS + ANSWER_MS * 4 + 60_000);

  it("SIGKILL mid-answer: B takes the run over and continues the answer, every word once", async () => {
    const a = await cluster.spawn("A3");
    const threadId = `mp-kill-continue-${Date.now()}`;
    const { frames, events, requests, took } = await cutMidAnswer(a, threadId, "SIGKILL");
    await checkWordsOnce(threadId, frames);
    expect(requests).toBe(2);
    expect(events.filter((e) => e.type === "workflow.resumed").map((e) => e.data)).toEqual([
      { runId: "r1", reason: "recovered", owner: "B", continues: [expect.any(String)] },
    ]);
    expect(events.some((e) => e.type === "workflow.handed_over" || e.type === "stream.withdrawn")).toBe(false);
    await b.waitForOutput(new RegExp(`${threadId}.*recovering a run whose instance stopped heartbeating, at step 0|recovering a run whose instance stopped heartbeating, at step 0.*${threadId}`), 1_000);
    timings.push(`[handoff] SIGKILL: taken over by B after the lease (${LEASE_TTL_MS} ms TTL), ${requests} model requests, ${took.total} ms from the run's start to its end (${took.afterStop} ms after the kill)`);
  }, SPAWN_READY_BOUND_MS + ANSWER_MS * 4 + 60_000);
});
