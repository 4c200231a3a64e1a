/**
 * Interrupts survive the process: on Postgres, server A ends a run WAITING for an approval
 * (send_email, needsApproval) and is killed with SIGKILL; server B (a fresh process on the same
 * schema, i.e. a restart or another instance) takes the resume and the email is sent exactly
 * once, counted in a file the child appends to (appendFileSync: a line written before a SIGKILL
 * is there). Answering again, on either server, is refused and sends nothing.
 */
import { LLMock } from "@copilotkit/aimock";
import { HttpAgent } from "@ag-ui/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SPAWN_READY_BOUND_MS } from "../support/server-process.ts";
import { APPROVALS_AGENT_ID } from "../../server/agents/approvals-agent.ts";
import { approvalsFixtures } from "../../server/demo/approvals-fixtures.ts";
import { DATABASE_URL, noticeSkip, startCluster, type Cluster } from "../support/multiprocess-kit.ts";

noticeSkip("multiprocess-interrupts");

describe.skipIf(!DATABASE_URL)("an approval across a SIGKILL, on one Postgres schema", () => {
  let cluster: Cluster;
  let mock: LLMock;
  let llmUrl: string;

  beforeAll(async () => {
    mock = new LLMock({ port: 0, host: "127.0.0.1", chunkSize: 8, logLevel: "silent", journalMaxEntries: 0 });
    mock.addFixtures(approvalsFixtures());
    llmUrl = `${(await mock.start()).replace(/\/$/, "")}/v1`;
    cluster = await startCluster();
  }, 60_000);
  afterAll(async () => {
    await cluster?.close();
    await mock?.stop();
  });

  it("interrupt on A, SIGKILL A, resume on B: the approved tool runs exactly once", async () => {
    const env = { OPENAI_BASE_URL: llmUrl, CHILD_AGENTS: "default,approvals" };
    const a = await cluster.spawn("A", env);
    const threadId = `mp-approval-${Date.now()}`;
    const agent = new HttpAgent({ url: `${a.url}/api/agents/${APPROVALS_AGENT_ID}/run`, threadId });
    agent.messages.push({ id: "u1", role: "user", content: "email the team" });
    const outcomes: unknown[] = [];
    await agent.runAgent({}, { onRunFinishedEvent: ({ event }) => void outcomes.push(event.outcome) });
    const [interrupt] = agent.pendingInterrupts;
    expect(interrupt?.metadata).toMatchObject({ kind: "approval", toolName: "send_email" });
    const sent = () => cluster.toolRuns().filter((l) => l.phase === "sent");
    expect(sent()).toHaveLength(0);

    await a.kill("SIGKILL");
    const b = await cluster.spawn("B", env);
    const status = (await (await fetch(`${b.url}/api/threads/${threadId}`)).json()) as { status: string; pendingInterrupts: { id: string }[] };
    expect(status).toMatchObject({ status: "WAITING", pendingInterrupts: [{ id: interrupt!.id }] });

    agent.url = `${b.url}/api/agents/${APPROVALS_AGENT_ID}/run`;
    const text: string[] = [];
    await agent.runAgent(
      { resume: [{ interruptId: interrupt!.id, status: "resolved", payload: { approved: true } }] },
      { onTextMessageContentEvent: ({ event }) => void text.push(event.delta) },
    );
    expect(text.join("")).toBe("Done: the email is sent.");
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({ instance: "B", toolCallId: interrupt!.toolCallId });

    // A second answer (a retried request, a second tab) is refused and sends nothing.
    const again = await fetch(`${b.url}/api/agents/${APPROVALS_AGENT_ID}/run`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ threadId, runId: "again", messages: [], resume: [{ interruptId: interrupt!.id, status: "resolved", payload: { approved: true } }] }),
    });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("INTERRUPT_ALREADY_RESOLVED");
    expect(sent()).toHaveLength(1);
  }, 2 * SPAWN_READY_BOUND_MS + 60_000);
});
