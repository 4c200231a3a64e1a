
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SPAWN_READY_BOUND_MS } from "../support/server-process.ts";
import { CORE_VERSIONS, ckSession, type Door } from "../support/copilotkit-clients.ts";
import { DATABASE_URL, isContent, isTerminal, noticeSkip, startCluster, within, type Cluster } from "../support/multiprocess-kit.ts";
import { startNodeRemote, type RemoteFixture } from "../support/remote-agui.ts";
import { RUNNER_BASE } from "../support/runner-runtime.ts";
import type { ServerProcess } from "../support/server-process.ts";
import { postSse, type SseFrame } from "../support/sse-client.ts";
import { connectBody, runBody } from "../support/run-bodies.ts";

noticeSkip("multiprocess-runner");

const text = (frames: SseFrame[]) => frames.filter(isContent).map((f) => f.event.delta as string).join("");
const runtimeOf = (server: ServerProcess) => `${server.url}${RUNNER_BASE}`;

describe.skipIf(!DATABASE_URL)("agentRunner() in two processes on one Postgres", () => {
  let cluster: Cluster;
  let remote: RemoteFixture;
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    remote = await startNodeRemote();
    cluster = await startCluster();
    const env = { CHILD_RUNNER_AGENT_URL: remote.url };
    [a, b] = await Promise.all([cluster.spawn("A", env), cluster.spawn("B", env)]);
  }, SPAWN_READY_BOUND_MS + 30_000);

  afterAll(async () => {
    await cluster?.close();
    await remote?.close();
  }, 30_000);

  it("a run through A; a connect through B replays it exactly, from the log", async () => {
    const threadId = `mp-runner-replay-${Date.now()}`;
    const live = await (await postSse(`${runtimeOf(a)}/agent/remote/run`, runBody(threadId, "r1", "hello"))).done;
    expect(live.filter(isTerminal).map((f) => f.event.type)).toEqual(["RUN_FINISHED"]);
    const replay = await (await postSse(`${runtimeOf(b)}/agent/remote/connect`, connectBody(threadId))).done;
    expect(replay.map((f) => f.event.type)).toEqual(["RUN_STARTED", "MESSAGES_SNAPSHOT", "STATE_SNAPSHOT", "RUN_FINISHED"]);
    expect(replay[1]!.event.messages).toEqual([
      { id: "u-r1", role: "user", content: "hello" },
      { id: live.find((f) => f.event.type === "TEXT_MESSAGE_START")!.event.messageId, role: "assistant", content: text(live) },
    ]);
    expect(replay[2]!.event.snapshot).toEqual(live.findLast((f) => f.event.type === "STATE_SNAPSHOT")!.event.snapshot);
  });

  it("a stop through B ends the run executing on A: CANCELLED on A's stream, and A's agent aborted (its request to the remote closed)", async () => {
    const threadId = `mp-runner-stop-${Date.now()}`;
    const runId = `mp-runner-stop-${Date.now()}`;
    const live = await postSse(`${runtimeOf(a)}/agent/remote/run`, runBody(threadId, runId, "slow stop me from B"));
    await within(10_000, live.waitFor(isContent), "A's first chunk", () => cluster.output());
    const stop = await fetch(`${runtimeOf(b)}/agent/remote/stop/${threadId}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(stop.status).toBe(200);
    expect(await stop.json()).toMatchObject({ stopped: true });
    const frames = await within(20_000, live.done, "A's stream to end", () => cluster.output());
    expect(frames.filter(isTerminal).map((f) => f.event)).toEqual([expect.objectContaining({ type: "RUN_ERROR", code: "CANCELLED" })]);
    await within(10_000, (async () => { while (!(await remote.disconnects()).includes(runId)) await new Promise((r) => setTimeout(r, 50)); })(), "the remote to see A's agent abort");
    // Nothing is left running: a second stop through either finds no active run.
    const again = await fetch(`${runtimeOf(a)}/agent/remote/stop/${threadId}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(await again.json()).toMatchObject({ stopped: false });
  });

  it('"enqueue" through B while A runs: B waits for the end it hears through Postgres, then runs the message with A\'s answer in the conversation', async () => {
    const threadId = `mp-runner-enqueue-${Date.now()}`;
    const first = await postSse(`${runtimeOf(a)}/agent/remote/run`, runBody(threadId, "r1", "slow first"));
    await within(10_000, first.waitFor(isContent), "A's first chunk", () => cluster.output());
    const queued = postSse(`${runtimeOf(b)}/agent/remote/run`, { ...runBody(threadId, "r2", "second"), forwardedProps: { threadline: { doubleTexting: "enqueue" } } }).then((s) => s.done);
    const firstFrames = await within(20_000, first.done, "A's run to end", () => cluster.output());
    expect(firstFrames.filter(isTerminal).map((f) => f.event.type)).toEqual(["RUN_FINISHED"]);
    const frames = await within(20_000, queued, "B's queued run to end", () => cluster.output());
    expect(frames.filter(isTerminal).map((f) => f.event.type)).toEqual(["RUN_FINISHED"]);
    expect(text(frames)).toBe("You said: second. This is turn 2. ");
    const sent = (await remote.received()).filter((r) => r.threadId === threadId);
    expect(sent.map((r) => r.runId)).toEqual(["r1", "r2"]);
  });

  it("the process holding a waiting run dies (SIGKILL): nothing of it was written, the thread is not held, and the next message runs", async () => {
    const c = await cluster.spawn("C", { CHILD_RUNNER_AGENT_URL: remote.url });
    const threadId = `mp-runner-waiter-dies-${Date.now()}`;
    const first = await postSse(`${runtimeOf(a)}/agent/remote/run`, runBody(threadId, "r1", "slow first"));
    await within(10_000, first.waitFor(isContent), "A's first chunk", () => cluster.output());
    const lost = postSse(`${runtimeOf(c)}/agent/remote/run`, { ...runBody(threadId, "r2", "never sent"), forwardedProps: { threadline: { doubleTexting: "enqueue" } } })
      .then((s) => s.done)
      .catch((err: unknown) => err);
    // C says when the run starts waiting (one log line per waiting run).
    await within(10_000, (async () => { while (!c.output().includes(threadId)) await new Promise((r) => setTimeout(r, 50)); })(), "C's run to wait", () => c.output());
    await c.kill("SIGKILL");
    expect(await lost).toBeInstanceOf(Error); // its poster's connection broke with C
    await within(20_000, first.done, "A's run to end", () => cluster.output());
    const log = await cluster.store.read(threadId);
    expect(log.filter((e) => e.runId === "r2")).toEqual([]);
    expect((await cluster.store.getThread(threadId))?.status).toBe("WAITING");
    const next = await (await postSse(`${runtimeOf(b)}/agent/remote/run`, runBody(threadId, "r3", "again"))).done;
    expect(next.filter(isTerminal).map((f) => f.event.type)).toEqual(["RUN_FINISHED"]);
    expect((await remote.received()).filter((r) => r.threadId === threadId).map((r) => r.runId)).toEqual(["r1", "r3"]);
  }, SPAWN_READY_BOUND_MS + 60_000);

  it.each(CORE_VERSIONS)("CopilotKit core %s: a chat through B, reloaded and continued through A", async (version) => {
    const threadId = `mp-runner-ck-${version}-${Date.now()}`;
    const door = (server: ServerProcess, label: string): Door => ({ label, runtimeUrl: runtimeOf(server), transport: "rest" });
    const chat = ckSession(version, door(b, "B"), "remote", threadId);
    await chat.say("hi there");
    expect(chat.runErrors).toEqual([]);
    expect(chat.reply()).toBe("You said: hi there. This is turn 1. ");
    const reload = ckSession(version, door(a, "A"), "remote", threadId);
    await reload.connect();
    expect(reload.coreErrors).toEqual([]);
    expect(reload.agent.messages.map((m) => m.id)).toEqual(chat.agent.messages.map((m) => m.id));
    await reload.say("and then");
    expect(reload.reply()).toBe("You said: hi there. This is turn 1. You said: and then. This is turn 2. ");
  });
});
