/**
 * Subagents (server/agents/subagent.ts): a lead agent hands two tasks, in one model turn, to a
 * local agent and to a remote FastAPI agent, which run at once as subagent runs of the lead's run.
 * - @ag-ui/client 1.0.0 sees SUBAGENT_STARTED / SUBAGENT_FINISHED for each, with the child's
 *   `subagentRunId` on the child's events and messages; 0.0.59 (no 1.0 declared) gets the same
 *   frames as CUSTOM `threadline:subagent` and no `subagentRunId`: both clients accept the run.
 * - the lead's model never reads the children's messages, only their answers as tool results;
 *   the remote is sent the child's run (its runId, the lead's as parentRunId) and its task only.
 * - a reload (connect) shows the children's work attributed; capabilities declare multiAgent.
 * - a cancel of the lead stops both children (the remote sees its request end).
 * - a child's approval surfaces as the lead's interrupt (with its subagentRunId), and the answer
 *   reaches the child, which runs its tool once.
 */
import { randomUUID } from "node:crypto";
import type { ChatCompletionRequest, Fixture } from "@copilotkit/aimock";
import type { Message } from "@ag-ui/core";
import { z } from "zod";
import { afterAll, beforeAll, expect, it } from "vitest";
import { defineAgent, defineTool } from "../../server/agents/define.ts";
import { remoteAgent } from "../../server/agents/remote-agent.ts";
import { aguiAgent } from "../../server/agents/agui-agent.ts";
import { AbstractAgent, EventType, type BaseEvent, type RunAgentInput } from "@ag-ui/client";
import { Observable } from "rxjs";
import { subagent } from "../../server/agents/subagent.ts";
import { project } from "../../protocol/project.ts";
import { SUBAGENT_CUSTOM_EVENT } from "../../protocol/project-subagents.ts";
import { CLIENT_VERSIONS, cancelledEnd, runClient, serveBody } from "../support/agui-clients.ts";
import { pythonUnavailable, startRemote, type RemoteFixture } from "../support/remote-agui.ts";
import { postSse } from "../support/sse-client.ts";
import { untilEvent } from "../durability/support/threads.ts";
import { expectAccepted, expectLifecyclesClosed, ofType, type Ev } from "./support/expect.ts";
import { conformanceSuite, local, newThreadId } from "./support/kit.ts";

const LEAD = "lead";
const RESEARCH_ANSWER = "Research: the bridge opened in 1932.";
const FINAL = "Both helpers are done: opened in 1932, and the review agrees.";
const SLOW_RESEARCH = "Research, slowly: ".padEnd(1200, "word ");
const FILED = "Filed the report as R-7.";

/** The content of the request's last message when it is a tool result, else "". */
function lastToolContent(req: ChatCompletionRequest): string {
  const last = req.messages.at(-1);
  if (last?.role !== "tool") return "";
  return typeof last.content === "string" ? last.content : JSON.stringify(last.content);
}
const task = (name: string, text: string) => ({ name, arguments: JSON.stringify({ task: text }) });
const fixtures: Fixture[] = [
  { match: { userMessage: "[team]", hasToolResult: true }, response: { content: FINAL } },
  { match: { userMessage: "[team]" }, response: { toolCalls: [task("researcher", "[child-r] when did the bridge open?"), task("critic", "review the date 1932")] } },
  { match: { userMessage: "[child-r]" }, response: { content: RESEARCH_ANSWER } },
  { match: { userMessage: "[team-slow]" }, response: { toolCalls: [task("researcher", "[child-slow] take your time"), task("critic", "slow review please")] } },
  { match: { userMessage: "[child-slow]" }, response: { content: SLOW_RESEARCH }, latency: 40 },
  { match: { userMessage: "[team-file]", hasToolResult: true }, response: { content: "The clerk filed it." } },
  { match: { userMessage: "[team-file]" }, response: { toolCalls: [task("clerk", "[child-file] file the quarterly report")] } },
  { match: { userMessage: "[child-file]", hasToolResult: true }, response: { content: FILED } },
  { match: { userMessage: "[child-file]" }, response: { toolCalls: [{ name: "file_report", arguments: JSON.stringify({ title: "Q3" }) }] } },
  // After both markers the lead reads the state with its own tool, then answers.
  { match: { userMessage: "[marks]", predicate: (req) => lastToolContent(req).includes('"start"') }, response: { content: "Both marked." } },
  { match: { userMessage: "[marks]", hasToolResult: true }, response: { toolCalls: [{ name: "read_state", arguments: "{}" }] } },
  { match: { userMessage: "[marks]" }, response: { toolCalls: [task("marker_a", "[mark-a] mark"), task("marker_b", "[mark-b] mark")] } },
  { match: { userMessage: "[mark-a]", hasToolResult: true }, response: { content: "a marked" } },
  { match: { userMessage: "[mark-a]" }, response: { toolCalls: [{ name: "mark", arguments: JSON.stringify({ key: "a" }) }] } },
  { match: { userMessage: "[mark-b]", hasToolResult: true }, response: { content: "b marked" } },
  { match: { userMessage: "[mark-b]" }, response: { toolCalls: [{ name: "mark", arguments: JSON.stringify({ key: "b" }) }] } },
  { match: { userMessage: "[team-ask]", hasToolResult: true }, response: { content: "The critic has its answer." } },
  { match: { userMessage: "[team-ask]" }, response: { toolCalls: [task("critic", "ask")] } },
  { match: { userMessage: "[inproc]", hasToolResult: true }, response: { content: "The echo agent answered." } },
  { match: { userMessage: "[inproc]" }, response: { toolCalls: [task("echo", "hello there")] } },
  { match: { userMessage: "[chief]", hasToolResult: true }, response: { content: "Chief: the deputy reported back." } },
  { match: { userMessage: "[chief]" }, response: { toolCalls: [task("deputy", "[deputy] get the research done")] } },
  { match: { userMessage: "[deputy]", hasToolResult: true }, response: { content: "Deputy: research is in." } },
  { match: { userMessage: "[deputy]" }, response: { toolCalls: [task("researcher", "[child-r] when did the bridge open?")] } },
];

/** An AG-UI agent object in this process (an adapter, an application's own): it echoes its task. */
let echoRuns = 0;
class EchoAgent extends AbstractAgent {
  run(input: RunAgentInput): Observable<BaseEvent> {
    // Counted outside the object: each run gets the agent's clone (aguiAgent).
    echoRuns++;
    const taskText = String(input.messages.findLast((m) => m.role === "user")?.content ?? "");
    return new Observable<BaseEvent>((sub) => {
      const events = [
        { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId },
        { type: EventType.TEXT_MESSAGE_START, messageId: `echo-${input.runId}`, role: "assistant" },
        { type: EventType.TEXT_MESSAGE_CONTENT, messageId: `echo-${input.runId}`, delta: `Echo: ${taskText}` },
        { type: EventType.TEXT_MESSAGE_END, messageId: `echo-${input.runId}` },
        { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId },
      ];
      for (const e of events) sub.next(e as BaseEvent);
      sub.complete();
    });
  }
}
const echo = new EchoAgent();

/** A foreign agent's own stream with a subagent of its own (SUBAGENT_* and an attributed message). */
const REMOTE_TEAM_BODY = [
  { type: "RUN_STARTED", threadId: "t", runId: "r" },
  { type: "SUBAGENT_STARTED", subagentRunId: "planner-1", name: "planner", description: "Plans the trip." },
  { type: "TEXT_MESSAGE_START", messageId: "m-plan", role: "assistant", subagentRunId: "planner-1" },
  { type: "TEXT_MESSAGE_CONTENT", messageId: "m-plan", delta: "Day 1: Lisbon.", subagentRunId: "planner-1" },
  { type: "TEXT_MESSAGE_END", messageId: "m-plan", subagentRunId: "planner-1" },
  { type: "SUBAGENT_FINISHED", subagentRunId: "planner-1", outcome: { type: "success" } },
  { type: "TEXT_MESSAGE_START", messageId: "m-final", role: "assistant" },
  { type: "TEXT_MESSAGE_CONTENT", messageId: "m-final", delta: "Here is your plan." },
  { type: "TEXT_MESSAGE_END", messageId: "m-final" },
  { type: "RUN_FINISHED", threadId: "t", runId: "r" },
]
  .map((e) => `data: ${JSON.stringify(e)}\n\n`)
  .join("");

const missing = pythonUnavailable();
let remote: RemoteFixture | undefined;
let remoteTeam: Awaited<ReturnType<typeof serveBody>>;
let filed = 0;

beforeAll(async () => {
  remoteTeam = await serveBody(REMOTE_TEAM_BODY);
  if (!missing) remote = await startRemote("python");
}, 120_000);
afterAll(async () => {
  await remote?.close();
  await remoteTeam?.close();
});

function agents() {
  const researcher = defineAgent({ id: "researcher", description: "Looks facts up.", instructions: "You research one question." });
  const critic = remoteAgent({ id: "critic", description: "Reviews a claim.", url: remote?.url ?? "http://127.0.0.1:9/agent" });
  const clerk = defineAgent({
    id: "clerk",
    instructions: "You file reports.",
    tools: [
      defineTool({
        name: "file_report",
        description: "Files a report.",
        inputSchema: z.object({ title: z.string() }),
        needsApproval: true,
        execute: () => {
          filed++;
          return { id: "R-7" };
        },
      }),
    ],
  });
  const mark = defineTool({
    name: "mark",
    description: "Marks a key in the shared state.",
    inputSchema: z.object({ key: z.string() }),
    async execute({ key }, ctx) {
      await ctx.state.patch([{ op: "add", path: `/${key}`, value: true }]);
      return { marked: key, key };
    },
  });
  const markerA = defineAgent({ id: "marker_a", instructions: "You mark.", tools: [mark] });
  const markerB = defineAgent({ id: "marker_b", instructions: "You mark.", tools: [mark] });
  const deputy = defineAgent({ id: "deputy", instructions: "You delegate research.", tools: [subagent(researcher)] });
  return [
    defineAgent({ id: LEAD, instructions: "You lead a team.", tools: [subagent(researcher), subagent(critic), subagent(clerk)] }),
    defineAgent({ id: "chief", instructions: "You delegate to your deputy.", tools: [subagent(deputy)] }),
    remoteAgent({ id: "remote_team", url: remoteTeam.url }),
    defineAgent({
      id: "markers",
      instructions: "You have two markers.",
      tools: [
        subagent(markerA),
        subagent(markerB),
        defineTool({ name: "read_state", description: "Reads the shared state.", inputSchema: z.object({}), execute: (_args, ctx) => ctx.state.get() }),
      ],
    }),
    defineAgent({ id: "lead_inproc", instructions: "You ask the echo agent.", tools: [subagent(aguiAgent({ id: "echo", agent: echo }))] }),
  ];
}

const user = (tag: string, threadId: string): Message => ({ id: `u-${randomUUID()}`, role: "user", content: `${tag} [${threadId}] go` });
const subagentFrames = (events: Ev[]) => events.filter((e) => e.type.startsWith("SUBAGENT_"));
const customSubagent = (events: Ev[]) => events.filter((e) => e.type === "CUSTOM" && e.name === SUBAGENT_CUSTOM_EVENT);

conformanceSuite("subagents", { fixtures, agents, localReason: "needs the kit's aimock fixtures and its own agents" }, (target) => {
  it.skipIf(missing !== undefined).each(CLIENT_VERSIONS)("runs a local and a remote subagent at once (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const threadId = newThreadId(`subagents-${version}`);
    const out = await runClient(version, {
      url: t.runUrl(LEAD),
      input: { threadId, messages: [user("[team]", threadId)], ...(version === "1.0.0" ? {} : {}) },
    });
    expectAccepted(out);
    expectLifecyclesClosed(out.events);
    expect(out.events.at(-1)).toMatchObject({ type: "RUN_FINISHED" });

    const calls = ofType(out.events, "TOOL_CALL_START").filter((e) => e.subagentRunId === undefined);
    const byName = Object.fromEntries(calls.map((c) => [c.toolCallName as string, c.toolCallId as string]));
    expect(Object.keys(byName).sort()).toEqual(["critic", "researcher"]);
    const childOf = (name: string) => `${byName[name]}~sub`;

    if (version === "1.0.0") {
      const frames = subagentFrames(out.events);
      expect(frames.map((f) => [f.type, f.subagentRunId]).sort()).toEqual(
        [
          ["SUBAGENT_FINISHED", childOf("critic")],
          ["SUBAGENT_FINISHED", childOf("researcher")],
          ["SUBAGENT_STARTED", childOf("critic")],
          ["SUBAGENT_STARTED", childOf("researcher")],
        ].sort(),
      );
      for (const name of ["researcher", "critic"]) {
        expect(frames.find((f) => f.type === "SUBAGENT_STARTED" && f.subagentRunId === childOf(name))).toMatchObject({ name, parentToolCallId: byName[name] });
        expect(frames.find((f) => f.type === "SUBAGENT_FINISHED" && f.subagentRunId === childOf(name))).toMatchObject({ outcome: { type: "success" } });
      }
      // In parallel: both started before either finished.
      const idx = (type: string, name: string) => out.events.findIndex((e) => e.type === type && e.subagentRunId === childOf(name));
      expect(Math.max(idx("SUBAGENT_STARTED", "researcher"), idx("SUBAGENT_STARTED", "critic"))).toBeLessThan(Math.min(idx("SUBAGENT_FINISHED", "researcher"), idx("SUBAGENT_FINISHED", "critic")));
      // The children's text is theirs; the lead's answer is nobody's child.
      const texts = ofType(out.events, "TEXT_MESSAGE_START");
      expect(new Set(texts.map((e) => e.subagentRunId))).toEqual(new Set([childOf("researcher"), childOf("critic"), undefined]));
      const researcherMsgs = out.messages.filter((m) => m.subagentRunId === childOf("researcher"));
      expect(researcherMsgs.map((m) => m.role)).toEqual(["user", "assistant"]);
      expect(researcherMsgs[1]).toMatchObject({ content: RESEARCH_ANSWER });
      expect(customSubagent(out.events)).toEqual([]);
    } else {
      expect(subagentFrames(out.events)).toEqual([]);
      expect(out.events.some((e) => "subagentRunId" in e)).toBe(false);
      expect(out.messages.some((m) => "subagentRunId" in m)).toBe(false);
      expect(customSubagent(out.events).map((e) => (e.value as { type: string }).type).sort()).toEqual(["SUBAGENT_FINISHED", "SUBAGENT_FINISHED", "SUBAGENT_STARTED", "SUBAGENT_STARTED"]);
    }

    // The tool results are the children's answers; the lead's last answer follows.
    const results = ofType(out.events, "TOOL_CALL_RESULT").filter((e) => e.subagentRunId === undefined);
    expect(results.find((r) => r.toolCallId === byName.researcher)?.content).toBe(RESEARCH_ANSWER);
    expect(results.find((r) => r.toolCallId === byName.critic)?.content).toMatch(/^You said: review the date 1932\. This is turn 1\./);
    expect(out.messages.at(-1)).toMatchObject({ role: "assistant", content: FINAL });

    // The lead's second request reads its own turn and the two results, nothing of the children.
    const leadRequests = kit.llmRequests(threadId);
    expect(leadRequests).toHaveLength(2);
    expect((leadRequests[1] as ChatCompletionRequest).messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "tool"]);
    // The remote ran the child run: its own id, the lead's run as parent, the task alone.
    const sent = (await remote!.received()).find((b) => b.runId === childOf("critic"))!;
    expect(sent.parentRunId).toBe(out.events[0]!.runId);
    expect(sent.messages.map((m) => [m.role, m.content])).toEqual([["user", "review the date 1932"]]);

    // The thread keeps the children's work, attributed; a 1.0 reload shows it so.
    const thread = await kit.thread(threadId);
    const attributed = thread.messages.filter((m) => (m as { subagentRunId?: string }).subagentRunId === childOf("researcher"));
    expect(attributed.map((m) => m.role)).toEqual(["user", "assistant"]);
    const reload = (await (await postSse(`${kit.server.url}/api/agents/${LEAD}/connect`, { threadId, protocolVersion: "1.0" })).done).map((f) => f.event as Ev);
    const snapshot = ofType(reload, "MESSAGES_SNAPSHOT").at(-1)!;
    expect((snapshot.messages as Message[]).filter((m) => m.subagentRunId === childOf("critic")).map((m) => m.role)).toEqual(["user", "assistant"]);
    const legacyReload = (await (await postSse(`${kit.server.url}/api/agents/${LEAD}/connect`, { threadId })).done).map((f) => f.event as Ev);
    expect(JSON.stringify(legacyReload)).not.toContain("subagentRunId");
    // A frame id is one position whatever the stream speaks: both forms of the log, id for id.
    const log = await kit.server.store.read(threadId);
    const ids = (reader: "legacy" | "1.0") => project(log, reader).map((f) => f.id);
    expect(ids("1.0")).toEqual(ids("legacy"));
    expect(project(log, "1.0").filter((f) => f.event.type.startsWith("SUBAGENT_"))).toHaveLength(version === "1.0.0" ? 4 : 0);
  });

  it("declares multiAgent with its subagents", async () => {
    const kit = local(target());
    const res = await fetch(`${kit.server.url}/api/agents/${LEAD}`);
    const body = (await res.json()) as { capabilities: { multiAgent?: { supported: boolean; delegation: boolean; subagents: { name: string }[] } } };
    expect(body.capabilities.multiAgent).toMatchObject({ supported: true, delegation: true });
    expect(body.capabilities.multiAgent!.subagents.map((s) => s.name)).toEqual(["researcher", "critic", "clerk"]);
  });

  it.skipIf(missing !== undefined).each(CLIENT_VERSIONS)("a cancel of the lead stops both children (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const threadId = newThreadId(`subagents-cancel-${version}`);
    const live = runClient(version, { url: t.runUrl(LEAD), input: { threadId, messages: [user("[team-slow]", threadId)] } });
    // Both children are streaming: the local one's text and the remote's have started.
    await untilEvent(kit.server.store, threadId, (e) => e.type === "text.delta" && e.data.subagentRunId?.includes("~sub") === true && e.data.delta.includes("word"));
    const remoteChild = await untilEvent(kit.server.store, threadId, (e) => e.type === "text.delta" && e.data.delta.includes("More words"));
    const res = await fetch(`${kit.server.url}/api/threads/${threadId}/cancel`, { method: "POST" });
    expect(res.status).toBe(200);
    const out = await live;
    expectAccepted(out);
    expect(out.events.at(-1)).toMatchObject(cancelledEnd(version));
    const log = (await kit.server.store.read(threadId)).filter((e) => e.type === "subagent.ended");
    expect(log.map((e) => (e.data as { outcome: string }).outcome)).toEqual(["cancelled", "cancelled"]);
    if (version === "1.0.0") expect(ofType(out.events, "SUBAGENT_ERROR").map((e) => e.code)).toEqual(["CANCELLED", "CANCELLED"]);
    // The remote's request ended with the cancel, and no child wrote after the run's end.
    const childRun = (remoteChild.data as { subagentRunId: string }).subagentRunId;
    await expect.poll(async () => (await remote!.disconnects()).includes(childRun)).toBe(true);
    expect((await kit.thread(threadId)).status).toBe("CANCELLED");
  });

  it.each(CLIENT_VERSIONS)("a child's approval is the lead's interrupt, and the answer reaches the child (@ag-ui/client %s)", async (version) => {
    const t = target();
    const threadId = newThreadId(`subagents-ask-${version}`);
    const before = filed;
    const first = await runClient(version, { url: t.runUrl(LEAD), input: { threadId, messages: [user("[team-file]", threadId)] } });
    expectAccepted(first);
    const end = first.events.at(-1)!;
    const interrupts = (end.outcome as { type: string; interrupts: { id: string; subagentRunId?: string; metadata: { toolName: string } }[] }).interrupts;
    expect(interrupts).toHaveLength(1);
    expect(interrupts[0]!.metadata.toolName).toBe("file_report");
    const clerkCall = ofType(first.events, "TOOL_CALL_START").find((e) => e.toolCallName === "clerk")!.toolCallId as string;
    if (version === "1.0.0") {
      expect(interrupts[0]!.subagentRunId).toBe(`${clerkCall}~sub`);
      expect(ofType(first.events, "SUBAGENT_FINISHED").at(-1)).toMatchObject({ subagentRunId: `${clerkCall}~sub`, outcome: { type: "suspended", interruptIds: [interrupts[0]!.id] } });
    } else {
      expect(interrupts[0]).not.toHaveProperty("subagentRunId");
    }
    expect(filed).toBe(before);
    const second = await runClient(version, {
      url: t.runUrl(LEAD),
      input: { threadId, messages: first.messages, resume: [{ interruptId: interrupts[0]!.id, status: "resolved", payload: { approved: true } }] },
    });
    expectAccepted(second);
    expect(second.events.at(-1)).toMatchObject({ type: "RUN_FINISHED" });
    expect(filed).toBe(before + 1);
    const result = ofType(second.events, "TOOL_CALL_RESULT").find((e) => e.toolCallId === clerkCall)!;
    expect(result.content).toBe(FILED);
    expect(second.messages.at(-1)).toMatchObject({ role: "assistant", content: "The clerk filed it." });
  });

  it.each(CLIENT_VERSIONS)("a subagent's own subagent is nested under it (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const threadId = newThreadId(`subagents-nested-${version}`);
    const out = await runClient(version, { url: t.runUrl("chief"), input: { threadId, messages: [user("[chief]", threadId)] } });
    expectAccepted(out);
    expectLifecyclesClosed(out.events);
    const deputyCall = ofType(out.events, "TOOL_CALL_START").find((e) => e.toolCallName === "deputy")!.toolCallId as string;
    const researcherCall = ofType(out.events, "TOOL_CALL_START").find((e) => e.toolCallName === "researcher")!.toolCallId as string;
    const deputyRun = `${deputyCall}~sub`;
    const researcherRun = `${researcherCall}~sub`;
    if (version === "1.0.0") {
      expect(ofType(out.events, "TOOL_CALL_START").find((e) => e.toolCallName === "researcher")!.subagentRunId).toBe(deputyRun);
      expect(ofType(out.events, "SUBAGENT_STARTED").map((e) => [e.subagentRunId, e.parentSubagentRunId])).toEqual([
        [deputyRun, undefined],
        [researcherRun, deputyRun],
      ]);
      expect(out.messages.find((m) => m.role === "assistant" && m.content === RESEARCH_ANSWER)?.subagentRunId).toBe(researcherRun);
    }
    expect(out.messages.at(-1)).toMatchObject({ role: "assistant", content: "Chief: the deputy reported back." });
    // Each model reads its own conversation: the chief its turn and the deputy's answer, the
    // deputy its task, its call and the researcher's answer.
    const thread = await kit.thread(threadId);
    expect(thread.messages.filter((m) => (m as { subagentRunId?: string }).subagentRunId === deputyRun).map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    const deputyFollowUp = kit.mock
      .getRequests()
      .map((e) => e.body as ChatCompletionRequest)
      .find((b) => b.messages.some((m) => m.role === "user" && JSON.stringify(m.content).includes("[deputy]")) && b.messages.at(-1)?.role === "tool" && b.messages.at(-1)!.tool_call_id === researcherCall)!;
    expect(deputyFollowUp.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(ofType(out.events, "TOOL_CALL_RESULT").find((e) => e.toolCallId === deputyCall)?.content).toBe("Deputy: research is in.");
  });

  it.each(CLIENT_VERSIONS)("a remote agent's own SUBAGENT_* events are kept (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const threadId = newThreadId(`subagents-remote-own-${version}`);
    const out = await runClient(version, { url: t.runUrl("remote_team"), input: { threadId, messages: [user("plan a trip", threadId)] } });
    expectAccepted(out);
    expectLifecyclesClosed(out.events);
    if (version === "1.0.0") {
      expect(ofType(out.events, "SUBAGENT_STARTED")).toEqual([expect.objectContaining({ subagentRunId: "planner-1", name: "planner", description: "Plans the trip." })]);
      expect(ofType(out.events, "SUBAGENT_FINISHED")).toEqual([expect.objectContaining({ subagentRunId: "planner-1", outcome: { type: "success" } })]);
      const plan = out.messages.find((m) => m.role === "assistant" && m.content === "Day 1: Lisbon.");
      expect(plan?.subagentRunId).toBe("planner-1");
      expect(out.messages.find((m) => m.content === "Here is your plan.")?.subagentRunId).toBeUndefined();
    } else {
      expect(customSubagent(out.events).map((e) => (e.value as { type: string }).type)).toEqual(["SUBAGENT_STARTED", "SUBAGENT_FINISHED"]);
    }
    const thread = await kit.thread(threadId);
    expect(thread.messages.filter((m) => (m as { subagentRunId?: string }).subagentRunId === "planner-1").map((m) => m.content)).toEqual(["Day 1: Lisbon."]);
  });

  it.each(CLIENT_VERSIONS)("an AG-UI agent object of this process is a subagent (aguiAgent) (@ag-ui/client %s)", async (version) => {
    const t = target();
    const threadId = newThreadId(`subagents-inproc-${version}`);
    const before = echoRuns;
    const out = await runClient(version, { url: t.runUrl("lead_inproc"), input: { threadId, messages: [user("[inproc]", threadId)] } });
    expectAccepted(out);
    expect(echoRuns).toBe(before + 1);
    const call = ofType(out.events, "TOOL_CALL_START").find((e) => e.toolCallName === "echo")!.toolCallId as string;
    expect(ofType(out.events, "TOOL_CALL_RESULT").find((e) => e.toolCallId === call)?.content).toBe("Echo: hello there");
    if (version === "1.0.0") expect(ofType(out.events, "SUBAGENT_STARTED")).toEqual([expect.objectContaining({ subagentRunId: `${call}~sub`, name: "echo" })]);
    expect(out.messages.at(-1)).toMatchObject({ role: "assistant", content: "The echo agent answered." });
  });

  it.each(CLIENT_VERSIONS)("parallel children write one shared state (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const threadId = newThreadId(`subagents-state-${version}`);
    const out = await runClient(version, { url: t.runUrl("markers"), input: { threadId, messages: [user("[marks]", threadId)], state: { start: 1 } } });
    expectAccepted(out);
    expect(out.messages.at(-1)).toMatchObject({ role: "assistant", content: "Both marked." });
    // Each child's write is the thread's, and neither undoes the other's: in the log, and in the
    // state the lead's own tool reads after both children ended.
    expect((await kit.thread(threadId)).state).toEqual({ start: 1, a: true, b: true });
    const read = ofType(out.events, "TOOL_CALL_RESULT").find((e) => e.subagentRunId === undefined && String(e.content).includes("start"))!;
    expect(JSON.parse(read.content as string)).toEqual({ start: 1, a: true, b: true });
    expect(out.state).toEqual({ start: 1, a: true, b: true });
  });

  it.skipIf(missing !== undefined).each(CLIENT_VERSIONS)("a remote child's interrupt is the lead's, and its answer goes back to the remote as resume (@ag-ui/client %s)", async (version) => {
    const t = target();
    const threadId = newThreadId(`subagents-remote-ask-${version}`);
    const first = await runClient(version, { url: t.runUrl(LEAD), input: { threadId, messages: [user("[team-ask]", threadId)] } });
    expectAccepted(first);
    const outcome = first.events.at(-1)!.outcome as { type: string; interrupts: { id: string; message?: string; subagentRunId?: string }[] };
    expect(outcome.type).toBe("interrupt");
    expect(outcome.interrupts.map((i) => i.message)).toEqual(["Which city?"]);
    const critic = ofType(first.events, "TOOL_CALL_START").find((e) => e.toolCallName === "critic")!.toolCallId as string;
    if (version === "1.0.0") expect(outcome.interrupts[0]!.subagentRunId).toBe(`${critic}~sub`);
    const second = await runClient(version, {
      url: t.runUrl(LEAD),
      input: { threadId, messages: first.messages, resume: [{ interruptId: outcome.interrupts[0]!.id, status: "resolved", payload: { city: "Lisbon" } }] },
    });
    expectAccepted(second);
    // The remote got its own question's answer, under the child run, and the child's answer is the result.
    const resumed = (await remote!.received()).filter((b) => b.runId === `${critic}~sub`);
    expect(resumed.map((b) => b.resume?.map((r) => r.payload))).toEqual([undefined, [{ city: "Lisbon" }]]);
    expect(ofType(second.events, "TOOL_CALL_RESULT").find((e) => e.toolCallId === critic)?.content).toBe('You chose {"city":"Lisbon"}.');
    expect(second.messages.at(-1)).toMatchObject({ role: "assistant", content: "The critic has its answer." });
  });
});
