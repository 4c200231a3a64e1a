
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ThreadlineAppRunner } from "../../server/copilotkit/app-runner.ts";
import type { EventStore } from "../../server/store/types.ts";
import { type RemoteFixture, startNodeRemote } from "../support/remote-agui.ts";
import { type RunnerRuntime, startRunnerRuntime } from "../support/runner-runtime.ts";
import { backends, type TestServer } from "../support/server.ts";
import { startTwoInstances, type TwoInstances } from "../support/two-instances.ts";
import { postSse } from "../support/sse-client.ts";
import { eventually, terminals, textOf } from "../support/frame-checks.ts";
import { runBody as runBodyWith } from "../support/run-bodies.ts";

const runBody = (threadId: string, runId: string, text: string, doubleTexting?: string) =>
  runBodyWith(threadId, runId, text, doubleTexting === undefined ? {} : { threadline: { doubleTexting } });


describe.each(backends())("agentRunner() double texting on %s", (backend) => {
  let remote: RemoteFixture;
  let instances: TwoInstances;
  let store: EventStore;
  let a: TestServer;
  let b: TestServer;
  let appA: RunnerRuntime;
  let appB: RunnerRuntime;
  beforeAll(async () => {
    remote = await startNodeRemote();
    instances = await startTwoInstances(backend);
    ({ a, b, store } = instances);
    appA = await startRunnerRuntime(a.threadline.agentRunner(), remote.url);
    appB = await startRunnerRuntime(b.threadline.agentRunner(), remote.url, "0.0.59");
  }, 60_000);
  afterAll(async () => {
    await appA?.close();
    await appB?.close();
    await instances?.close();
    await remote?.close();
  });

  it('"enqueue": the run waits in the instance holding its agent and runs when the active run (on the other instance) ends, with its answer in the conversation', async () => {
    const threadId = `dt-enqueue-${backend}-${Date.now()}`;
    const first = await postSse(`${appA.runtimeUrl}/agent/remote/run`, runBody(threadId, "r1", "slow first"));
    await first.waitFor((f) => f.event.type === "TEXT_MESSAGE_CONTENT");
    const queued = await postSse(`${appB.runtimeUrl}/agent/remote/run`, runBody(threadId, "r2", "second", "enqueue"));
    const firstFrames = await first.done;
    expect(terminals(firstFrames).map((f) => f.event.type)).toEqual(["RUN_FINISHED"]);
    const frames = await queued.done;
    expect(frames[0]?.event).toMatchObject({ type: "RUN_STARTED", runId: "r2" });
    expect(terminals(frames).map((f) => f.event.type)).toEqual(["RUN_FINISHED"]);
    expect(textOf(frames)).toBe("You said: second. This is turn 2. ");
    // The remote got the second run only after the first ended, with the first's whole answer.
    const sent = (await remote.received()).filter((r) => r.threadId === threadId);
    expect(sent.map((r) => r.runId)).toEqual(["r1", "r2"]);
    expect(sent[1]!.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(sent[1]!.messages[1]).toMatchObject({ content: textOf(firstFrames) });
    expect((await store.getThread(threadId))?.status).toBe("WAITING");
  });

  it('"interrupt": the active run on the other instance is cancelled durably (its agent aborted), then this one runs', async () => {
    const threadId = `dt-interrupt-${backend}-${Date.now()}`;
    const runId = `dt-interrupted-${backend}`; // the remote records disconnects by run id
    const first = await postSse(`${appA.runtimeUrl}/agent/remote/run`, runBody(threadId, runId, "slow interrupt me"));
    await first.waitFor((f) => f.event.type === "TEXT_MESSAGE_CONTENT");
    // PGlite is one database in this process, whose engines hear each other only through
    // Postgres's doorbell (agent-runner.test.ts's stop says the same): there it goes through A.
    const other = backend === "postgres" ? appB : appA;
    const newer = await (await postSse(`${other.runtimeUrl}/agent/remote/run`, runBody(threadId, "r2", "never mind", "interrupt"))).done;
    expect(terminals(newer).map((f) => f.event.type)).toEqual(["RUN_FINISHED"]);
    expect(textOf(newer)).toBe("You said: never mind. This is turn 2. ");
    const cut = await first.done;
    expect(terminals(cut).map((f) => f.event)).toEqual([expect.objectContaining({ type: "RUN_ERROR", code: "CANCELLED" })]);
    expect((await remote.disconnects()).includes(runId)).toBe(true);
    const cancelling = (await store.read(threadId)).filter((e) => e.type === "workflow.cancelling");
    expect(cancelling.map((e) => e.data)).toEqual([{ runId, reason: 'interrupted by a newer message (double texting "interrupt")' }]);
  });

  it("the default stays reject: THREAD_BUSY, and nothing of the refused run is written", async () => {
    const threadId = `dt-reject-${backend}-${Date.now()}`;
    const first = await postSse(`${appA.runtimeUrl}/agent/remote/run`, runBody(threadId, "r1", "slow first"));
    await first.waitFor((f) => f.event.type === "TEXT_MESSAGE_CONTENT");
    const busy = await (await postSse(`${appB.runtimeUrl}/agent/remote/run`, runBody(threadId, "r2", "me too"))).done;
    expect(busy.map((f) => f.event)).toEqual([expect.objectContaining({ type: "RUN_ERROR", code: "THREAD_BUSY" })]);
    await first.done;
    expect((await store.read(threadId)).filter((e) => e.runId === "r2")).toEqual([]);
  });

  it("bounds: a run that waits past queue.waitMs is refused QUEUE_WAIT_EXCEEDED with nothing written; past queue.max waiting runs, RUNNER_QUEUE_FULL", async () => {
    const runner = b.threadline.agentRunner({ queue: { waitMs: 1_500, max: 1 } }) as ThreadlineAppRunner;
    const app = await startRunnerRuntime(runner, remote.url);
    const threadId = `dt-bounds-${backend}-${Date.now()}`;
    try {
      const held = await postSse(`${appA.runtimeUrl}/agent/remote/run`, runBody(threadId, "r1", "silent"));
      await held.waitFor((f) => f.event.type === "RUN_STARTED");
      // The runtime answers its headers with the first event: the waiter's response is not awaited here.
      const waiter = postSse(`${app.runtimeUrl}/agent/remote/run`, runBody(threadId, "r2", "one", "enqueue")).then((s) => s.done);
      await eventually(() => runner.waiting, (n) => n === 1, "the first run waiting");
      // The first waiter holds the one place; the next is refused at once.
      const full = await (await postSse(`${app.runtimeUrl}/agent/remote/run`, runBody(threadId, "r3", "two", "enqueue"))).done;
      expect(full.map((f) => f.event)).toEqual([expect.objectContaining({ type: "RUN_ERROR", code: "RUNNER_QUEUE_FULL" })]);
      const timedOut = await waiter;
      expect(timedOut.map((f) => f.event)).toEqual([expect.objectContaining({ type: "RUN_ERROR", code: "QUEUE_WAIT_EXCEEDED" })]);
      expect((await store.read(threadId)).filter((e) => e.runId === "r2" || e.runId === "r3")).toEqual([]);
      // The place is free again once the waiter gave up: the next waiter is taken (and times out).
      expect(runner.waiting).toBe(0);
      const again = await (await postSse(`${app.runtimeUrl}/agent/remote/run`, runBody(threadId, "r4", "three", "enqueue"))).done;
      expect(again.map((f) => f.event.code)).toEqual(["QUEUE_WAIT_EXCEEDED"]);
      await fetch(`${appA.runtimeUrl}/agent/remote/stop/${threadId}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      expect(terminals(await held.done).map((f) => f.event.code)).toEqual(["CANCELLED"]);
    } finally {
      await app.close();
    }
  });

  it("the bounds are checked when the runner is built", () => {
    for (const queue of [{ waitMs: 0 }, { max: -1 }, { max: 1.5 }]) {
      expect(() => a.threadline.agentRunner({ queue })).toThrow(expect.objectContaining({ code: "INVALID_RUNNER_OPTIONS" }));
    }
  });
});
