/**
 * Subagents across processes (server/agents/subagent.ts): the `team` agent hands two tasks at once
 * to a local subagent and a remote FastAPI one. A is SIGKILLed while the local child's model
 * request streams, after the remote child finished. B takes the run over and finishes both: the
 * local child goes on from its log (its request made again), the finished remote child is never
 * run again (its answer is a recorded result), and the lead's own first turn is not redone.
 * @ag-ui/client 1.0.0 replays the thread from B with SUBAGENT_STARTED/FINISHED for both.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventOf } from "../../protocol/events.ts";
import { runClient } from "../support/agui-clients.ts";
import { DATABASE_URL, noticeSkip, pieces, startCluster, within, type Cluster } from "../support/multiprocess-kit.ts";
import { postSse } from "../support/sse-client.ts";
import { lastUserText, type ChatRequestBody } from "../support/scripted-upstream.ts";
import { pythonUnavailable, startRemote, type RemoteFixture } from "../support/remote-agui.ts";
import { SPAWN_READY_BOUND_MS, TEAM_AGENT_ID, type ServerProcess } from "../support/server-process.ts";
import { untilEvent } from "./support/threads.ts";

noticeSkip("multiprocess-subagents");

const RESEARCH = pieces("finding", 12);
const taskCall = (id: string, name: string, task: string) => ({ id, name, arguments: JSON.stringify({ task }) });
const isChild = (body: ChatRequestBody) => lastUserText(body).startsWith("[child-r]");

describe.skipIf(!DATABASE_URL)("subagents across processes", () => {
  let cluster: Cluster;
  let remote: RemoteFixture;
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    // The remote is FastAPI where the machine has it (CI does), else its Node twin.
    remote = await startRemote(pythonUnavailable() === undefined ? "python" : "node");
    cluster = await startCluster();
    const env = { CHILD_AGENTS: TEAM_AGENT_ID, CHILD_REMOTE_URL: remote.url };
    [a, b] = await Promise.all([cluster.spawn("A", env), cluster.spawn("B", env)]);
  }, SPAWN_READY_BOUND_MS + 60_000);

  afterAll(async () => {
    await cluster?.close();
    await remote?.close();
  }, 30_000);

  it("SIGKILL mid-child: the survivor finishes both children, the finished one is not run again", async () => {
    const threadId = `mp-sub-${Date.now()}`;
    let childAttempts = 0;
    cluster.upstream.script = (body) => {
      if (isChild(body)) return childAttempts++ === 0 ? { text: RESEARCH, holdAfter: 3 } : { text: RESEARCH };
      if (body.messages.at(-1)?.role === "tool") return { text: ["Both ", "helpers ", "answered."] };
      return { text: [], toolCalls: [taskCall("call-res", "researcher", "[child-r] dig"), taskCall("call-cri", "critic", "check it")] };
    };
    const first = cluster.upstream.requests.length;
    // Posted as a 1.0 client posts (protocolVersion), so its frames take 1.0's forms (SUBAGENT_*).
    const stream = await postSse(`${a.url}/api/agents/${TEAM_AGENT_ID}/run`, {
      threadId,
      runId: "r1",
      protocolVersion: "1.0",
      messages: [{ id: "r1-u", role: "user", content: "[team] go" }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
    });
    // A's stream ends with the kill: its error is expected, and handled before it happens.
    void stream.done.catch(() => undefined);
    // The remote child finished on A (its result is in the log), the local one is mid-request.
    await untilEvent(cluster.store, threadId, (e) => e.type === "message.appended" && e.data.message.role === "tool" && e.data.message.toolCallId === "call-cri", 30_000);
    const cut = await within(30_000, (async () => {
      for (let n = first; ; n++) {
        const r = await cluster.upstream.request(n);
        if (isChild(r.body)) return r;
      }
    })(), "the local child's model request");
    await within(30_000, cut.held, "the local child's request held mid-stream");
    await a.kill("SIGKILL");

    const end = (await untilEvent(cluster.store, threadId, (e) => e.type === "workflow.suspended" && e.data.runId === "r1", 90_000)) as EventOf<"workflow.suspended">;
    expect(end.data.reason).toBe("input");
    const log = await cluster.store.read(threadId);
    // The remote child ran once, on A; the local child was started on A and again on B.
    const sent = (await remote.received()).filter((r) => r.threadId === threadId);
    expect(sent.map((r) => r.runId)).toEqual(["call-cri~sub"]);
    const starts = log.filter((e) => e.type === "subagent.started").map((e) => (e.data as { childRunId: string }).childRunId);
    expect(starts.filter((c) => c === "call-cri~sub")).toHaveLength(1);
    expect(starts.filter((c) => c === "call-res~sub")).toHaveLength(2);
    const ends = log.filter((e) => e.type === "subagent.ended").map((e) => [(e.data as { childRunId: string }).childRunId, (e.data as { outcome: string }).outcome]);
    expect(ends.sort()).toEqual([["call-cri~sub", "success"], ["call-res~sub", "success"]]);
    expect(log.find((e) => e.type === "workflow.resumed")).toMatchObject({ data: { runId: "r1", reason: "recovered" } });
    // Model requests: the lead's first turn once, the child's twice (cut, then again on B), the lead's last once.
    const made = cluster.upstream.requests.slice(first).filter((r) => lastUserText(r.body).includes("[team]") || isChild(r.body));
    expect(made.filter((r) => isChild(r.body))).toHaveLength(2);
    expect(made.filter((r) => !isChild(r.body)).map((r) => r.body.messages.at(-1)?.role)).toEqual(["user", "tool"]);
    // Each call has one result: the child's answer, in full.
    const results = log.filter((e) => e.type === "message.appended" && e.data.message.role === "tool" && e.data.subagentRunId === undefined);
    expect(results.map((e) => (e.data as { message: { toolCallId: string } }).message.toolCallId).sort()).toEqual(["call-cri", "call-res"]);
    expect((results.find((e) => (e.data as { message: { toolCallId: string } }).message.toolCallId === "call-res")!.data as { message: { content: string } }).message.content).toBe(RESEARCH.join(""));

    // A 1.0 client replaying the thread from B accepts it and sees both children start and finish.
    const out = await runClient("1.0.0", { url: `${b.url}/api/agents/${TEAM_AGENT_ID}/connect`, input: { threadId }, headers: { "Last-Event-ID": "0" } });
    expect(out.error?.message).toBeUndefined();
    const frames = out.events.filter((e) => e.type.startsWith("SUBAGENT_")).map((e) => [e.type, e.subagentRunId]);
    expect(frames.filter(([t]) => t === "SUBAGENT_STARTED").map(([, id]) => id).sort()).toEqual(["call-cri~sub", "call-res~sub"]);
    expect(frames.filter(([t]) => t === "SUBAGENT_FINISHED").map(([, id]) => id).sort()).toEqual(["call-cri~sub", "call-res~sub"]);
    expect(out.events.at(-1)).toMatchObject({ type: "RUN_FINISHED", runId: "r1" });
  }, 180_000);
});
