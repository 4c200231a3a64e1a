/**
 * Reload: a thread that ended WAITING (for input, or on a frontend tool call), COMPLETED,
 * FAILED or CANCELLED is rebuilt from the log, by GET /api/threads/:id and by a connect with no
 * cursor applied by both client versions, to exactly what a client that watched its runs live
 * ended with; ids are stable across reloads, and no tool call shows running. A reload in the
 * middle of a run gets the conversation before it as a snapshot, then the run from its start.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_VERSIONS, cancelledEnd, checkWithBothClients, type ClientOutcome } from "../support/agui-clients.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
import { expectAccepted, LiveClient, reloadWithBoth, toSse } from "./support/live.ts";
import { durableAgent, FRONTEND_TOOL, gate, startScriptUpstream, type ScriptUpstream } from "./support/script.ts";
import { postSse } from "../support/sse-client.ts";
import { isTerminal, readAll, type Frame } from "./support/sse.ts";
import { connectUrl, getThread, runUrl, untilEvent, type ThreadView } from "./support/threads.ts";

interface Scenario {
  name: string;
  status: string;
  /** Drives the thread's runs; returns the outcome of the last one. */
  drive(client: LiveClient, server: TestServer): Promise<ClientOutcome>;
  check?(view: ThreadView): void;
}

const SCENARIOS: Scenario[] = [
  {
    name: "waiting for input after a backend tool",
    status: "WAITING",
    drive: async (c) => c.say("Please lookup the answer", { state: { theme: "dark" } }),
    check: (view) => {
      expect(view.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
      expect(Object.values(view.toolCalls)).toEqual([expect.objectContaining({ name: "lookup", status: "complete" })]);
      expect(view.state).toEqual({ theme: "dark", lookups: ["answer"] });
    },
  },
  {
    name: "waiting on a frontend tool call",
    status: "WAITING",
    drive: async (c) => {
      expect((await c.say("hello")).failed).toBe(false);
      return c.say("Please paint the page", { tools: [FRONTEND_TOOL] });
    },
    check: (view) => {
      const last = view.messages.at(-1)!;
      expect(last).toMatchObject({ role: "assistant", toolCalls: [{ function: { name: FRONTEND_TOOL.name } }] });
      // Nothing runs while the thread waits: the unanswered frontend call awaits the client's answer.
      expect(Object.values(view.toolCalls)).toEqual([{ name: FRONTEND_TOOL.name, status: "awaiting_input" }]);
    },
  },
  {
    name: "completed by a tool",
    status: "COMPLETED",
    drive: async (c) => c.say("Please finish now"),
    check: (view) => {
      expect(view.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
      expect(view.messages.at(-1)).toMatchObject({ role: "tool", content: "finished" });
    },
  },
  {
    name: "failed on an upstream 500",
    status: "FAILED",
    drive: async (c) => {
      expect((await c.say("Please lookup the answer")).failed).toBe(false);
      return c.say("Now explode");
    },
    check: (view) => {
      expect(view.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    },
  },
  {
    name: "failed when the upstream hung up mid-answer",
    status: "FAILED",
    drive: async (c) => c.say("Answer slow but break"),
    check: (view) => {
      // What was streamed before the failure stays: the client that watched it has it too.
      expect(view.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
      expect(view.messages[1]!.content).toMatch(/^the/);
    },
  },
  {
    name: "cancelled mid-run",
    status: "CANCELLED",
    drive: async (c, server) => {
      expect((await c.say("Please lookup the answer")).failed).toBe(false);
      const running = c.say("Answer slow please");
      const runId = c.runId();
      await untilEvent(server.store, c.threadId, (e) => e.type === "text.delta" && e.runId === runId);
      const res = await fetch(`${server.url}/api/threads/${c.threadId}/cancel`, { method: "POST" });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ cancelled: true, status: "CANCELLED" });
      return running;
    },
  },
  {
    name: "cancelled while a tool runs",
    status: "CANCELLED",
    drive: async (c, server) => {
      door.close();
      const running = c.say("Please hold on");
      const runId = c.runId();
      await untilEvent(server.store, c.threadId, (e) => e.type === "task.created" && e.data.kind === "tool" && e.runId === runId);
      const res = await fetch(`${server.url}/api/threads/${c.threadId}/cancel`, { method: "POST" });
      expect(await res.json()).toMatchObject({ cancelled: true, status: "CANCELLED" });
      return running;
    },
    check: (view) => {
      // The call never got a result, and it is not running any more either.
      expect(view.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
      expect(Object.values(view.toolCalls)).toEqual([{ name: "hold", status: "cancelled", reason: "run_cancelled" }]);
    },
  },
];

/** Holds the `hold` tool until opened (shared by the scenarios and the mid-run reload). */
const door = gate();

describe.each(backends())("reload on %s", (backend) => {
  let upstream: ScriptUpstream;
  let server: TestServer;
  beforeAll(async () => {
    upstream = await startScriptUpstream({ latencyMs: 3, chunkSize: 3 });
    server = await startTestServer({ backend, llmUrl: upstream.url, agents: [durableAgent({ hold: door.hold })] });
  }, 120_000);
  afterAll(async () => {
    door.open(); // a failed test must not leave a run held open: close() waits for it
    await server?.close();
    await upstream?.stop();
  });

  describe.each(SCENARIOS)("a thread $name", (scenario) => {
    it.each(CLIENT_VERSIONS)("rebuilds what a live @ag-ui/client %s ended with", async (version) => {
      const threadId = `reload-${scenario.status}-${scenario.name.split(" ").at(-1)}-${version}`;
      const live = new LiveClient(server.url, version, threadId);
      const last = await scenario.drive(live, server);
      // Both clients take a RUN_ERROR as the run's end, not as a transport failure.
      expect(last.failed).toBe(false);
      if (scenario.status === "CANCELLED") expect(last.events.at(-1)).toMatchObject(cancelledEnd(version));
      else expect(last.events.at(-1)?.type).toBe(scenario.status === "FAILED" ? "RUN_ERROR" : "RUN_FINISHED");

      const view = await getThread(server.url, threadId);
      expect(view.status).toBe(scenario.status);
      expect(view.activeRunId).toBeNull();
      expect(Object.values(view.toolCalls).filter((c) => c.status === "running")).toEqual([]);
      scenario.check?.(view);
      // The server's reconstruction is what the live client ended with.
      expect(view.messages).toEqual(live.messages);
      expect(view.state).toEqual(live.state);

      const first = await reloadWithBoth(server.url, threadId);
      const second = await reloadWithBoth(server.url, threadId);
      expectAccepted(first);
      expectAccepted(second);
      for (const v of CLIENT_VERSIONS) {
        expect(first[v].messages, `reload by ${v}`).toEqual(live.messages);
        expect(first[v].state, `reload by ${v}`).toEqual(live.state);
        // Stable ids: a second reload yields the very same messages and tool calls.
        expect(second[v].messages).toEqual(first[v].messages);
        expect(second[v].state).toEqual(first[v].state);
      }
      expect(await getThread(server.url, threadId)).toEqual(view);
    });
  });

  it("reloads in the middle of a run: the snapshot before it, then the run from its start", async () => {
    const threadId = "reload-mid-run";
    const live = new LiveClient(server.url, "1.0.0", threadId);
    expect((await live.say("Please lookup the answer", { state: { theme: "light" } })).failed).toBe(false);
    const before = await getThread(server.url, threadId);

    const run2 = {
      threadId,
      runId: "reload-mid-run-2",
      messages: [...live.messages, { id: "u2", role: "user", content: "Please hold on" }],
      state: live.state,
      tools: [],
      context: [],
    };
    door.close();
    const watching = readAll(runUrl(server.url), run2);
    // The run has streamed its text and its tool call, and waits in the `hold` tool: a page
    // loaded now sees it running.
    await untilEvent(server.store, threadId, (e) => e.type === "task.created" && e.data.kind === "tool" && e.runId === run2.runId);
    const reloading = await postSse(connectUrl(server.url), { threadId });
    await reloading.waitFor((f) => f.event.type === "TOOL_CALL_END");
    // The snapshot's synthetic run has ended; the active run has not.
    expect(reloading.frames.slice(4).some((f) => isTerminal(f as Frame))).toBe(false);
    door.open();
    // `done` resolves when the server ends the response: right after the run's terminal frame.
    const frames = (await reloading.done) as Frame[];
    const watched = await watching;

    const [started, snapshot, state, finished, ...rest] = frames;
    expect([started, snapshot, state, finished].map((f) => f!.event.type)).toEqual([
      "RUN_STARTED",
      "MESSAGES_SNAPSHOT",
      "STATE_SNAPSHOT",
      "RUN_FINISHED",
    ]);
    expect(snapshot!.event.messages).toEqual(before.messages);
    expect(state!.event.snapshot).toEqual(before.state);
    // Then the active run, from its RUN_STARTED to its terminal frame, as its own client saw it.
    expect(rest).toEqual(watched.frames);
    expect(rest[0]!.event).toMatchObject({ type: "RUN_STARTED", runId: run2.runId });
    expect(isTerminal(rest.at(-1)!)).toBe(true);
    expect(rest.filter((f) => f.event.type === "TEXT_MESSAGE_CONTENT").length).toBeGreaterThan(20);
    expect(rest.filter((f) => f.event.type === "TOOL_CALL_RESULT")).toHaveLength(1);

    const after = await getThread(server.url, threadId);
    const applied = await checkWithBothClients(toSse(frames), { threadId });
    expectAccepted(applied);
    for (const v of CLIENT_VERSIONS) {
      expect(applied[v].messages, `applied by ${v}`).toEqual(after.messages);
      expect(applied[v].state, `applied by ${v}`).toEqual(after.state);
    }
  });
});
