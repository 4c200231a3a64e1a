/**
 * The thread feed (GET /api/threads/:id/events as SSE: the live, cross-run stream the bundled app
 * follows a thread with) on threads whose runs a foreign agent makes: remoteAgent (the run route)
 * and an app's own CopilotKit runtime on threadline.agentRunner(). Two runs in a row, a follower
 * on the other instance from the start, a second one attached mid-run with Last-Event-ID: both
 * get the log as it is, gapless, across the runs, whoever ran them.
 */
import type { Message } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { remoteAgent } from "../../server/agents/remote-agent.ts";
import type { EventStore } from "../../server/store/types.ts";
import { type RemoteFixture, startNodeRemote } from "../support/remote-agui.ts";
import { type RunnerRuntime, startRunnerRuntime } from "../support/runner-runtime.ts";
import { backends, type TestServer } from "../support/server.ts";
import { startTwoInstances, type TwoInstances } from "../support/two-instances.ts";
import { getSse, postSse, type SseFrame } from "../support/sse-client.ts";
import { runBody } from "../support/run-bodies.ts";

const seqs = (frames: SseFrame[]) => frames.map((f) => f.event.seq as number);
const ended = (runId: string) => (f: SseFrame) => f.event.type === "workflow.suspended" && f.event.runId === runId;

describe.each(backends())("the thread feed of a foreign agent's runs on %s", (backend) => {
  let remote: RemoteFixture;
  let instances: TwoInstances;
  let store: EventStore;
  let a: TestServer;
  let b: TestServer;
  let app: RunnerRuntime;
  beforeAll(async () => {
    remote = await startNodeRemote();
    instances = await startTwoInstances(backend, { agents: () => [remoteAgent({ id: "remote", url: remote.url })] });
    ({ a, b, store } = instances);
    app = await startRunnerRuntime(a.threadline.agentRunner(), remote.url);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await instances?.close();
    await remote?.close();
  });

  const doors = [
    { door: "remoteAgent", runUrl: () => `${a.url}/api/agents/remote/run` },
    { door: "agentRunner()", runUrl: () => `${app.runtimeUrl}/agent/remote/run` },
  ];

  it.each(doors)("$door: two runs in a row, followed from the other instance, a second follower attached mid-run", async ({ door, runUrl }) => {
    const threadId = `feed-${door.replace(/\W/g, "")}-${backend}-${Date.now()}`;
    const first = await postSse(runUrl(), runBody(threadId, "r1", "slow first"));
    await first.waitFor((f) => f.event.type === "TEXT_MESSAGE_CONTENT");
    // Attached mid-run on the other instance, from the start of the log.
    const follower = await getSse(`${b.url}/api/threads/${threadId}/events`, { "last-event-id": "0" });
    expect(follower.status).toBe(200);
    await follower.waitFor(ended("r1"));
    await first.done;
    const second = await postSse(runUrl(), runBody(threadId, "r2", "slow second"));
    await second.waitFor((f) => f.event.type === "TEXT_MESSAGE_CONTENT");
    // A second follower, mid-run of the second, from where the first follower is now.
    const cursor = follower.frames.at(-1)!.id!;
    const late = await getSse(`${a.url}/api/threads/${threadId}/events`, { "last-event-id": cursor });
    await Promise.all([follower.waitFor(ended("r2")), late.waitFor(ended("r2"))]);
    await second.done;
    follower.close();
    late.close();
    const log = await store.read(threadId);
    const upToR2End = log.slice(0, log.findIndex((e) => e.type === "workflow.suspended" && e.runId === "r2") + 1);
    // Gapless, in order, each event once, across both runs: the log itself.
    expect(seqs(follower.frames.slice(0, upToR2End.length))).toEqual(upToR2End.map((e) => e.seq));
    expect(follower.frames.slice(0, upToR2End.length).map((f) => f.event.type)).toEqual(upToR2End.map((e) => e.type));
    expect(seqs(late.frames.slice(0, upToR2End.length - Number(cursor)))).toEqual(upToR2End.filter((e) => e.seq > Number(cursor)).map((e) => e.seq));
    // Both runs' answers are in it, streamed and then durable.
    const appended = follower.frames.filter((f) => f.event.type === "message.appended").map((f) => (f.event.data as { message: Message }).message);
    expect(appended.filter((m) => m.role === "assistant").map((m) => (m.content as string).slice(0, 30))).toEqual(["You said: slow first. This is ", "You said: slow second. This is"]);
    expect(new Set(follower.frames.map((f) => f.event.runId)).has("r1")).toBe(true);
  });
});
