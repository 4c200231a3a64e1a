/**
 * Interrupts as AG-UI 1.0 defines them, through the real clients (@ag-ui/client 1.0.0 and
 * 0.0.59) against the `approvals` agent:
 * - the run that asks ends STATE_SNAPSHOT, MESSAGES_SNAPSHOT, RUN_FINISHED{outcome interrupt},
 *   live and in a replay from a cursor (the same frames); reason tool_call;
 * - approve with edits: valid edits are what runs, what the log keeps and what the model reads;
 *   invalid ones are a 400 with the reasons and write nothing;
 * - expiry: a resume after expiresAt is 409 INTERRUPT_EXPIRED naming it and writes nothing; the
 *   thread settles (a cancel, or a new message, cancels it as expired; the email is not sent);
 * - parallel approvals are asked in one outcome, and answered together or one by one;
 * - each decision stays in the conversation: the thread view and a reload show it.
 */
import { randomUUID } from "node:crypto";
import { LLMock, type ChatCompletionRequest } from "@copilotkit/aimock";
import type { Message, ResumeEntry } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { INTERRUPT_TOOL, INTERRUPT_TOOL_NAME } from "../../protocol/interrupts.ts";
import { admissionRunId } from "../../protocol/run-ids.ts";
import { approvalsAgent, APPROVALS_AGENT_ID } from "../../server/agents/approvals-agent.ts";
import { defineAgent, defineTool, MAX_INTERRUPT_EXPIRY_MS } from "../../server/agents/define.ts";
import { APPROVAL_TOOLS, approvalsFixtures, ScheduleMeetingArgsSchema, type SendEmailArgs } from "../../server/demo/approvals-fixtures.ts";
import { assertAcceptedByBoth, checkWithBothClients, CLIENT_VERSIONS } from "../support/agui-clients.ts";
import { conversation, finished, text, type Ev } from "../support/interrupt-conversation.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
import { postSse } from "../support/sse-client.ts";

const EXPIRING = "approvals-expiring";
const LONG_EXPIRY = "approvals-long-expiry";
const BAD_REASON = "approvals-bad-reason";

/** The approvals agent's tools under the same names (the demo fixtures answer them), asking with a bare reason. */
function badReasonAgent() {
  const { tools } = approvalsAgent();
  const meeting = defineTool({
    name: APPROVAL_TOOLS.scheduleMeeting,
    description: "Books a meeting.",
    inputSchema: ScheduleMeetingArgsSchema,
    execute: async (_args, ctx) => ctx.interrupt({ reason: "choose_slot" }),
  });
  return defineAgent({ id: BAD_REASON, instructions: "test", tools: [tools[0]!, meeting] });
}
const user = (content: string): Message => ({ id: `u-${randomUUID()}`, role: "user", content });
const approve = (id: string, extra: object = {}): ResumeEntry => ({ interruptId: id, status: "resolved", payload: { approved: true, ...extra } });

describe.each(backends())("interrupts as AG-UI 1.0 defines them [%s]", (backend) => {
  let mock: LLMock;
  let server: TestServer;
  const sent: { email: SendEmailArgs; threadId: string }[] = [];
  const sentIn = (threadId: string) => sent.filter((s) => s.threadId === threadId).map((s) => s.email);
  const url = (agent = APPROVALS_AGENT_ID) => `${server.url}/api/agents/${agent}/run`;
  const onSend = (email: SendEmailArgs, at: { threadId: string }) => void sent.push({ email, threadId: at.threadId });

  beforeAll(async () => {
    mock = new LLMock({ port: 0, host: "127.0.0.1", chunkSize: 8, logLevel: "silent", journalMaxEntries: 0 });
    mock.addFixtures(approvalsFixtures());
    const llmUrl = `${(await mock.start()).replace(/\/$/, "")}/v1`;
    server = await startTestServer({
      backend,
      llmUrl,
      agents: [
        approvalsAgent({ onSend }),
        approvalsAgent({ onSend, id: EXPIRING, approvalExpiresInMs: 1, slotExpiresInMs: 1 }),
        approvalsAgent({ id: LONG_EXPIRY, approvalExpiresInMs: MAX_INTERRUPT_EXPIRY_MS, slotExpiresInMs: MAX_INTERRUPT_EXPIRY_MS + 1 }),
        badReasonAgent(),
      ],
    });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await mock?.stop();
  });

  const post = (body: object, agent = APPROVALS_AGENT_ID) =>
    fetch(url(agent), { method: "POST", headers: { "Content-Type": "application/json", Accept: "text/event-stream" }, body: JSON.stringify(body) });
  const thread = async (threadId: string) =>
    (await (await fetch(`${server.url}/api/threads/${threadId}`)).json()) as { status: string; pendingInterrupts: { id: string }[]; messages: Message[] };
  const reload = async (threadId: string, agent = APPROVALS_AGENT_ID) => (await (await postSse(`${server.url}/api/agents/${agent}/connect`, { threadId })).done).map((f) => f.event as Ev);
  const toolResults = (messages: Message[]) => messages.filter((m) => m.role === "tool").map((m) => JSON.parse(m.content as string) as Record<string, unknown>);
  const llmToolMessages = (marker: string) =>
    mock
      .getRequests()
      .map((r) => r.body as ChatCompletionRequest)
      .filter((b) => b?.messages?.some((m) => m.role === "user" && JSON.stringify(m.content).includes(marker)))
      .at(-1)!
      .messages.filter((m) => m.role === "tool")
      .map((m) => String(m.content));

  it("the asking run ends STATE_SNAPSHOT, MESSAGES_SNAPSHOT, RUN_FINISHED{interrupt}, live and replayed, accepted by both clients", async () => {
    const threadId = `forms-snap-${randomUUID().slice(0, 8)}`;
    const live = await (await postSse(url(), { threadId, runId: `r-${randomUUID()}`, messages: [user(`email the team [${threadId}]`)] })).done;
    const tail = live.slice(-3).map((f) => f.event);
    expect(tail.map((e) => e.type)).toEqual(["STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]);
    const snapshot = tail[1] as unknown as { messages: Message[] };
    const [asked] = (tail[2] as unknown as { outcome: { interrupts: { toolCallId: string; reason: string }[] } }).outcome.interrupts;
    expect(asked!.reason).toBe("tool_call");
    expect(snapshot.messages.some((m) => m.role === "assistant" && m.toolCalls?.some((c) => c.id === asked!.toolCallId))).toBe(true);
    // A replay from the first frame's id: the same frames, ids included.
    const replay = await (await postSse(`${server.url}/api/agents/${APPROVALS_AGENT_ID}/connect`, { threadId, lastSeenEventId: live[0]!.id })).done;
    expect(replay.map((f) => [f.id, f.event])).toEqual(live.slice(1).map((f) => [f.id, f.event]));
    assertAcceptedByBoth(await checkWithBothClients(live.map((f) => `data: ${JSON.stringify(f.event)}\n\n`).join(""), { threadId }));
  });

  it.each(CLIENT_VERSIONS)("approve with valid edits: the edited arguments run, are kept, and the model reads them (@ag-ui/client %s)", async (version) => {
    const threadId = `forms-edit-${version}-${randomUUID().slice(0, 8)}`;
    const c = conversation(version, url(), threadId);
    const [asked] = finished(await c.run({ add: [user(`email the team [${threadId}]`)] }))!.outcome!.interrupts;
    const edited = { to: "alice@example.com", subject: "Status update", body: "All green, Alice." };
    const run2 = await c.run({ resume: [approve(asked!.id, { editedArgs: edited })] });
    expect(text(run2)).toBe("Done: the email is sent.");
    expect(sentIn(threadId)).toEqual([edited]);
    const kept = toolResults((await thread(threadId)).messages);
    expect(kept).toEqual([{ approval: "edited", arguments: edited, result: { sent: true, to: edited.to, subject: edited.subject } }]);
    const log = await server.store.read(threadId);
    expect(log.find((e) => e.type === "interrupt.resolved")?.data).toMatchObject({ payload: { approved: true, editedArgs: edited } });
    expect(llmToolMessages(threadId).join("")).toContain("alice@example.com");
  });

  it.each(CLIENT_VERSIONS)("approve with invalid edits: 400 with the reasons, nothing written, a valid answer still works (@ag-ui/client %s)", async (version) => {
    const threadId = `forms-bad-edit-${version}-${randomUUID().slice(0, 8)}`;
    const c = conversation(version, url(), threadId);
    const [asked] = finished(await c.run({ add: [user(`email the team [${threadId}]`)] }))!.outcome!.interrupts;
    const before = (await server.store.read(threadId)).length;
    const res = await post({ threadId, runId: `r-${randomUUID()}`, messages: [], resume: [approve(asked!.id, { editedArgs: { to: 42, subject: "x" } })] });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; issues: { path: string }[] } };
    expect(body.error.code).toBe("INVALID_RESUME");
    expect(body.error.issues.map((i) => i.path).sort()).toEqual(["resume.0.payload.editedArgs.body", "resume.0.payload.editedArgs.to"]);
    // The client gets the same refusal.
    await expect(c.run({ resume: [approve(asked!.id, { editedArgs: { to: 42 } })] })).rejects.toThrow(/400/);
    expect((await server.store.read(threadId)).length).toBe(before);
    expect(sentIn(threadId)).toEqual([]);
    await c.run({ resume: [approve(asked!.id)] });
    expect(sentIn(threadId)).toHaveLength(1);
  });

  it.each(CLIENT_VERSIONS)("expiry: a resume after expiresAt is 409 naming it, nothing written; the thread settles (@ag-ui/client %s)", async (version) => {
    const threadId = `forms-expiry-${version}-${randomUUID().slice(0, 8)}`;
    const runId = `r-${randomUUID()}`;
    const c = conversation(version, url(EXPIRING), threadId);
    const [asked] = finished(await c.run({ runId, add: [user(`email the team [${threadId}]`)] }))!.outcome!.interrupts;
    expect(asked!.expiresAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(Date.parse(asked!.expiresAt!)));
    const before = (await server.store.read(threadId)).length;
    const res = await post({ threadId, runId, messages: [], resume: [approve(asked!.id)] }, EXPIRING);
    expect(res.status).toBe(409);
    const body = (await res.json()) as { error: { code: string; message: string; expiresAt: string } };
    expect(body.error).toMatchObject({ code: "INTERRUPT_EXPIRED", expiresAt: asked!.expiresAt });
    expect(body.error.message).toContain(asked!.expiresAt!);
    expect((await server.store.read(threadId)).length).toBe(before);
    // Readers see it expired before any run records it: the thread view no longer lists it, and a
    // reload does not hand it to the client (the snapshot run ends without an outcome).
    expect((await thread(threadId)).pendingInterrupts).toEqual([]);
    const reloaded = await reload(threadId, EXPIRING);
    expect(finished(reloaded)!.outcome).toBeUndefined();

    // Settling: 1.0 lets an expired interrupt be cancelled; 0.0.59 refuses even that, so its app
    // reloads and moves on with a new message. Either way it is cancelled as expired, nothing sent.
    if (version === "1.0.0") {
      const run = await c.run({ runId, resume: [{ interruptId: asked!.id, status: "cancelled" }] });
      expect(text(run)).toBe("Understood: I did not send the email.");
    } else {
      await expect(c.run({ runId, resume: [{ interruptId: asked!.id, status: "cancelled" }] })).rejects.toThrow(/expired/);
      const fresh = conversation(version, url(EXPIRING), threadId);
      fresh.agent.messages.push(...(reloaded.find((e) => e.type === "MESSAGES_SNAPSHOT") as unknown as { messages: Message[] }).messages);
      await fresh.run({ add: [user(`what now? [${threadId}]`)] });
    }
    const log = await server.store.read(threadId);
    expect(log.find((e) => e.type === "interrupt.resolved")?.data).toMatchObject({ interruptId: asked!.id, status: "cancelled", via: "expired" });
    expect(sentIn(threadId)).toEqual([]);
    expect(await thread(threadId)).toMatchObject({ status: "WAITING", pendingInterrupts: [] });
    expect(toolResults((await thread(threadId)).messages)[0]).toMatchObject({ approval: "denied" });
  });

  it.each(CLIENT_VERSIONS)("parallel approvals: asked in one outcome, answered together (@ag-ui/client %s)", async (version) => {
    const threadId = `forms-par-${version}-${randomUUID().slice(0, 8)}`;
    const c = conversation(version, url(), threadId);
    const run1 = await c.run({ add: [user(`send two emails [${threadId}]`)] });
    expect(run1.filter((e) => e.type === "RUN_FINISHED")).toHaveLength(1);
    const asked = finished(run1)!.outcome!.interrupts;
    expect(asked).toHaveLength(2);
    expect(c.agent.pendingInterrupts?.map((i) => i.id)).toEqual(asked.map((i) => i.id));
    const run2 = await c.run({ resume: [approve(asked[0]!.id), { interruptId: asked[1]!.id, status: "resolved", payload: { approved: false, reason: "not the board" } }] });
    expect(finished(run2)!.outcome).toBeUndefined();
    expect(sentIn(threadId).map((e) => e.to)).toEqual(["team@example.com"]);
    expect(toolResults((await thread(threadId)).messages).map((r) => r.approval).sort()).toEqual(["approved", "denied"]);
  });

  it.each(CLIENT_VERSIONS)("parallel approvals answered one by one: the rest stay asked until answered (@ag-ui/client %s)", async (version) => {
    const threadId = `forms-par1-${version}-${randomUUID().slice(0, 8)}`;
    const runId = `r-${randomUUID()}`;
    const c = conversation(version, url(), threadId);
    const [first, second] = finished(await c.run({ runId, add: [user(`send two emails [${threadId}]`)] }))!.outcome!.interrupts;
    // The app answers the first now (the client checks only what it holds as pending).
    c.agent.pendingInterrupts = [first!];
    const run2 = await c.run({ runId, resume: [approve(first!.id)] });
    expect(finished(run2)!.outcome).toMatchObject({ type: "interrupt", interrupts: [{ id: second!.id }] });
    expect(sentIn(threadId)).toHaveLength(1);
    expect((await thread(threadId)).pendingInterrupts.map((i) => i.id)).toEqual([second!.id]);
    const run3 = await c.run({ runId, resume: [approve(second!.id)] });
    expect(text(run3)).toBe("Done: the email is sent.");
    expect(sentIn(threadId).map((e) => e.to)).toEqual(["team@example.com", "board@example.com"]);
    // Three admissions under one client runId, each under its own log id; a replay has all three.
    const accepted = (await server.store.read(threadId)).filter((e) => e.type === "run.accepted").map((e) => e.data.runId);
    expect(accepted).toEqual([runId, admissionRunId(runId, 2), admissionRunId(runId, 3)]);
    const replay = (await (await postSse(`${server.url}/api/agents/${APPROVALS_AGENT_ID}/connect`, { threadId, lastSeenEventId: "1" })).done).map((f) => f.event as Ev);
    const ends = replay.filter((e) => e.type === "RUN_FINISHED") as (Ev & { runId: string; outcome?: unknown })[];
    expect(ends.map((e) => e.runId)).toEqual([runId, runId, runId]);
    expect(ends.at(-1)!.outcome).toBeUndefined();
    expect(text(replay)).toContain("Done: the email is sent.");
  });

  it.each(CLIENT_VERSIONS)("a reload shows each decision, in both forms (@ag-ui/client %s)", async (version) => {
    // Form 1: the tool message of each call says what was decided.
    const t1 = `forms-reload-${version}-${randomUUID().slice(0, 8)}`;
    const c1 = conversation(version, url(), t1);
    const asked = finished(await c1.run({ add: [user(`send two emails [${t1}]`)] }))!.outcome!.interrupts;
    await c1.run({ resume: [approve(asked[0]!.id), { interruptId: asked[1]!.id, status: "resolved", payload: { approved: false, reason: "no" } }] });
    const frames1 = await reload(t1);
    const snap1 = (frames1.find((e) => e.type === "MESSAGES_SNAPSHOT") as unknown as { messages: Message[] }).messages;
    expect(toolResults(snap1).map((r) => r.approval).sort()).toEqual(["approved", "denied"]);
    assertAcceptedByBoth(await checkWithBothClients(frames1.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(""), { threadId: t1 }));
    // Form 2 (CopilotKit's HITL hook): the answered question and its answer stay in the snapshot.
    const t2 = `forms-reload-hitl-${version}-${randomUUID().slice(0, 8)}`;
    const c2 = conversation(version, url(), t2);
    const run = await c2.run({ tools: [INTERRUPT_TOOL], add: [user(`email the team [${t2}]`)] });
    const start = run.find((e) => e.type === "TOOL_CALL_START" && e.toolCallName === INTERRUPT_TOOL_NAME)!;
    await c2.run({ tools: [INTERRUPT_TOOL], add: [{ id: `t-${randomUUID()}`, role: "tool", toolCallId: start.toolCallId as string, content: JSON.stringify({ approved: true }) }] });
    const snap2 = ((await reload(t2)).find((e) => e.type === "MESSAGES_SNAPSHOT") as unknown as { messages: Message[] }).messages;
    const holder = snap2.find((m) => m.role === "assistant" && m.toolCalls?.some((x) => x.id === start.toolCallId));
    expect(holder).toBeDefined();
    const answer = snap2.find((m) => m.role === "tool" && m.toolCallId === start.toolCallId);
    expect(JSON.parse(answer!.content as string)).toEqual({ approved: true });
    // The next run re-sends the snapshot's question and answer (CopilotKit sends everything): accepted.
    const fresh = conversation(version, url(), t2);
    fresh.agent.messages.push(...snap2);
    const again = await fresh.run({ tools: [INTERRUPT_TOOL], add: [user(`thanks [${t2}]`)] });
    expect(again.some((e) => e.type === "RUN_FINISHED")).toBe(true);
  });

  it("ctx.interrupt(): its expiresAt goes out; after it, an answer is refused and a cancel settles the thread", async () => {
    const threadId = `forms-ask-expiry-${randomUUID().slice(0, 8)}`;
    const c = conversation("1.0.0", url(EXPIRING), threadId);
    const [asked] = finished(await c.run({ add: [user(`schedule a meeting [${threadId}]`)] }))!.outcome!.interrupts;
    expect(asked).toMatchObject({ reason: "threadline:choose_slot", expiresAt: expect.any(String) });
    await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(Date.parse(asked!.expiresAt!)));
    const before = (await server.store.read(threadId)).length;
    const res = await post({ threadId, runId: `r-${randomUUID()}`, messages: [], resume: [{ interruptId: asked!.id, status: "resolved", payload: { slot: "Monday 10:00" } }] }, EXPIRING);
    expect(res.status).toBe(409);
    expect((await server.store.read(threadId)).length).toBe(before);
    const run = await c.run({ resume: [{ interruptId: asked!.id, status: "cancelled" }] });
    expect(text(run)).toBe("No meeting was booked.");
    expect(await thread(threadId)).toMatchObject({ status: "WAITING", pendingInterrupts: [] });
  });

  it("expiry at its bound: 30 days is asked; past it the tool fails with the bound, and the model reads why", async () => {
    const t1 = `forms-bound-${randomUUID().slice(0, 8)}`;
    const [asked] = finished(await conversation("1.0.0", url(LONG_EXPIRY), t1).run({ add: [user(`email the team [${t1}]`)] }))!.outcome!.interrupts;
    const days = (Date.parse(asked!.expiresAt!) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.99);
    expect(days).toBeLessThanOrEqual(30);
    const t2 = `forms-bound-over-${randomUUID().slice(0, 8)}`;
    const run = await conversation("1.0.0", url(LONG_EXPIRY), t2).run({ add: [user(`schedule a meeting [${t2}]`)] });
    expect(finished(run)!.outcome).toBeUndefined();
    const result = run.find((e) => e.type === "TOOL_CALL_RESULT") as Ev & { content: string };
    expect(result.content).toContain("expiresInMs must be an integer from 1 to 2592000000");
  });

  it("ctx.interrupt() with a reason neither core nor namespaced fails the tool, saying which reasons are allowed", async () => {
    const threadId = `forms-reason-${randomUUID().slice(0, 8)}`;
    const run = await conversation("0.0.59", url(BAD_REASON), threadId).run({ add: [user(`schedule a meeting [${threadId}]`)] });
    expect(finished(run)!.outcome).toBeUndefined();
    const result = run.find((e) => e.type === "TOOL_CALL_RESULT") as Ev & { content: string };
    expect(result.content).toContain('reason \\"choose_slot\\" is neither an AG-UI core reason (tool_call, confirmation, input_required) nor namespaced');
    expect((await server.store.read(threadId)).some((e) => e.type === "interrupt.requested")).toBe(false);
  });

  it("HITL form after expiry: a reload shows the question cancelled as expired; sending that back is not an answer, the thread goes on", async () => {
    const threadId = `forms-hitl-expiry-${randomUUID().slice(0, 8)}`;
    const c = conversation("0.0.59", url(EXPIRING), threadId);
    const run = await c.run({ tools: [INTERRUPT_TOOL], add: [user(`email the team [${threadId}]`)] });
    const start = run.find((e) => e.type === "TOOL_CALL_START" && e.toolCallName === INTERRUPT_TOOL_NAME)!;
    const args = JSON.parse(run.filter((e) => e.type === "TOOL_CALL_ARGS" && e.toolCallId === start.toolCallId).map((e) => e.delta).join("")) as { expiresAt: string };
    await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(Date.parse(args.expiresAt)));
    // The hook answering late: refused, nothing written.
    const before = (await server.store.read(threadId)).length;
    const late = await post({ threadId, runId: `r-${randomUUID()}`, tools: [INTERRUPT_TOOL], messages: [...c.agent.messages, { id: `t-${randomUUID()}`, role: "tool", toolCallId: start.toolCallId, content: JSON.stringify({ approved: true }) }] }, EXPIRING);
    expect(late.status).toBe(409);
    expect((await server.store.read(threadId)).length).toBe(before);
    // The reloaded page: the question answered "expired"; its next run carries that back, and goes on.
    const snap = ((await reload(threadId, EXPIRING)).find((e) => e.type === "MESSAGES_SNAPSHOT") as unknown as { messages: Message[] }).messages;
    const shown = snap.find((m) => m.role === "tool" && m.toolCallId === start.toolCallId);
    expect(JSON.parse(shown!.content as string)).toEqual({ cancelled: true, reason: "expired" });
    const fresh = conversation("0.0.59", url(EXPIRING), threadId);
    fresh.agent.messages.push(...snap);
    await fresh.run({ tools: [INTERRUPT_TOOL], add: [user(`ok, what now? [${threadId}]`)] });
    const log = await server.store.read(threadId);
    expect(log.find((e) => e.type === "interrupt.resolved")?.data).toMatchObject({ status: "cancelled", via: "expired" });
    expect(sentIn(threadId)).toEqual([]);
  });

  it("HITL form: the hook's answer may carry editedArgs; valid ones run, invalid ones are a 400 naming the field", async () => {
    const threadId = `forms-hitl-edit-${randomUUID().slice(0, 8)}`;
    const c = conversation("0.0.59", url(), threadId);
    const run = await c.run({ tools: [INTERRUPT_TOOL], add: [user(`email the team [${threadId}]`)] });
    const start = run.find((e) => e.type === "TOOL_CALL_START" && e.toolCallName === INTERRUPT_TOOL_NAME)!;
    const answer = (content: object): Message => ({ id: `t-${randomUUID()}`, role: "tool", toolCallId: start.toolCallId as string, content: JSON.stringify(content) });
    const before = (await server.store.read(threadId)).length;
    const bad = await post({ threadId, runId: `r-${randomUUID()}`, tools: [INTERRUPT_TOOL], messages: [...c.agent.messages, answer({ approved: true, editedArgs: { to: "x", subject: "y" } })] });
    expect(bad.status).toBe(400);
    const issues = ((await bad.json()) as { error: { issues: { path: string }[] } }).error.issues.map((i) => i.path);
    expect(issues).toEqual([expect.stringMatching(/^messages\[id=t-.*\]\.content\.editedArgs\.body$/)]);
    expect((await server.store.read(threadId)).length).toBe(before);
    const edited = { to: "carol@example.com", subject: "Hi", body: "Edited in the card." };
    await c.run({ tools: [INTERRUPT_TOOL], add: [answer({ approved: true, editedArgs: edited })] });
    expect(sentIn(threadId)).toEqual([edited]);
  });
});
