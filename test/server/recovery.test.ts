/**
 * Recovery of runs left behind by an instance that died (simulated here by writing the log a
 * dead instance would have left: an active run under a lease that expired). The multi-process
 * SIGKILL tests are in test/durability/; these pin the engine's choices one by one.
 */
import type { LLMock } from "@copilotkit/aimock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineAgent } from "../../server/agents/define.ts";
import type { WorkflowEvent } from "../../protocol/events.ts";
import type { EventStore } from "../../server/store/types.ts";
import { backends, openStore, startTestServer } from "../support/server.ts";
import { postSse } from "../support/sse-client.ts";
import { gatedAgent, startGatedUpstream } from "./support.ts";

async function orphan(store: EventStore, threadId: string, agentId: string, extra: WorkflowEvent[] = []) {
  await store.migrate();
  await store.ensureThread(threadId, agentId);
  await store.append(threadId, [
    { type: "thread.created", data: { agentId } },
    { type: "run.accepted", data: { runId: "r1", tools: [], context: [] } },
    { type: "message.appended", data: { runId: "r1", source: "input", message: { id: "u1", role: "user", content: "hello" } } },
    { type: "workflow.started", data: { runId: "r1" } },
    ...extra,
  ]);
  // The dead instance's lease, already expired by the database clock.
  expect(await store.acquireLease(threadId, "dead-instance", 0)).toBe(true);
}

describe.each(backends())("recovery on %s", (backend) => {
  let upstream: { mock: LLMock; url: string };
  beforeAll(async () => {
    upstream = await startGatedUpstream();
  });
  afterAll(() => upstream.mock.stop());

  it("a starting instance resumes an orphaned run: the partial message is closed, the answer streams, WAITING", async () => {
    const store = openStore(backend);
    await orphan(store, "t-resume", "default", [
      { type: "task.created", data: { runId: "r1", taskId: "x", kind: "llm", name: "llm-request-1" } },
      { type: "text.started", data: { runId: "r1", messageId: "partial" } },
      { type: "text.delta", data: { runId: "r1", messageId: "partial", delta: "half an ans" } },
    ]);
    const server = await startTestServer({ backend, llmUrl: upstream.url, store });
    try {
      // From the log's start (cursor 0): every frame of the run, as a client that watched it live.
      const stream = await postSse(`${server.url}/api/agents/default/connect`, { threadId: "t-resume", lastSeenEventId: "0" });
      const frames = await stream.done;
      const types = frames.map((f) => f.event.type);
      expect(types.filter((t) => t === "RUN_STARTED")).toHaveLength(1);
      expect(types.at(-1)).toBe("RUN_FINISHED");
      // The partial message is closed before the new one starts.
      const partialEnd = frames.findIndex((f) => f.event.type === "TEXT_MESSAGE_END" && f.event.messageId === "partial");
      const fresh = frames.findIndex((f) => f.event.type === "TEXT_MESSAGE_START" && f.event.messageId !== "partial");
      expect(partialEnd).toBeGreaterThan(-1);
      expect(fresh).toBeGreaterThan(partialEnd);
      const log = await store.read("t-resume");
      expect(log.map((e) => e.type)).toContain("workflow.resumed");
      const thread = await store.getThread("t-resume");
      expect(thread).toMatchObject({ status: "WAITING", leaseOwner: null });
    } finally {
      await server.close();
      await store.close();
    }
  });

  it("a backend tool whose result is recorded is not run again; the one without a result is", async () => {
    const gated = gatedAgent();
    const store = openStore(backend);
    await orphan(store, "t-tools", "gated", [
      {
        type: "message.appended",
        data: {
          runId: "r1",
          source: "agent",
          message: {
            id: "a1", role: "assistant", content: "",
            toolCalls: [
              { id: "call-first", type: "function", function: { name: "slow_step", arguments: '{"label":"first"}' } },
              { id: "call-second", type: "function", function: { name: "slow_step", arguments: '{"label":"second"}' } },
            ],
          },
        },
      },
      { type: "message.appended", data: { runId: "r1", source: "agent", message: { id: "t1", role: "tool", toolCallId: "call-first", content: "{}" } } },
    ]);
    gated.release.open();
    const server = await startTestServer({ backend, llmUrl: upstream.url, store, agents: [gated.agent] });
    try {
      const frames = await (await postSse(`${server.url}/api/agents/gated/connect`, { threadId: "t-tools" })).done;
      expect(frames.at(-1)?.event.type).toBe("RUN_FINISHED");
      expect([...gated.completed.entries()]).toEqual([["second", 1]]);
      expect((await store.getThread("t-tools"))?.status).toBe("WAITING");
    } finally {
      await server.close();
      await store.close();
    }
  });

  it("an agent with onRecovery 'fail' gets RUN_ERROR INSTANCE_LOST; a CANCELLING orphan ends CANCELLED", async () => {
    const store = openStore(backend);
    const careful = defineAgent({ id: "careful", instructions: "x", onRecovery: "fail" });
    await orphan(store, "t-fail", "careful");
    await orphan(store, "t-cancel", "careful", [{ type: "workflow.cancelling", data: { runId: "r1" } }]);
    const server = await startTestServer({ backend, llmUrl: upstream.url, store, agents: [careful] });
    try {
      const frames = await (await postSse(`${server.url}/api/agents/careful/connect`, { threadId: "t-fail", lastSeenEventId: "0" })).done;
      expect(frames.at(-1)?.event).toMatchObject({ type: "RUN_ERROR", code: "INSTANCE_LOST" });
      expect((await store.getThread("t-fail"))?.status).toBe("FAILED");
      const cancelled = await (await postSse(`${server.url}/api/agents/careful/connect`, { threadId: "t-cancel", lastSeenEventId: "0" })).done;
      expect(cancelled.at(-1)?.event).toMatchObject({ type: "RUN_ERROR", code: "CANCELLED" });
      expect((await store.getThread("t-cancel"))?.status).toBe("CANCELLED");
    } finally {
      await server.close();
      await store.close();
    }
  });
});
