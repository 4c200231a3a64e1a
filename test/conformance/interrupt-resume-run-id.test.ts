/**
 * A resume under the interrupted run's own runId, as CopilotKit's useInterrupt sends it
 * (@copilotkit/react-core: resolve() builds the resume with buildResumeArray and runs the agent
 * with the runId of the run that ended with the interrupt outcome). Checked with the real
 * clients (@ag-ui/client 1.0.0 and 0.0.59) through /api/agents/:id/run and through
 * /api/copilotkit (CopilotKit's runtime on this server's runner):
 * - the resume is admitted; its frames open and end under the client's runId; the tool runs once;
 * - the log keeps both admissions apart (the second under its admission id), and a replay of the
 *   thread is accepted by both clients, with the same conversation as the live runs;
 * - every other reuse stays 409 RUN_ID_REUSED and writes nothing: a run without resume, a resume
 *   under an earlier finished run's id, a second resume under the same id once answered, and a
 *   resume under an id that names a finished run of this thread while another run asked.
 */
import { randomUUID } from "node:crypto";
import { LLMock } from "@copilotkit/aimock";
import type { Message, ResumeEntry } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMISSION_SEPARATOR } from "../../protocol/run-ids.ts";
import { approvalsAgent, APPROVALS_AGENT_ID } from "../../server/agents/approvals-agent.ts";
import { approvalsFixtures } from "../../server/demo/approvals-fixtures.ts";
import { assertAcceptedByBoth, checkWithBothClients, CLIENT_VERSIONS } from "../support/agui-clients.ts";
import { conversation, finished, text, type Ev } from "../support/interrupt-conversation.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
import { postSse } from "../support/sse-client.ts";

const user = (content: string): Message => ({ id: `u-${randomUUID()}`, role: "user", content });

describe.each(backends())("resume under the interrupted run's own runId [%s]", (backend) => {
  let mock: LLMock;
  let server: TestServer;
  const sent: string[] = [];
  const sentIn = (threadId: string) => sent.filter((t) => t === threadId).length;
  const doors = {
    api: () => `${server.url}/api/agents/${APPROVALS_AGENT_ID}/run`,
    copilotkit: () => `${server.url}/api/copilotkit/agent/${APPROVALS_AGENT_ID}/run`,
  };

  beforeAll(async () => {
    mock = new LLMock({ port: 0, host: "127.0.0.1", chunkSize: 8, logLevel: "silent", journalMaxEntries: 0 });
    mock.addFixtures(approvalsFixtures());
    const llmUrl = `${(await mock.start()).replace(/\/$/, "")}/v1`;
    server = await startTestServer({ backend, llmUrl, agents: [approvalsAgent({ onSend: (_e, at) => void sent.push(at.threadId) })] });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await mock?.stop();
  });

  const post = (body: object) =>
    fetch(doors.api(), { method: "POST", headers: { "Content-Type": "application/json", Accept: "text/event-stream" }, body: JSON.stringify(body) });
  const approve = (id: string): ResumeEntry[] => [{ interruptId: id, status: "resolved", payload: { approved: true } }];

  describe.each(["api", "copilotkit"] as const)("through %s", (door) => {
    it.each(CLIENT_VERSIONS)("the resume is admitted, its frames name the client's runId, the tool runs once (@ag-ui/client %s)", async (version) => {
      const threadId = `same-run-${door}-${version}-${randomUUID().slice(0, 8)}`;
      const runId = `r-${randomUUID()}`;
      const c = conversation(version, doors[door](), threadId);
      const run1 = await c.run({ runId, add: [user(`email the team [${threadId}]`)] });
      const [asked] = finished(run1)!.outcome!.interrupts;
      expect(finished(run1)!.runId).toBe(runId);

      const run2 = await c.run({ runId, resume: approve(asked!.id) });
      expect(run2[0]).toMatchObject({ type: "RUN_STARTED", runId });
      expect(finished(run2)).toMatchObject({ runId });
      expect(finished(run2)!.outcome).toBeUndefined();
      expect(text(run2)).toBe("Done: the email is sent.");
      expect(sentIn(threadId)).toBe(1);
      expect(c.agent.pendingInterrupts ?? []).toEqual([]);

      // The log: two admissions, the second under its own id, both naming the client's run.
      const log = await server.store.read(threadId);
      const accepted = log.filter((e) => e.type === "run.accepted").map((e) => e.data.runId);
      expect(accepted).toEqual([runId, `${runId}${ADMISSION_SEPARATOR}2`]);
      expect(log.find((e) => e.type === "interrupt.resolved")?.data).toMatchObject({ runId: accepted[1], status: "resolved" });

      // A replay of the thread is accepted by both clients and ends where the live runs ended.
      const replay = (await (await postSse(`${server.url}/api/agents/${APPROVALS_AGENT_ID}/connect`, { threadId })).done).map((f) => f.event as Ev);
      const starts = replay.filter((e) => e.type === "RUN_STARTED").map((e) => e.runId);
      expect(starts.every((id) => id === runId)).toBe(true);
      const body = replay.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");
      const outcomes = await checkWithBothClients(body, { threadId });
      assertAcceptedByBoth(outcomes);
      for (const v of CLIENT_VERSIONS) expect(outcomes[v].messages.map((m) => m.id)).toEqual(c.agent.messages.map((m) => m.id));
    });
  });

  it("every other reuse of a runId is 409 RUN_ID_REUSED and writes nothing", async () => {
    const threadId = `same-run-refused-${randomUUID().slice(0, 8)}`;
    const c = conversation("1.0.0", doors.api(), threadId);
    const first = `r-${randomUUID()}`;
    await c.run({ runId: first, add: [user(`hello [${threadId}]`)] }); // a finished run, no interrupt
    const asking = `r-${randomUUID()}`;
    const [asked] = finished(await c.run({ runId: asking, add: [user(`email the team [${threadId}]`)] }))!.outcome!.interrupts;
    const before = (await server.store.read(threadId)).length;
    const expect409 = async (body: object) => {
      const res = await post({ threadId, messages: [], ...body });
      expect(res.status).toBe(409);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("RUN_ID_REUSED");
      expect((await server.store.read(threadId)).length).toBe(before);
    };
    // Without resume, under the asking run's id.
    await expect409({ runId: asking, messages: [user("again")] });
    // A resume under an earlier, unrelated run's id.
    await expect409({ runId: first, resume: approve(asked!.id) });
    expect(sentIn(threadId)).toBe(0);

    // Another thread whose run of that id finished without asking: not its interrupted run.
    const other = `same-run-other-${randomUUID().slice(0, 8)}`;
    const o = conversation("1.0.0", doors.api(), other);
    await o.run({ runId: asking, add: [user(`hello [${other}]`)] });
    const [otherAsked] = finished(await o.run({ add: [user(`email the team [${other}]`)] }))!.outcome!.interrupts;
    const otherBefore = (await server.store.read(other)).length;
    const res = await post({ threadId: other, runId: asking, messages: [], resume: approve(otherAsked!.id) });
    expect(res.status).toBe(409);
    expect((await server.store.read(other)).length).toBe(otherBefore);

    // Answered once under its own id; a second resume under it is refused.
    await c.run({ runId: asking, resume: approve(asked!.id) });
    expect(sentIn(threadId)).toBe(1);
    const answered = (await server.store.read(threadId)).length;
    const again = await post({ threadId, runId: asking, messages: [], resume: approve(asked!.id) });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("RUN_ID_REUSED");
    expect((await server.store.read(threadId)).length).toBe(answered);
    expect(sentIn(threadId)).toBe(1);
  });

  it("through /api/copilotkit a refused reuse is one RUN_ERROR RUN_ID_REUSED and writes nothing", async () => {
    const threadId = `same-run-ck-refused-${randomUUID().slice(0, 8)}`;
    const c = conversation("0.0.59", doors.copilotkit(), threadId);
    const first = `r-${randomUUID()}`;
    await c.run({ runId: first, add: [user(`hello [${threadId}]`)] });
    const [asked] = finished(await c.run({ add: [user(`email the team [${threadId}]`)] }))!.outcome!.interrupts;
    const before = (await server.store.read(threadId)).length;
    const frames = await (await postSse(doors.copilotkit(), { threadId, runId: first, messages: [], tools: [], context: [], state: {}, forwardedProps: {}, resume: approve(asked!.id) })).done;
    expect(frames.map((f) => f.event.type)).toEqual(["RUN_ERROR"]);
    expect(frames[0]!.event).toMatchObject({ code: "RUN_ID_REUSED" });
    expect((await server.store.read(threadId)).length).toBe(before);
  });
});
