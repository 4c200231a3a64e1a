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
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import { postSse, type SseFrame } from "../support/sse-client.ts";
import { gate, gatedAgent, startGatedUpstream, user } from "./support.ts";

async function orphan(store: EventStore, threadId: string, agentId: string, extra: WorkflowEvent[] = [], opts: { text?: string; lease?: boolean } = {}) {
  await store.migrate();
  await store.ensureThread(threadId, agentId);
  await store.append(threadId, [
    { type: "thread.created", data: { agentId } },
    { type: "run.accepted", data: { runId: "r1", tools: [], context: [] } },
    { type: "message.appended", data: { runId: "r1", source: "input", message: { id: "u1", role: "user", content: opts.text ?? "hello" } } },
    { type: "workflow.started", data: { runId: "r1" } },
    ...extra,
  ]);
  // The dead instance's lease, already expired by the database clock (none: it was given back).
  if (opts.lease !== false) expect(await store.acquireLease(threadId, "dead-instance", 0)).toBe(true);
}

async function threadMessages(url: string, threadId: string): Promise<unknown[]> {
  return ((await (await fetch(`${url}/api/threads/${threadId}`)).json()) as { messages: unknown[] }).messages;
}

const cutTask: WorkflowEvent = { type: "task.created", data: { runId: "r1", taskId: "x", kind: "llm", name: "llm-request-1" } };
const deltasOf = (frames: SseFrame[], type: string, messageId?: string) =>
  frames.filter((f) => f.event.type === type && (messageId === undefined || f.event.messageId === messageId)).map((f) => f.event.delta as string);

describe.each(backends())("recovery on %s", (backend) => {
  let upstream: { mock: LLMock; url: string };
  beforeAll(async () => {
    upstream = await startGatedUpstream();
  });
  afterAll(() => upstream.mock.stop());

  it("a starting instance resumes an orphaned run: a partial message the model does not repeat is withdrawn, the answer streams, WAITING", async () => {
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

  it("a run cut mid-answer whose model answers the same goes on where the cut text stopped: no word is streamed twice", async () => {
    const store = openStore(backend);
    // aimock answers "answer to: hello"; the dead instance had streamed its first words.
    await orphan(store, "t-continue", "default", [
      cutTask,
      { type: "text.started", data: { runId: "r1", messageId: "cut" } },
      { type: "text.delta", data: { runId: "r1", messageId: "cut", delta: "answer " } },
      { type: "text.delta", data: { runId: "r1", messageId: "cut", delta: "to: he" } },
    ]);
    const server = await startTestServer({ backend, llmUrl: upstream.url, store });
    try {
      const frames = await (await postSse(`${server.url}/api/agents/default/connect`, { threadId: "t-continue", lastSeenEventId: "0" })).done;
      expect(frames.at(-1)?.event.type).toBe("RUN_FINISHED");
      // One message, started once, its words once: the cut ones, then only what follows them.
      expect(frames.filter((f) => f.event.type === "TEXT_MESSAGE_START").map((f) => f.event.messageId)).toEqual(["cut"]);
      expect(deltasOf(frames, "TEXT_MESSAGE_CONTENT")).toEqual(["answer ", "to: he", "llo"]);
      expect(frames.filter((f) => f.event.type === "MESSAGES_SNAPSHOT")).toEqual([]);
      const log = await store.read("t-continue");
      expect(log.find((e) => e.type === "workflow.resumed")?.data).toMatchObject({ reason: "recovered", continues: ["cut"] });
      expect(log.some((e) => e.type === "stream.withdrawn")).toBe(false);
      const messages = await threadMessages(server.url, "t-continue");
      expect(messages.at(-1)).toEqual({ id: "cut", role: "assistant", content: "answer to: hello" });
      for (const version of CLIENT_VERSIONS) {
        const out = await runClient(version, { url: `${server.url}/api/agents/default/connect`, input: { threadId: "t-continue" }, headers: { "Last-Event-ID": "0" } });
        expect(out.error?.message, version).toBeUndefined();
        expect(out.messages.filter((m) => m.role === "assistant")).toEqual([expect.objectContaining({ id: "cut", content: "answer to: hello" })]);
      }
    } finally {
      await server.close();
      await store.close();
    }
  });

  it("a hand-off cut mid-reasoning: claimed at once (no lease to expire), continued as a hand-off, the reasoning's words once", async () => {
    const store = openStore(backend);
    await orphan(store, "t-handed", "default", [
      cutTask,
      { type: "reasoning.started", data: { runId: "r1", messageId: "rs" } },
      { type: "reasoning.delta", data: { runId: "r1", messageId: "rs", delta: "Weighing the" } },
      { type: "workflow.handed_over", data: { runId: "r1", owner: "draining-instance", step: 0, cut: true } },
    ], { text: "think it over", lease: false });
    const server = await startTestServer({ backend, llmUrl: upstream.url, store, leaseOwner: "next-instance" });
    try {
      const frames = await (await postSse(`${server.url}/api/agents/default/connect`, { threadId: "t-handed", lastSeenEventId: "0" })).done;
      expect(frames.at(-1)?.event.type).toBe("RUN_FINISHED");
      // The cut words, then only what follows them (in the model's chunks).
      const reasoning = deltasOf(frames, "REASONING_MESSAGE_CONTENT", "rs");
      expect(reasoning[0]).toBe("Weighing the");
      expect(reasoning.join("")).toBe("Weighing the question.");
      expect(frames.filter((f) => f.event.type === "REASONING_MESSAGE_START")).toHaveLength(1);
      expect(deltasOf(frames, "TEXT_MESSAGE_CONTENT").join("")).toBe("Here is my answer.");
      const log = await store.read("t-handed");
      expect(log.find((e) => e.type === "workflow.resumed")?.data).toEqual({
        runId: "r1", reason: "handed_over", owner: "next-instance", from: "draining-instance", continues: ["rs"],
      });
      const messages = await threadMessages(server.url, "t-handed");
      expect(messages.slice(1)).toEqual([
        { id: "rs", role: "reasoning", content: "Weighing the question." },
        expect.objectContaining({ role: "assistant", content: "Here is my answer." }),
      ]);
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      expect(metrics).toMatch(/^threadline_run_handoffs_total\{direction="in",cut="true"\} 1$/m);
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

  it("a run whose lease expired while it executes here (a beat too late) is not claimed again by its own instance's sweep", async () => {
    const gated = gatedAgent();
    gated.release = gate();
    const server = await startTestServer({ backend, llmUrl: upstream.url, agents: [gated.agent], leaseOwner: "busy" });
    try {
      const threadId = `t-late-beat-${backend}`;
      const stream = await postSse(`${server.url}/api/agents/gated/run`, {
        threadId, runId: "r1", messages: [user("do one step")], tools: [], context: [], state: {}, forwardedProps: {},
      });
      expect(await gated.started.next()).toBe("only");
      // The beats this instance missed: its lease is still its own, and already expired.
      expect(await server.store.heartbeat("busy", [threadId], 0)).toEqual([threadId]);
      await server.threadline.engine.sweep();
      gated.release.open();
      const frames = await stream.done;
      expect(frames.at(-1)?.event.type).toBe("RUN_FINISHED");
      const types = (await server.store.read(threadId)).map((e) => e.type);
      expect(types).not.toContain("workflow.resumed");
      expect(types.filter((t) => t === "workflow.started")).toHaveLength(1);
      expect([...gated.completed.entries()]).toEqual([["only", 1]]);
      expect(await server.store.getThread(threadId)).toMatchObject({ status: "WAITING", leaseOwner: null });
    } finally {
      await server.close();
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
