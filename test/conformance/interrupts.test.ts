/**
 * Durable interrupts through the real clients (@ag-ui/client 1.0.0 and 0.0.59), one agent
 * instance per conversation so that the client's own pending-interrupt check is exercised:
 * - an approval (needsApproval) ends the run with RUN_FINISHED.outcome {type:"interrupt"}; the
 *   thread is WAITING and lists it; `resume` approved -> the tool runs once and the model answers;
 *   denied -> it does not run and the model reads the denial;
 * - the same for a client that offers the HITL tool (CopilotKit's form): a threadline_interrupt
 *   tool call and no outcome; its tool result is the answer;
 * - ctx.interrupt(): the tool gets the answer's payload;
 * - a resume that names no pending interrupt is a 4xx and writes nothing (log length);
 * - a new message instead of an answer supersedes the interrupt: the tool does not run.
 */
import { randomUUID } from "node:crypto";
import { LLMock, type ChatCompletionRequest } from "@copilotkit/aimock";
import type { AssistantMessage, Message, ResumeEntry } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INTERRUPT_TOOL, INTERRUPT_TOOL_NAME, interruptIdFor } from "../../protocol/interrupts.ts";
import { approvalsAgent, APPROVALS_AGENT_ID } from "../../server/agents/approvals-agent.ts";
import { approvalsFixtures, type SendEmailArgs } from "../../server/demo/approvals-fixtures.ts";
import { CLIENT_VERSIONS } from "../support/agui-clients.ts";
import { conversation, finished, text, type Ev } from "../support/interrupt-conversation.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
import { postSse } from "../support/sse-client.ts";

const user = (content: string): Message => ({ id: `u-${randomUUID()}`, role: "user", content });

describe.each(backends())("durable interrupts [%s]", (backend) => {
  let mock: LLMock;
  let server: TestServer;
  const sent: { email: SendEmailArgs; threadId: string }[] = [];
  const sentIn = (threadId: string) => sent.filter((s) => s.threadId === threadId).length;
  const url = () => `${server.url}/api/agents/${APPROVALS_AGENT_ID}/run`;

  beforeAll(async () => {
    mock = new LLMock({ port: 0, host: "127.0.0.1", chunkSize: 8, logLevel: "silent", journalMaxEntries: 0 });
    mock.addFixtures(approvalsFixtures());
    const llmUrl = `${(await mock.start()).replace(/\/$/, "")}/v1`;
    server = await startTestServer({
      backend,
      llmUrl,
      agents: [approvalsAgent({ onSend: (email, at) => void sent.push({ email, threadId: at.threadId }) })],
    });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await mock?.stop();
  });

  const thread = async (threadId: string) =>
    (await (await fetch(`${server.url}/api/threads/${threadId}`)).json()) as { status: string; pendingInterrupts: { id: string }[] };
  const llmRequestsFor = (marker: string) =>
    mock
      .getRequests()
      .map((r) => r.body as ChatCompletionRequest)
      .filter((b) => b?.messages?.some((m) => m.role === "user" && JSON.stringify(m.content).includes(marker)));

  it.each(CLIENT_VERSIONS)("approval: interrupt outcome, then resume approved runs the tool once (@ag-ui/client %s)", async (version) => {
    const threadId = `int-approve-${version}-${randomUUID().slice(0, 8)}`;
    const c = conversation(version, url(), threadId);
    const run1 = await c.run({ add: [user(`email the team [${threadId}]`)] });
    const outcome = finished(run1)!.outcome!;
    expect(outcome.type).toBe("interrupt");
    expect(outcome.interrupts).toHaveLength(1);
    const [interrupt] = outcome.interrupts;
    expect(interrupt).toMatchObject({ reason: "tool_call", metadata: { kind: "approval", toolName: "send_email" } });
    expect(interrupt!.id).toBe(interruptIdFor(interrupt!.toolCallId));
    expect(c.agent.pendingInterrupts?.map((i) => i.id)).toEqual([interrupt!.id]);
    expect(run1.some((e) => e.type === "TOOL_CALL_RESULT")).toBe(false);
    expect(sentIn(threadId)).toBe(0);
    expect(await thread(threadId)).toMatchObject({ status: "WAITING", pendingInterrupts: [{ id: interrupt!.id }] });

    // The client itself refuses a run that ignores the interrupt.
    await expect(c.run({ add: [user("something else")] })).rejects.toThrow(/pending interrupt/);
    c.agent.messages.pop();

    const run2 = await c.run({ resume: [{ interruptId: interrupt!.id, status: "resolved", payload: { approved: true } }] });
    expect(finished(run2)!.outcome).toBeUndefined();
    expect(run2.filter((e) => e.type === "TOOL_CALL_RESULT")).toHaveLength(1);
    expect(text(run2)).toBe("Done: the email is sent.");
    expect(sentIn(threadId)).toBe(1);
    expect(await thread(threadId)).toMatchObject({ status: "WAITING", pendingInterrupts: [] });
    const log = await server.store.read(threadId);
    expect(log.filter((e) => e.type === "interrupt.requested")).toHaveLength(1);
    expect(log.find((e) => e.type === "interrupt.resolved")?.data).toMatchObject({ status: "resolved", via: "resume" });
  });

  it.each(CLIENT_VERSIONS)("a reload shows the pending interrupt in the form its client got it, and the answer still works (@ag-ui/client %s)", async (version) => {
    const reload = async (threadId: string) => (await (await postSse(`${server.url}/api/agents/${APPROVALS_AGENT_ID}/connect`, { threadId })).done).map((f) => f.event as Ev);
    // Form 1: the snapshot run ends with the interrupt outcome.
    const t1 = `int-reload-${version}-${randomUUID().slice(0, 8)}`;
    const c1 = conversation(version, url(), t1);
    const [asked] = finished(await c1.run({ add: [user(`email the team [${t1}]`)] }))!.outcome!.interrupts;
    const frames1 = await reload(t1);
    expect(finished(frames1)!.outcome).toMatchObject({ type: "interrupt", interrupts: [{ id: asked!.id, toolCallId: asked!.toolCallId }] });
    // A fresh client (the reloaded page) takes the snapshot, holds the interrupt, and answers it.
    const fresh = conversation(version, url(), t1);
    fresh.agent.messages.push(...((frames1.find((e) => e.type === "MESSAGES_SNAPSHOT") as unknown as { messages: Message[] }).messages));
    const run2 = await fresh.run({ resume: [{ interruptId: asked!.id, status: "resolved", payload: { approved: true } }] });
    expect(text(run2)).toBe("Done: the email is sent.");
    expect(sentIn(t1)).toBe(1);
    // Form 2: the snapshot carries the threadline_interrupt call, unanswered, on its message.
    const t2 = `int-reload-hitl-${version}-${randomUUID().slice(0, 8)}`;
    const c2 = conversation(version, url(), t2);
    const run = await c2.run({ tools: [INTERRUPT_TOOL], add: [user(`email the team [${t2}]`)] });
    const start = run.find((e) => e.type === "TOOL_CALL_START" && e.toolCallName === INTERRUPT_TOOL_NAME)!;
    const frames2 = await reload(t2);
    expect(finished(frames2)!.outcome).toBeUndefined();
    const snapshot = (frames2.find((e) => e.type === "MESSAGES_SNAPSHOT") as unknown as { messages: Message[] }).messages;
    const holder = snapshot.find((m): m is AssistantMessage => m.role === "assistant" && (m.toolCalls ?? []).some((c) => c.id === start.toolCallId));
    expect(holder?.id).toBe(start.parentMessageId);
    expect(holder!.toolCalls!.find((c) => c.id === start.toolCallId)!.function.name).toBe(INTERRUPT_TOOL_NAME);
    expect(snapshot.some((m) => m.role === "tool" && m.toolCallId === start.toolCallId)).toBe(false);
  });

  it.each(CLIENT_VERSIONS)("approval denied: the tool does not run and the model is told (@ag-ui/client %s)", async (version) => {
    const threadId = `int-deny-${version}-${randomUUID().slice(0, 8)}`;
    const c = conversation(version, url(), threadId);
    const [interrupt] = finished(await c.run({ add: [user(`email the team [${threadId}]`)] }))!.outcome!.interrupts;
    const run2 = await c.run({ resume: [{ interruptId: interrupt!.id, status: "resolved", payload: { approved: false, reason: "not today" } }] });
    expect(text(run2)).toBe("Understood: I did not send the email.");
    expect(sentIn(threadId)).toBe(0);
    const last = llmRequestsFor(threadId).at(-1)!;
    const toolMessage = last.messages.find((m) => m.role === "tool");
    expect(JSON.stringify(toolMessage?.content)).toContain("not today");
  });

  it.each(CLIENT_VERSIONS)("HITL tool form: a threadline_interrupt call, answered by its tool result (@ag-ui/client %s)", async (version) => {
    const threadId = `int-hitl-${version}-${randomUUID().slice(0, 8)}`;
    const c = conversation(version, url(), threadId);
    const run1 = await c.run({ tools: [INTERRUPT_TOOL], add: [user(`email the team [${threadId}]`)] });
    expect(finished(run1)!.outcome).toBeUndefined();
    const start = run1.find((e) => e.type === "TOOL_CALL_START" && e.toolCallName === INTERRUPT_TOOL_NAME)!;
    expect(start).toBeDefined();
    const args = JSON.parse(run1.filter((e) => e.type === "TOOL_CALL_ARGS" && e.toolCallId === start.toolCallId).map((e) => e.delta).join(""));
    expect(args).toMatchObject({ interruptId: start.toolCallId, kind: "approval", toolName: "send_email", payload: { to: "team@example.com" } });
    // The model never sees the interrupt tool.
    expect(llmRequestsFor(threadId).every((r) => !(r.tools ?? []).some((t) => t.function.name === INTERRUPT_TOOL_NAME))).toBe(true);

    // What useHumanInTheLoop's respond() sends: a tool message for that call, in a new run.
    const answer: Message = { id: `t-${randomUUID()}`, role: "tool", toolCallId: start.toolCallId as string, content: JSON.stringify({ approved: true }) };
    const run2 = await c.run({ tools: [INTERRUPT_TOOL], add: [answer] });
    expect(text(run2)).toBe("Done: the email is sent.");
    expect(sentIn(threadId)).toBe(1);
    const log = await server.store.read(threadId);
    expect(log.find((e) => e.type === "interrupt.resolved")?.data).toMatchObject({ status: "resolved", via: "tool_result" });
    // The answer is not a message of the conversation (the model never saw that call).
    expect(log.some((e) => e.type === "message.appended" && (e.data.message as Message).id === answer.id)).toBe(false);

    // The next run re-sends the old answer (CopilotKit sends everything): dropped, not refused.
    const run3 = await c.run({ tools: [INTERRUPT_TOOL], add: [user(`email the team again [${threadId}]`)] });
    expect(run3.some((e) => e.type === "TOOL_CALL_START" && e.toolCallName === INTERRUPT_TOOL_NAME)).toBe(true);
  });

  it("ctx.interrupt(): the tool gets the answer's payload", async () => {
    const threadId = `int-input-${randomUUID().slice(0, 8)}`;
    const c = conversation("1.0.0", url(), threadId);
    const [interrupt] = finished(await c.run({ add: [user(`schedule a meeting [${threadId}]`)] }))!.outcome!.interrupts;
    expect(interrupt).toMatchObject({ reason: "threadline:choose_slot", metadata: { kind: "input", toolName: "schedule_meeting" } });
    const run2 = await c.run({ resume: [{ interruptId: interrupt!.id, status: "resolved", payload: { slot: "Tuesday 14:00" } }] });
    expect(text(run2)).toBe("Booked for Tuesday 14:00.");
  });

  it("a resume that names no pending interrupt is a 4xx and writes nothing", async () => {
    const threadId = `int-4xx-${randomUUID().slice(0, 8)}`;
    const c = conversation("1.0.0", url(), threadId);
    const [interrupt] = finished(await c.run({ add: [user(`email the team [${threadId}]`)] }))!.outcome!.interrupts;
    const post = (resume: ResumeEntry[], tid = threadId) =>
      fetch(url(), {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
        body: JSON.stringify({ threadId: tid, runId: `r-${randomUUID()}`, messages: [], resume }),
      });
    const before = (await server.store.read(threadId)).length;

    const unknown = await post([{ interruptId: "interrupt-nope", status: "resolved", payload: { approved: true } }]);
    expect(unknown.status).toBe(404);
    const unknownBody = (await unknown.json()) as { error: { code: string; message: string; pendingInterruptIds: string[] } };
    expect(unknownBody.error).toMatchObject({ code: "INTERRUPT_NOT_FOUND", pendingInterruptIds: [interrupt!.id] });
    expect(unknownBody.error.message).toMatch(/new message without "resume"/);

    const malformed = await post([{ interruptId: interrupt!.id, status: "resolved", payload: { yes: 1 } }]);
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { code: string } }).error.code).toBe("INVALID_RESUME");
    expect((await server.store.read(threadId)).length).toBe(before);

    await c.run({ resume: [{ interruptId: interrupt!.id, status: "resolved", payload: { approved: true } }] });
    const afterAnswer = (await server.store.read(threadId)).length;
    const again = await post([{ interruptId: interrupt!.id, status: "resolved", payload: { approved: true } }]);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("INTERRUPT_ALREADY_RESOLVED");
    expect((await server.store.read(threadId)).length).toBe(afterAnswer);
    expect(sentIn(threadId)).toBe(1);

    const fresh = `int-4xx-new-${randomUUID().slice(0, 8)}`;
    const none = await post([{ interruptId: "interrupt-x", status: "cancelled" }], fresh);
    expect(none.status).toBe(404);
    expect(await server.store.read(fresh)).toEqual([]);
  });

  it("a new message instead of an answer supersedes the interrupt: the tool does not run", async () => {
    const threadId = `int-super-${randomUUID().slice(0, 8)}`;
    const c = conversation("0.0.59", url(), threadId);
    const [interrupt] = finished(await c.run({ add: [user(`email the team [${threadId}]`)] }))!.outcome!.interrupts;
    // A plain HTTP client (or one that dropped its pending interrupts) sends a new message.
    c.agent.pendingInterrupts = [];
    const run2 = await c.run({ add: [user(`never mind, schedule a meeting [${threadId}]`)] });
    expect(finished(run2)!.outcome?.interrupts[0]).toMatchObject({ reason: "threadline:choose_slot" });
    expect(sentIn(threadId)).toBe(0);
    const log = await server.store.read(threadId);
    expect(log.find((e) => e.type === "interrupt.resolved")?.data).toMatchObject({
      interruptId: interrupt!.id,
      status: "cancelled",
      via: "superseded",
    });
    const denial = log.find((e) => e.type === "message.appended" && (e.data.message as Message).role === "tool");
    expect(JSON.stringify(denial?.data)).toContain("superseded");
    // The model saw the email call answered (not dangling) before the new message.
    const last = llmRequestsFor("never mind").at(-1)!;
    expect(last.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
  });
});
