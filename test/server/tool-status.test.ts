/**
 * Tool call status through the thread API, on both backends, with the built-in demo model: an
 * email waiting for approval says awaiting_approval (and the same after another read, as a reload
 * does); a plan cancelled at its first step says cancelled, and its saved state marks the steps
 * it did not complete "cancelled" instead of leaving step 1 running for good.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approvalsAgent } from "../../server/agents/approvals-agent.ts";
import { defaultAgent } from "../../server/agents/default-agent.ts";
import { untilEvent } from "../durability/support/threads.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
import { postSse } from "../support/sse-client.ts";

interface View {
  status: string;
  state: { plan?: { steps: { description: string; status: string }[] } };
  toolCalls: Record<string, { name: string; status: string; reason?: string }>;
}

describe.each(backends())("tool call status on %s", (backend) => {
  let server: TestServer;
  const view = async (threadId: string) => (await (await fetch(`${server.url}/api/threads/${threadId}`)).json()) as View;
  const run = (agent: string, threadId: string, text: string) =>
    postSse(`${server.url}/api/agents/${agent}/run`, { threadId, runId: `${threadId}-r1`, messages: [{ id: `${threadId}-u1`, role: "user", content: text }] });

  beforeAll(async () => {
    // Plan steps slow enough that a cancel lands in step 1; no llmUrl: the demo model answers.
    server = await startTestServer({ backend, agents: [defaultAgent({ planStepDelayMs: 60_000 }), approvalsAgent()] });
  });
  afterAll(() => server.close());

  it("send_email waiting for approval is awaiting_approval, not complete", async () => {
    await (await run("approvals", "ts-email", "Email the team a status update")).done;
    const v = await view("ts-email");
    expect(v.status).toBe("WAITING");
    expect(Object.values(v.toolCalls)).toEqual([{ name: "send_email", status: "awaiting_approval" }]);
    expect((await view("ts-email")).toolCalls).toEqual(v.toolCalls); // read again: the same
  });

  it("a plan cancelled at step 1: the call is cancelled and the saved state says which steps were", async () => {
    const stream = await run("default", "ts-plan", "Make a plan to launch the website");
    await untilEvent(server.store, "ts-plan", (e) => e.type === "state.patched" && JSON.stringify(e.data).includes('"running"'));
    expect((await view("ts-plan")).toolCalls).toMatchObject({ [Object.keys((await view("ts-plan")).toolCalls)[0]!]: { status: "running" } });
    const res = await fetch(`${server.url}/api/threads/ts-plan/cancel`, { method: "POST" });
    expect(await res.json()).toMatchObject({ cancelled: true, status: "CANCELLED" });
    await stream.done;

    const v = await view("ts-plan");
    expect(v.status).toBe("CANCELLED");
    expect(Object.values(v.toolCalls)).toEqual([{ name: "run_plan", status: "cancelled", reason: "run_cancelled" }]);
    const steps = v.state.plan?.steps ?? [];
    expect(steps.length).toBeGreaterThan(1);
    expect(steps.map((s) => s.status)).toEqual(steps.map(() => "cancelled"));
    // The patch is in the log before the run's end, so the checkpoint and every replay have it.
    const events = await server.store.read("ts-plan");
    const patch = events.findLastIndex((e) => e.type === "state.patched");
    expect(events.findIndex((e) => e.type === "workflow.cancelled")).toBeGreaterThan(patch);
  });
});
