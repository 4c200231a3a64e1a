/**
 * CopilotKit's own client core (@copilotkit/core 1.74), headless, against /api/copilotkit: what
 * `useInterrupt`'s resolve() does, step by step as react-core 1.74 does it. It records the runId
 * of the run whose RUN_FINISHED had the interrupt outcome (onRunFinishedEvent's input.runId),
 * and answers with `copilotkit.runAgent({ agent, resume, runId })` under that runId. Before the
 * same-run resume was admitted, this answered RUN_ERROR "already has a run" and the thread stayed
 * WAITING.
 */
import { randomUUID } from "node:crypto";
import { CopilotKitCore, ProxiedCopilotRuntimeAgent } from "@copilotkit/core";
import { LLMock } from "@copilotkit/aimock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { admissionRunId } from "../../protocol/run-ids.ts";
import { approvalsAgent, APPROVALS_AGENT_ID } from "../../server/agents/approvals-agent.ts";
import { approvalsFixtures } from "../../server/demo/approvals-fixtures.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";

interface Finished {
  runId: string;
  outcome: string;
  interrupts: { id: string; reason: string }[];
}

describe.each(backends())("CopilotKit core's useInterrupt resolve through /api/copilotkit [%s]", (backend) => {
  let mock: LLMock;
  let server: TestServer;
  const sent: { threadId: string; to: string }[] = [];

  beforeAll(async () => {
    mock = new LLMock({ port: 0, host: "127.0.0.1", chunkSize: 8, logLevel: "silent", journalMaxEntries: 0 });
    mock.addFixtures(approvalsFixtures());
    const llmUrl = `${(await mock.start()).replace(/\/$/, "")}/v1`;
    server = await startTestServer({ backend, llmUrl, agents: [approvalsAgent({ onSend: (e, at) => void sent.push({ threadId: at.threadId, to: e.to }) })] });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await mock?.stop();
  });

  const EDITED = { to: "carol@example.com", subject: "Hi", body: "Edited in the card." };
  it.each([
    ["approved", { approved: true }],
    ["approved with edits", { approved: true, editedArgs: EDITED }],
  ] as const)("%s: the interrupt is answered under the interrupted run's id, the email goes once, the thread settles", async (label, payload) => {
    const threadId = `ck-core-${randomUUID().slice(0, 8)}`;
    const core = new CopilotKitCore({ runtimeUrl: `${server.url}/api/copilotkit` });
    // Outside a browser the core never fetches /info (its runtime connection needs `window`), so
    // the agent it would build from /info is built here the same way: CopilotKit's proxy agent on
    // the multi-route runtime, run through the core as useInterrupt runs it.
    const agent = new ProxiedCopilotRuntimeAgent({ runtimeUrl: `${server.url}/api/copilotkit`, agentId: APPROVALS_AGENT_ID, transport: "rest" });
    agent.threadId = threadId;
    const finishes: Finished[] = [];
    const types: string[] = [];
    agent.subscribe({
      onEvent: ({ event }: { event: { type: string } }) => void types.push(event.type),
      onRunFinishedEvent: (p: { input: { runId: string }; outcome?: string; interrupts?: Finished["interrupts"] }) => {
        finishes.push({ runId: p.input.runId, outcome: p.outcome ?? "success", interrupts: p.interrupts ?? [] });
      },
    } as never);
    agent.addMessage({ id: `u-${randomUUID()}`, role: "user", content: `email the team [${threadId}]` });
    await core.runAgent({ agent });
    const asked = finishes.at(-1)!;
    expect(asked.outcome).toBe("interrupt");
    expect(asked.interrupts[0]!.reason).toBe("tool_call");
    // AG-UI 1.0: the interrupt outcome comes after a STATE_SNAPSHOT and a MESSAGES_SNAPSHOT.
    expect(types.slice(-3)).toEqual(["STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]);

    // resolve(): the resume under the runId recorded for that interrupt.
    await core.runAgent({ agent, runId: asked.runId, resume: [{ interruptId: asked.interrupts[0]!.id, status: "resolved", payload }] });
    const answered = finishes.at(-1)!;
    expect(answered).toMatchObject({ runId: asked.runId, outcome: "success" });
    const mine = sent.filter((s) => s.threadId === threadId);
    expect(mine).toHaveLength(1);
    if (label === "approved with edits") expect(mine[0]!.to).toBe(EDITED.to);
    else expect(mine[0]!.to).not.toBe(EDITED.to);
    const accepted = (await server.store.read(threadId)).filter((e) => e.type === "run.accepted").map((e) => e.data.runId);
    expect(accepted).toEqual([asked.runId, admissionRunId(asked.runId, 2)]);
    const thread = (await (await fetch(`${server.url}/api/threads/${threadId}`)).json()) as { status: string; pendingInterrupts: unknown[] };
    expect(thread).toMatchObject({ status: "WAITING", pendingInterrupts: [] });
    const text = agent.messages.filter((m) => m.role === "assistant").map((m) => m.content).join("");
    expect(text).toContain("Done: the email is sent.");
  });
});
