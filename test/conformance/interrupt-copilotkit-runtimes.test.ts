/**
 * useInterrupt's resolve (approved, and approved with edits) through an application's OWN
 * CopilotKit runtime in front of Threadline:
 * the app runs @copilotkit/runtime 1.75 (v2: createCopilotRuntimeHandler, multi-route; v1: the
 * older copilotRuntimeNodeHttpEndpoint, single-route) with an AG-UI HttpAgent aimed at
 * Threadline's /api/agents/approvals/run, over real HTTP. The browser side is CopilotKit core 1.74
 * driven as react-core's useInterrupt drives it (interrupt-copilotkit-core.test.ts): the interrupt
 * is answered with runAgent({ agent, resume, runId }) under the interrupted run's own runId. The
 * app's HttpAgent is each @ag-ui/client an app may have (1.0.0 declares protocolVersion 1.0,
 * 0.0.59 declares nothing), so Threadline answers both forms through the runtime. (The app and
 * the page: test/support/copilotkit-clients.ts; every flow: copilotkit-matrix.test.ts.)
 */
import { randomUUID } from "node:crypto";
import { LLMock } from "@copilotkit/aimock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { admissionRunId } from "../../protocol/run-ids.ts";
import { approvalsAgent, APPROVALS_AGENT_ID } from "../../server/agents/approvals-agent.ts";
import { approvalsFixtures } from "../../server/demo/approvals-fixtures.ts";
import { CLIENT_VERSIONS } from "../support/agui-clients.ts";
import { APP_RUNTIMES, type AppRuntime, ckSession, startAppRuntime } from "../support/copilotkit-clients.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";

describe.each(backends())("useInterrupt's resolve through an app's own CopilotKit runtime in front of Threadline [%s]", (backend) => {
  let mock: LLMock;
  let threadline: TestServer;
  const sent: { threadId: string; to: string }[] = [];
  const apps: AppRuntime[] = [];

  beforeAll(async () => {
    mock = new LLMock({ port: 0, host: "127.0.0.1", chunkSize: 8, logLevel: "silent", journalMaxEntries: 0 });
    mock.addFixtures(approvalsFixtures());
    const llmUrl = `${(await mock.start()).replace(/\/$/, "")}/v1`;
    threadline = await startTestServer({ backend, llmUrl, agents: [approvalsAgent({ onSend: (e, at) => void sent.push({ threadId: at.threadId, to: e.to }) })] });
  }, 120_000);
  afterAll(async () => {
    for (const app of apps) await app.close();
    await threadline?.close();
    await mock?.stop();
  });

  // An approval as it is, and approved with edits: the edited address is the one the email goes to.
  const EDITED = { to: "carol@example.com", subject: "Hi", body: "Edited in the card." };
  const answers = [
    ["approved", { approved: true }],
    ["approved with edits", { approved: true, editedArgs: EDITED }],
  ] as const;
  const cases = APP_RUNTIMES.flatMap((kind) => CLIENT_VERSIONS.flatMap((version) => answers.map(([label, payload]) => [kind, version, label, payload] as const)));

  it.each(cases)("runtime %s, app's HttpAgent from @ag-ui/client %s, %s: the resume is accepted, the email goes once, the thread settles", async (kind, version, label, payload) => {
    const app = await startAppRuntime(kind, version, threadline.url, [APPROVALS_AGENT_ID]);
    apps.push(app);
    const threadId = `ck-${kind}-${version.replaceAll(".", "")}-${randomUUID().slice(0, 8)}`;
    const page = ckSession("1.74", app, APPROVALS_AGENT_ID, threadId);
    await page.say(`email the team [${threadId}]`);
    expect(page.runErrors).toEqual([]);
    const asked = page.finishes.at(-1)!;
    expect(asked).toMatchObject({ outcome: "interrupt" });
    expect(asked.interrupts[0]!.reason).toBe("tool_call");
    // AG-UI 1.0: the interrupt outcome comes after a STATE_SNAPSHOT and a MESSAGES_SNAPSHOT.
    expect(page.events.slice(-3).map((e) => e.type)).toEqual(["STATE_SNAPSHOT", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]);

    // resolve(): the resume under the runId recorded for that interrupt.
    await page.run({ runId: asked.runId, resume: [{ interruptId: asked.interrupts[0]!.id, status: "resolved", payload }] });
    expect(page.runErrors).toEqual([]);
    expect(page.finishes.at(-1)).toMatchObject({ runId: asked.runId, outcome: "success" });
    const mine = sent.filter((s) => s.threadId === threadId);
    expect(mine).toHaveLength(1);
    if (label === "approved with edits") expect(mine[0]!.to).toBe(EDITED.to);
    else expect(mine[0]!.to).not.toBe(EDITED.to);
    // Threadline admitted the answer as the interrupted run's next admission, nothing else.
    const accepted = (await threadline.store.read(threadId)).filter((e) => e.type === "run.accepted").map((e) => e.data.runId);
    expect(accepted).toEqual([asked.runId, admissionRunId(asked.runId, 2)]);
    const thread = (await (await fetch(`${threadline.url}/api/threads/${threadId}`)).json()) as { status: string; pendingInterrupts: unknown[] };
    expect(thread).toMatchObject({ status: "WAITING", pendingInterrupts: [] });
    expect(page.reply()).toContain("Done: the email is sent.");
  });
});
