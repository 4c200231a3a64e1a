
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ThreadlineRunner } from "../../server/copilotkit/app-runner-types.ts";
import type { EventStore } from "../../server/store/types.ts";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import { CORE_VERSIONS, ckSession } from "../support/copilotkit-clients.ts";
import { type RemoteFixture, startNodeRemote } from "../support/remote-agui.ts";
import { RUNNER_BASE, type RunnerRuntime, startRunnerRuntime } from "../support/runner-runtime.ts";
import { spawnServer } from "../support/server-process.ts";
import { backends, openStore, startTestServer, testSchema, type TestServer } from "../support/server.ts";
import { startTwoInstances, type TwoInstances } from "../support/two-instances.ts";
import { postSse } from "../support/sse-client.ts";
import { eventually, terminals, textOf } from "../support/frame-checks.ts";
import { connectBody, runBody, userMessage } from "../support/run-bodies.ts";

const SLOW_REPLY = (said: string, turn = 1) => `You said: ${said}. This is turn ${turn}. ${"More words follow here. ".repeat(20)}`;


describe.each(backends())("agentRunner() on %s", (backend) => {
  let remote: RemoteFixture;
  let instances: TwoInstances;
  let store: EventStore;
  let a: TestServer;
  let b: TestServer;
  let runnerB: ThreadlineRunner;
  /** The app's runtime on each instance: A's agent is @ag-ui/client 1.0.0's HttpAgent, B's 0.0.59's. */
  let appA: RunnerRuntime;
  let appB: RunnerRuntime;
  beforeAll(async () => {
    remote = await startNodeRemote();
    instances = await startTwoInstances(backend);
    ({ a, b, store } = instances);
    runnerB = b.threadline.agentRunner();
    appA = await startRunnerRuntime(a.threadline.agentRunner(), remote.url, "1.0.0");
    appB = await startRunnerRuntime(runnerB, remote.url, "0.0.59");
  }, 60_000);
  afterAll(async () => {
    await appA?.close();
    await appB?.close();
    await instances?.close();
    await remote?.close();
  });

  it("a run through one runtime is in the log as it goes; a connect through the other replays it as it was streamed", async () => {
    const threadId = `runner-replay-${Date.now()}`;
    const live = await (await postSse(`${appA.runtimeUrl}/agent/remote/run`, runBody(threadId, "r1", "hello"))).done;
    expect(terminals(live).map((f) => f.event.type)).toEqual(["RUN_FINISHED"]);
    expect(textOf(live)).toBe("You said: hello. This is turn 1. ");
    const saved = await b.threadline.store.getThread(threadId);
    expect(saved).toMatchObject({ agentId: "remote", tenantId: "default", status: "WAITING" });
    const replay = await (await postSse(`${appB.runtimeUrl}/agent/remote/connect`, connectBody(threadId))).done;
    // A settled thread reloads as one snapshot (as through Threadline's own /api/copilotkit): the
    // run's messages with the ids they streamed under, its state, its one end.
    expect(replay.map((f) => f.event.type)).toEqual(["RUN_STARTED", "MESSAGES_SNAPSHOT", "STATE_SNAPSHOT", "RUN_FINISHED"]);
    expect(replay[1]!.event.messages).toEqual([
      { id: "u-r1", role: "user", content: "hello" },
      { id: live.find((f) => f.event.type === "TEXT_MESSAGE_START")!.event.messageId, role: "assistant", content: textOf(live) },
    ]);
    expect(replay[2]!.event.snapshot).toEqual(live.findLast((f) => f.event.type === "STATE_SNAPSHOT")!.event.snapshot);
    expect(replay[3]!.event).toMatchObject({ type: "RUN_FINISHED", threadId, runId: "r1" });
  });

  it.each(CLIENT_VERSIONS)("@ag-ui/client %s runs through the app's runtime; a follow-up through the other instance carries the whole conversation", async (version) => {
    const threadId = `runner-client-${version}-${Date.now()}`;
    const first = await runClient(version, { url: `${appA.runtimeUrl}/agent/remote/run`, input: { threadId, runId: "r1", messages: [userMessage("u1", "hello")] } });
    expect(first.error?.message).toBeUndefined();
    expect(first.messages.at(-1)).toMatchObject({ role: "assistant", content: "You said: hello. This is turn 1. " });
    expect(first.state).toEqual({ turns: 1, last: "hello" });
    // The client sends only its new message: the agent gets the log's conversation and state.
    const second = await runClient(version, { url: `${appB.runtimeUrl}/agent/remote/run`, input: { threadId, runId: "r2", messages: [userMessage("u2", "again")] } });
    expect(second.error?.message).toBeUndefined();
    expect(second.messages.at(-1)).toMatchObject({ role: "assistant", content: "You said: again. This is turn 2. " });
    const sent = (await remote.received()).filter((r) => r.threadId === threadId);
    expect(sent.map((r) => r.messages.filter((m) => m.role === "user").map((m) => m.content))).toEqual([["hello"], ["hello", "again"]]);
    expect(sent[1]!.state).toEqual({ turns: 1, last: "hello" });
  });

  it.each(CORE_VERSIONS)("CopilotKit core %s: a chat through one runtime, reloaded through the other from the log", async (version) => {
    const threadId = `runner-ck-${version}-${Date.now()}`;
    const chat = ckSession(version, appA, "remote", threadId);
    await chat.say("hi there");
    expect(chat.runErrors).toEqual([]);
    expect(chat.runFailures).toEqual([]);
    expect(chat.reply()).toBe("You said: hi there. This is turn 1. ");
    const reload = ckSession(version, appB, "remote", threadId);
    await reload.connect();
    expect(reload.coreErrors).toEqual([]);
    expect(reload.reply()).toBe("You said: hi there. This is turn 1. ");
    expect(reload.agent.messages.map((m) => m.id)).toEqual(chat.agent.messages.map((m) => m.id));
    await reload.say("and then");
    expect(reload.reply()).toBe("You said: hi there. This is turn 1. You said: and then. This is turn 2. ");
  });

  it.each(CORE_VERSIONS)("CopilotKit core %s: the agent's interrupt waits in the log; the answer through the other instance resumes it", async (version) => {
    const threadId = `runner-ask-${version}-${Date.now()}`;
    const chat = ckSession(version, appA, "remote", threadId);
    await chat.say("ask");
    expect(chat.finishes.at(-1)).toMatchObject({ outcome: "interrupt", interrupts: [expect.objectContaining({ message: "Which city?" })] });
    expect((await store.getThread(threadId))?.status).toBe("WAITING");
    // A reload elsewhere sees the question, and answers it there.
    const other = ckSession(version, appB, "remote", threadId);
    await other.connect();
    expect(other.finishes.at(-1)).toMatchObject({ outcome: "interrupt" });
    const asked = other.finishes.at(-1)!.interrupts[0]!;
    expect(await other.answer([{ id: asked.id, payload: "Paris" }])).toEqual(["resume"]);
    expect(other.runErrors).toEqual([]);
    expect(other.reply()).toContain('You chose "Paris".');
    const sent = (await remote.received()).filter((r) => r.threadId === threadId);
    expect(sent.at(-1)?.resume).toEqual([expect.objectContaining({ interruptId: asked.id, status: "resolved", payload: "Paris" })]);
  });

  it("isRunning reads the thread's status; stop through the other instance ends the run and aborts the agent's request; a second run meanwhile is refused", async () => {
    const threadId = `runner-stop-${Date.now()}`;
    const runId = `runner-stop-${backend}`; // the remote records disconnects by run id
    expect(await runnerB.isRunning({ threadId })).toBe(false);
    const live = await postSse(`${appA.runtimeUrl}/agent/remote/run`, runBody(threadId, runId, "slow stop me"));
    await live.waitFor((f) => f.event.type === "TEXT_MESSAGE_CONTENT");
    expect(await runnerB.isRunning({ threadId })).toBe(true);
    // Double texting by the thread's policy (reject); a policy AG-UI's runner does not name is refused.
    const busy = await (await postSse(`${appB.runtimeUrl}/agent/remote/run`, runBody(threadId, "r-busy", "me too"))).done;
    expect(busy.map((f) => f.event)).toEqual([expect.objectContaining({ type: "RUN_ERROR", code: "THREAD_BUSY" })]);
    const queued = await (await postSse(`${appB.runtimeUrl}/agent/remote/run`, runBody(threadId, "r-queue", "later", { threadline: { doubleTexting: "queue" } }))).done;
    expect(queued.map((f) => f.event)).toEqual([expect.objectContaining({ type: "RUN_ERROR", code: "INVALID_RUN_INPUT" })]);
    // PGlite is one database in this process: the engines on it hear each other only through
    // Postgres's doorbell, which it does not ring across stores, so there the stop goes through A.
    const stopper = backend === "postgres" ? appB : appA;
    const stop = await fetch(`${stopper.runtimeUrl}/agent/remote/stop/${threadId}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(stop.status).toBe(200);
    expect(await stop.json()).toMatchObject({ stopped: true });
    const frames = await live.done;
    expect(terminals(frames).map((f) => f.event)).toEqual([expect.objectContaining({ type: "RUN_ERROR", code: "CANCELLED" })]);
    expect(textOf(frames).length).toBeLessThan(SLOW_REPLY("slow stop me").length);
    await eventually(() => remote.disconnects(), (d) => d.includes(runId), "the agent's request aborted");
    await eventually(() => runnerB.isRunning({ threadId }), (r) => r === false, "isRunning false after the stop");
    expect(await runnerB.stop({ threadId })).toBe(false);
  });

  it("tenants: a function of the forwarded headers for runs and connects; another tenant's connect sees nothing", async () => {
    const runner = a.threadline.agentRunner({ tenant: ({ headers }) => headers["x-tenant"] ?? "default" });
    const app = await startRunnerRuntime(runner, remote.url);
    try {
      const threadId = `runner-tenant-${Date.now()}`;
      const frames = await (await postSse(`${app.runtimeUrl}/agent/remote/run`, runBody(threadId, "r1", "mine"), { "x-tenant": "acme" })).done;
      expect(terminals(frames).map((f) => f.event.type)).toEqual(["RUN_FINISHED"]);
      expect(await store.getThread(threadId, "acme")).not.toBeNull();
      expect(await store.getThread(threadId, "default")).toBeNull();
      const theirs = await (await postSse(`${app.runtimeUrl}/agent/remote/connect`, connectBody(threadId), { "x-tenant": "globex" })).done;
      expect(theirs).toEqual([]);
      const ours = await (await postSse(`${app.runtimeUrl}/agent/remote/connect`, connectBody(threadId), { "x-tenant": "acme" })).done;
      expect(ours.find((f) => f.event.type === "MESSAGES_SNAPSHOT")?.event.messages).toMatchObject([{ role: "user" }, { role: "assistant", content: "You said: mine. This is turn 1. " }]);
      const bad = await (await postSse(`${app.runtimeUrl}/agent/remote/run`, runBody(`${threadId}-bad`, "r1", "x"), { "x-tenant": "no spaces allowed" })).done;
      expect(bad.map((f) => f.event)).toEqual([expect.objectContaining({ type: "RUN_ERROR", code: "INVALID_TENANT" })]);
      // A fixed tenant's runner does not see the thread: stop and isRunning are scoped by it.
      expect(await a.threadline.agentRunner({ tenant: "globex" }).isRunning({ threadId })).toBe(false);
    } finally {
      await app.close();
    }
  });

  it("tenants: stop and isRunning through the runtime are scoped by the tenant function; another tenant's stop does nothing and says not found; outside withRequest they act on nothing", async () => {
    const runner = a.threadline.agentRunner({ tenant: ({ headers }) => headers["x-tenant"] ?? "default" });
    const app = await startRunnerRuntime(runner, remote.url);
    try {
      const threadId = `runner-tenant-stop-${Date.now()}`;
      const live = await postSse(`${app.runtimeUrl}/agent/remote/run`, runBody(threadId, "r1", "slow mine"), { "x-tenant": "acme" });
      await live.waitFor((f) => f.event.type === "TEXT_MESSAGE_CONTENT");
      const stopAs = async (tenant: string) => {
        const res = await fetch(`${app.runtimeUrl}/agent/remote/stop/${threadId}`, { method: "POST", headers: { "content-type": "application/json", "x-tenant": tenant }, body: "{}" });
        expect(res.status).toBe(200);
        return (await res.json()) as { stopped: boolean };
      };
      expect(await stopAs("globex")).toMatchObject({ stopped: false });
      expect((await store.read(threadId)).filter((e) => e.type === "workflow.cancelling")).toEqual([]);
      expect((await store.getThread(threadId))?.status).toBe("RUNNING");
      // isRunning in each tenant's scope; outside any, nothing is found.
      expect(await runner.withRequest({ headers: { "x-tenant": "globex" } }, () => runner.isRunning({ threadId }))).toBe(false);
      expect(await runner.withRequest({ headers: new Headers({ "X-Tenant": "acme" }) }, () => runner.isRunning({ threadId }))).toBe(true);
      expect(await runner.isRunning({ threadId })).toBe(false);
      expect(await runner.stop({ threadId })).toBe(false);
      expect(await stopAs("acme")).toMatchObject({ stopped: true });
      expect(terminals(await live.done).map((f) => f.event.code)).toEqual(["CANCELLED"]);
    } finally {
      await app.close();
    }
  });
});

describe.each(backends())("agentRunner() recovery on %s", (backend) => {
  it("a run whose agent lived only in a dead instance (in no registry here) ends with the RUN_ERROR its admission recorded, never AGENT_NOT_FOUND", async () => {
    const store = openStore(backend);
    await store.migrate();
    const threadId = "runner-lost";
    const onLost = { code: "RUNNER_RUN_LOST", message: "The server running this agent stopped." };
    await store.ensureThread(threadId, "apps-own-agent");
    await store.append(threadId, [
      { type: "thread.created", data: { agentId: "apps-own-agent" } },
      { type: "run.accepted", data: { runId: "r1", tools: [], context: [], onLost } },
      { type: "message.appended", data: { runId: "r1", source: "input", message: { id: "u1", role: "user", content: "hello" } } },
      { type: "workflow.started", data: { runId: "r1" } },
      { type: "text.started", data: { runId: "r1", messageId: "msg-1" } },
      { type: "text.delta", data: { runId: "r1", messageId: "msg-1", delta: "half an ans" } },
    ]);
    // The dead instance's lease, already expired by the database clock.
    expect(await store.acquireLease(threadId, "dead-instance", 0)).toBe(true);
    const server = await startTestServer({ backend, store });
    try {
      await eventually(async () => (await store.getThread(threadId))?.status, (s) => s === "FAILED", "the run failed by recovery");
      const failed = (await store.read(threadId)).filter((e) => e.type === "workflow.failed");
      expect(failed.map((e) => e.data)).toEqual([{ runId: "r1", error: onLost }]);
    } finally {
      await server.close();
      await store.close();
    }
  });
});

describe.skipIf(!process.env.DATABASE_URL)("agentRunner(): the instance running the app's agent dies", () => {
  it("SIGKILL mid-run: the other instance ends the run RUN_ERROR RUNNER_RUN_LOST within the lease bound, for every follower", async () => {
    const LEASE_TTL_MS = 1_500;
    const remote = await startNodeRemote();
    const schema = testSchema();
    const store = openStore("postgres", schema);
    await store.migrate();
    const child = await spawnServer({
      name: "runner-A",
      env: { DATABASE_URL: process.env.DATABASE_URL, DATABASE_SCHEMA: schema, LEASE_TTL_MS: String(LEASE_TTL_MS), CHILD_INSTANCE_ID: "runner-a", CHILD_RUNNER_AGENT_URL: remote.url },
    });
    const survivor = await startTestServer({ backend: "postgres", store, leaseOwner: "survivor", env: { LEASE_TTL_MS: String(LEASE_TTL_MS) } });
    const app = await startRunnerRuntime(survivor.threadline.agentRunner(), remote.url);
    const threadId = `runner-dead-${Date.now()}`;
    try {
      const live = await postSse(`${child.url}${RUNNER_BASE}/agent/remote/run`, runBody(threadId, "r1", "slow and then the server dies"));
      await live.waitFor((f) => f.event.type === "TEXT_MESSAGE_CONTENT");
      // A follower through the survivor's runtime, on the live run before the death.
      const follower = await postSse(`${app.runtimeUrl}/agent/remote/connect`, connectBody(threadId));
      await follower.waitFor((f) => f.event.type === "TEXT_MESSAGE_CONTENT");
      const killedAt = Date.now();
      await child.kill("SIGKILL");
      const end = await follower.waitFor((f) => f.event.type === "RUN_ERROR" || f.event.type === "RUN_FINISHED");
      const endedMs = Date.now() - killedAt;
      expect(end.event).toMatchObject({ type: "RUN_ERROR", code: "RUNNER_RUN_LOST" });
      // The lease bound: the lease expires LEASE_TTL_MS after the last heartbeat, and a sweep
      // claims it within another TTL; generous for a loaded machine.
      expect(endedMs).toBeLessThan(LEASE_TTL_MS * 2 + 10_000);
      expect(terminals(await follower.done).map((f) => f.event.code)).toEqual(["RUNNER_RUN_LOST"]);
      // A page loaded afterwards gets the thread as the log keeps it (the cut answer is not part
      // of the conversation), the run FAILED, and the agent was never run again.
      const reload = await (await postSse(`${app.runtimeUrl}/agent/remote/connect`, connectBody(threadId))).done;
      expect(reload.find((f) => f.event.type === "MESSAGES_SNAPSHOT")?.event.messages).toEqual([{ id: "u-r1", role: "user", content: "slow and then the server dies" }]);
      expect((await store.getThread(threadId))?.status).toBe("FAILED");
      expect((await remote.received()).filter((r) => r.threadId === threadId)).toHaveLength(1);
      console.info(`[agent-runner] RUNNER_RUN_LOST reached the follower ${endedMs} ms after SIGKILL (LEASE_TTL_MS ${LEASE_TTL_MS})`);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n----- child -----\n${child.output().slice(-4000)}`, { cause: err });
    } finally {
      if (child.alive) await child.kill("SIGKILL");
      await app.close();
      await survivor.close();
      await store.close();
      await remote.close();
    }
  }, 90_000);
});
