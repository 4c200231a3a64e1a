/**
 * CopilotKit's own client core (@copilotkit/core 1.74), headless, against /api/copilotkit: what
 * `useInterrupt`'s resolve() does, step by step as react-core 1.74 does it. It records the runId
 * of the run whose RUN_FINISHED had the interrupt outcome (onRunFinishedEvent's input.runId),
 * and answers with `copilotkit.runAgent({ agent, resume, runId })` under that runId, after adding
 * the tool message core's own InterruptState builds for a tool_call interrupt (its `toolResults`:
 * the answer's JSON as the call's result). Before the same-run resume was admitted, this answered
 * RUN_ERROR "already has a run" and the thread stayed WAITING; before that tool message was taken
 * for the client's copy of the answer, it became the call's result and the email never went.
 * (The page's steps: ckSession and its `answer`, test/support/copilotkit-clients.ts; every door
 * and both cores: copilotkit-matrix.test.ts.)
 */
import { randomUUID } from "node:crypto";
import { LLMock } from "@copilotkit/aimock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { admissionRunId } from "../../protocol/run-ids.ts";
import { approvalsAgent, APPROVALS_AGENT_ID } from "../../server/agents/approvals-agent.ts";
import { approvalsFixtures } from "../../server/demo/approvals-fixtures.ts";
import { ckSession, threadlineDoor } from "../support/copilotkit-clients.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";

describe.each(backends())("CopilotKit core's useInterrupt resolve through /api/copilotkit [%s]", (backend) => {
  let mock: LLMock;
  let server: TestServer;
  const sent: { threadId: string; email: unknown }[] = [];

  beforeAll(async () => {
    mock = new LLMock({ port: 0, host: "127.0.0.1", chunkSize: 8, logLevel: "silent", journalMaxEntries: 0 });
    mock.addFixtures(approvalsFixtures());
    const llmUrl = `${(await mock.start()).replace(/\/$/, "")}/v1`;
    server = await startTestServer({ backend, llmUrl, agents: [approvalsAgent({ onSend: (email, at) => void sent.push({ threadId: at.threadId, email }) })] });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await mock?.stop();
  });

  /** A thread asking for send_email's approval, through CopilotKit core as the page runs it. */
  async function asked(tag: string) {
    const threadId = `ck-core-${tag}-${randomUUID().slice(0, 8)}`;
    const page = ckSession("1.74", threadlineDoor(server.url), APPROVALS_AGENT_ID, threadId);
    await page.say(`email the team [${threadId}]`);
    const ask = page.finishes.at(-1)!;
    expect(ask.outcome).toBe("interrupt");
    expect(ask.interrupts[0]!.reason).toBe("tool_call");
    // AG-UI 1.0: the interrupt outcome comes after a STATE_SNAPSHOT and a MESSAGES_SNAPSHOT.
    expect(page.events.slice(-3).map((e) => e.type)).toEqual(["STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]);
    /** resolve(payload): what the hook does, with core's own InterruptState deciding the resume and the tool message. */
    const resolve = async (payload: unknown) => {
      const toolCallId = ask.interrupts[0]!.toolCallId;
      expect(await page.answer([{ id: ask.interrupts[0]!.id, payload }])).toEqual(["resume"]);
      // The hook's copy of the answer went with the resume, as the call's tool message.
      expect(page.agent.messages.some((m) => m.role === "tool" && m.toolCallId === toolCallId)).toBe(true);
      return page.finishes.at(-1)!;
    };
    const thread = async () =>
      (await (await fetch(`${server.url}/api/threads/${threadId}`)).json()) as {
        status: string;
        pendingInterrupts: unknown[];
        messages: { role: string; toolCallId?: string; content?: string }[];
      };
    return { threadId, ask, resolve, reply: page.reply, thread };
  }

  it("the interrupt is answered under the interrupted run's id, the email goes once, the thread settles", async () => {
    const { threadId, ask, resolve, reply, thread } = await asked("ok");
    const answered = await resolve({ approved: true });
    expect(answered).toMatchObject({ runId: ask.runId, outcome: "success" });
    expect(sent.filter((s) => s.threadId === threadId)).toHaveLength(1);
    const accepted = (await server.store.read(threadId)).filter((e) => e.type === "run.accepted").map((e) => e.data.runId);
    expect(accepted).toEqual([ask.runId, admissionRunId(ask.runId, 2)]);
    const after = await thread();
    expect(after).toMatchObject({ status: "WAITING", pendingInterrupts: [] });
    // The call's one result is the tool's own, with the decision; the hook's copy is not kept.
    const results = after.messages.filter((m) => m.role === "tool" && m.toolCallId === ask.interrupts[0]!.toolCallId);
    expect(results.map((m) => JSON.parse(m.content!))).toEqual([{ approval: "approved", result: { sent: true, to: "team@example.com", subject: "Status update" } }]);
    expect(reply()).toContain("Done: the email is sent.");
  });

  it("approve with edits: the edited email is what goes", async () => {
    const { threadId, resolve, reply } = await asked("edit");
    const edited = { to: "ceo@example.com", subject: "Status update (edited)", body: "All green this week." };
    expect(await resolve({ approved: true, editedArgs: edited })).toMatchObject({ outcome: "success" });
    expect(sent.filter((s) => s.threadId === threadId).map((s) => s.email)).toEqual([edited]);
    expect(reply()).toContain("Done: the email is sent.");
  });

  it("deny: nothing goes, and the model is told", async () => {
    const { threadId, resolve, reply } = await asked("deny");
    expect(await resolve({ approved: false, reason: "not now" })).toMatchObject({ outcome: "success" });
    expect(sent.filter((s) => s.threadId === threadId)).toHaveLength(0);
    expect(reply()).toContain("Understood: I did not send the email.");
  });
});

describe.each(backends())("a tool message for a backend call that waits [%s]", (backend) => {
  let mock: LLMock;
  let server: TestServer;

  beforeAll(async () => {
    mock = new LLMock({ port: 0, host: "127.0.0.1", chunkSize: 8, logLevel: "silent", journalMaxEntries: 0 });
    mock.addFixtures(approvalsFixtures());
    const llmUrl = `${(await mock.start()).replace(/\/$/, "")}/v1`;
    server = await startTestServer({ backend, llmUrl, agents: [approvalsAgent()] });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await mock?.stop();
  });

  it("is refused (400 naming the call and its interrupt) without the resume that answers it, and nothing is written", async () => {
    const threadId = `ck-tool-msg-${randomUUID().slice(0, 8)}`;
    const run = (body: object) =>
      fetch(`${server.url}/api/agents/${APPROVALS_AGENT_ID}/run`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ threadId, state: {}, tools: [], context: [], forwardedProps: {}, ...body }),
      });
    await (await run({ runId: `r-${randomUUID()}`, messages: [{ id: `u-${randomUUID()}`, role: "user", content: "email the team" }] })).text();
    const before = await server.store.read(threadId);
    const request = before.find((e) => e.type === "interrupt.requested")!.data as { toolCallId: string; interruptId: string };
    const res = await run({ runId: `r-${randomUUID()}`, messages: [{ id: `t-${randomUUID()}`, role: "tool", toolCallId: request.toolCallId, content: '{"approved":true}' }] });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("INVALID_RESUME");
    expect(body.error.message).toContain(request.toolCallId);
    expect(body.error.message).toContain(request.interruptId);
    expect(await server.store.read(threadId)).toHaveLength(before.length);
  });
});
