/**
 * An answer must fit the question: a resolved answer is checked against the responseSchema of the
 * interrupt it answers, at admission, through /api/agents/:id/run and /api/copilotkit, with the
 * real clients (@ag-ui/client 1.0.0 and 0.0.59), on both backends. At the bound of the approvals
 * agent's schedule_meeting (a picked time's label, MEETING_LABEL_MAX_CHARS):
 * - a label one past it is refused before anything is written: 400 INVALID_RESUME naming the
 *   interrupt and the field with what was expected (through /api/copilotkit, one RUN_ERROR with
 *   that code and a message saying the same); the thread still waits for that interrupt;
 * - a label at it is admitted and books once;
 * - a cancel is not checked (it carries no answer), and the HITL tool's answer (form 2) is checked
 *   the same way; a responseSchema that cannot be checked fails the tool before it asks.
 */
import { randomUUID } from "node:crypto";
import { LLMock } from "@copilotkit/aimock";
import type { Message } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INTERRUPT_TOOL, INTERRUPT_TOOL_NAME } from "../../protocol/interrupts.ts";
import { approvalsAgent, APPROVALS_AGENT_ID } from "../../server/agents/approvals-agent.ts";
import { defineAgent, defineTool } from "../../server/agents/define.ts";
import { APPROVAL_TOOLS, approvalsFixtures, MEETING_LABEL_MAX_CHARS, MEETING_SLOTS, ScheduleMeetingArgsSchema } from "../../server/demo/approvals-fixtures.ts";
import { CLIENT_VERSIONS } from "../support/agui-clients.ts";
import { conversation, finished, text, type Ev } from "../support/interrupt-conversation.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
import { postSse } from "../support/sse-client.ts";

const UNCHECKABLE = "approvals-uncheckable-schema";

/** The approvals agent's tools under their names (the demo fixtures answer them), asking with a schema zod cannot convert. */
function uncheckableAgent() {
  const { tools } = approvalsAgent();
  const meeting = defineTool({
    name: APPROVAL_TOOLS.scheduleMeeting,
    description: "Books a meeting.",
    inputSchema: ScheduleMeetingArgsSchema,
    execute: async (_args, ctx) => ctx.interrupt({ reason: "myapp:choose_slot", responseSchema: { $ref: "#/definitions/missing" } }),
  });
  return defineAgent({ id: UNCHECKABLE, instructions: "test", tools: [tools[0]!, meeting] });
}

const user = (content: string): Message => ({ id: `u-${randomUUID()}`, role: "user", content });
const TIME = "2026-03-02T09:30:00.000Z";
/** A label of `n` characters, as a page of its own might show the time it offered. */
const label = (n: number) => `Mon 9:30 ${"·".repeat(n - 9)}`;

describe.each(backends())("an answer is checked against its interrupt's responseSchema [%s]", (backend) => {
  let mock: LLMock;
  let server: TestServer;
  const doors = {
    api: () => `${server.url}/api/agents/${APPROVALS_AGENT_ID}/run`,
    copilotkit: () => `${server.url}/api/copilotkit/agent/${APPROVALS_AGENT_ID}/run`,
  };

  beforeAll(async () => {
    mock = new LLMock({ port: 0, host: "127.0.0.1", chunkSize: 8, logLevel: "silent", journalMaxEntries: 0 });
    mock.addFixtures(approvalsFixtures());
    const llmUrl = `${(await mock.start()).replace(/\/$/, "")}/v1`;
    server = await startTestServer({ backend, llmUrl, agents: [approvalsAgent(), uncheckableAgent()] });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await mock?.stop();
  });

  const thread = async (threadId: string) => (await (await fetch(`${server.url}/api/threads/${threadId}`)).json()) as { status: string; pendingInterrupts: { id: string }[] };
  /** The results schedule_meeting's call finished with, from the whole log: one per time it finished. */
  const meetingResults = async (threadId: string) =>
    (await server.store.read(threadId)).flatMap((e) => {
      if (e.type !== "message.appended") return [];
      const m = e.data.message as { role: string; content?: unknown };
      return m.role === "tool" ? [JSON.parse(String(m.content)) as Record<string, unknown>] : [];
    });

  describe.each(["api", "copilotkit"] as const)("through %s", (door) => {
    it.each(CLIENT_VERSIONS)("one character past the bound is refused naming the interrupt and the field, nothing written; at the bound it books once (@ag-ui/client %s)", async (version) => {
      expect(label(MEETING_LABEL_MAX_CHARS)).toHaveLength(MEETING_LABEL_MAX_CHARS);
      const threadId = `answer-bound-${door}-${version}-${randomUUID().slice(0, 8)}`;
      const runId = `r-${randomUUID()}`;
      const c = conversation(version, doors[door](), threadId);
      const [asked] = finished(await c.run({ runId, add: [user(`schedule a meeting [${threadId}]`)] }))!.outcome!.interrupts;
      const resumeWith = (n: number) => [{ interruptId: asked!.id, status: "resolved" as const, payload: { chosen_time: TIME, chosen_label: label(n) } }];
      const before = await server.store.read(threadId);

      const why = `resume.0.payload.chosen_label: must NOT have more than ${MEETING_LABEL_MAX_CHARS} characters`;
      // The client's own run is refused, and says why: through the run route the client throws
      // the 400; through the CopilotKit runtime the refusal is the run's one event, a RUN_ERROR.
      const refused = c.run({ runId, resume: resumeWith(MEETING_LABEL_MAX_CHARS + 1) });
      if (door === "api") await expect(refused).rejects.toThrow(new RegExp(`400.*${asked!.id}.*chosen_label`, "s"));
      else expect(await refused).toEqual([expect.objectContaining({ type: "RUN_ERROR", code: "INVALID_RESUME", message: expect.stringMatching(new RegExp(`${asked!.id}.*${why}`)) })]);
      // What the door answers, as a plain request.
      const body = { threadId, runId, messages: c.agent.messages, tools: [], context: [], state: {}, forwardedProps: {}, resume: resumeWith(MEETING_LABEL_MAX_CHARS + 1) };
      if (door === "api") {
        const res = await fetch(doors.api(), { method: "POST", headers: { "Content-Type": "application/json", Accept: "text/event-stream" }, body: JSON.stringify(body) });
        expect(res.status).toBe(400);
        const { error } = (await res.json()) as { error: { code: string; interruptId: string; message: string; issues: { path: string; message: string }[] } };
        expect(error).toMatchObject({ code: "INVALID_RESUME", interruptId: asked!.id });
        expect(error.issues).toEqual([{ path: "resume.0.payload.chosen_label", message: `must NOT have more than ${MEETING_LABEL_MAX_CHARS} characters` }]);
        expect(error.message).toContain(asked!.id);
        expect(error.message).toContain(why);
      } else {
        const frames = (await (await postSse(doors.copilotkit(), body)).done).map((f) => f.event as Ev);
        expect(frames.map((e) => e.type)).toEqual(["RUN_ERROR"]);
        expect(frames[0]).toMatchObject({ code: "INVALID_RESUME" });
        expect(frames[0]!.message).toEqual(expect.stringContaining(asked!.id));
        expect(frames[0]!.message).toEqual(expect.stringContaining(why));
      }
      expect(await server.store.read(threadId)).toEqual(before);
      expect(await thread(threadId)).toMatchObject({ status: "WAITING", pendingInterrupts: [{ id: asked!.id }] });

      // At the bound: admitted under the asking run's id, booked once.
      c.agent.pendingInterrupts = [asked!];
      const run = await c.run({ runId, resume: resumeWith(MEETING_LABEL_MAX_CHARS) });
      expect(finished(run)).toMatchObject({ runId });
      expect(text(run)).toBe(`Booked for ${label(MEETING_LABEL_MAX_CHARS)}.`);
      expect(await meetingResults(threadId)).toEqual([{ booked: true, title: "Launch sync", slot: label(MEETING_LABEL_MAX_CHARS), at: TIME }]);
      expect(await thread(threadId)).toMatchObject({ pendingInterrupts: [] });
    });
  });

  it("a payload that matches none of the accepted shapes lists what each one missed", async () => {
    const threadId = `answer-shapes-${randomUUID().slice(0, 8)}`;
    const c = conversation("1.0.0", doors.api(), threadId);
    const [asked] = finished(await c.run({ add: [user(`schedule a meeting [${threadId}]`)] }))!.outcome!.interrupts;
    const before = (await server.store.read(threadId)).length;
    const res = await fetch(doors.api(), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ threadId, runId: `r-${randomUUID()}`, messages: [], resume: [{ interruptId: asked!.id, status: "resolved", payload: { time: "monday" } }] }),
    });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { issues: { path: string; message: string }[] } };
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]!.path).toBe("resume.0.payload");
    for (const missed of ["(1) slot: is required", "(2) chosen_time: is required", "(3) cancelled: is required", "time: is not a field this schema takes"]) {
      expect(error.issues[0]!.message).toContain(missed);
    }
    expect((await server.store.read(threadId)).length).toBe(before);
  });

  it.each(CLIENT_VERSIONS)("a cancel is not checked: status cancelled is admitted and books nothing (@ag-ui/client %s)", async (version) => {
    const threadId = `answer-cancel-${version}-${randomUUID().slice(0, 8)}`;
    const c = conversation(version, doors.api(), threadId);
    const [asked] = finished(await c.run({ add: [user(`schedule a meeting [${threadId}]`)] }))!.outcome!.interrupts;
    const run = await c.run({ resume: [{ interruptId: asked!.id, status: "cancelled" }] });
    expect(text(run)).toBe("No meeting was booked.");
    expect((await meetingResults(threadId)).map((r) => r.booked)).toEqual([undefined]);
  });

  it("the HITL tool's answer (form 2) is checked the same way: 400 naming its message, nothing written; a fitting one books", async () => {
    const threadId = `answer-hitl-${randomUUID().slice(0, 8)}`;
    const c = conversation("0.0.59", doors.api(), threadId);
    const run = await c.run({ tools: [INTERRUPT_TOOL], add: [user(`schedule a meeting [${threadId}]`)] });
    const start = run.find((e) => e.type === "TOOL_CALL_START" && e.toolCallName === INTERRUPT_TOOL_NAME)!;
    const answer = (content: object): Message => ({ id: `t-${randomUUID()}`, role: "tool", toolCallId: start.toolCallId as string, content: JSON.stringify(content) });
    const before = (await server.store.read(threadId)).length;
    const bad = answer({ slot: "Sunday 23:00" });
    const res = await fetch(doors.api(), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ threadId, runId: `r-${randomUUID()}`, tools: [INTERRUPT_TOOL], messages: [...c.agent.messages, bad] }),
    });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { code: string; interruptId: string; issues: { path: string; message: string }[] } };
    expect(error).toMatchObject({ code: "INVALID_RESUME", interruptId: start.toolCallId });
    // It has one of the question's shapes ({slot}) with a value that shape does not take: the reason names that field.
    expect(error.issues).toEqual([{ path: `messages[id=${bad.id}].content.slot`, message: `must be one of ${MEETING_SLOTS.map((x) => JSON.stringify(x)).join(", ")}` }]);
    expect((await server.store.read(threadId)).length).toBe(before);
    const booked = await c.run({ tools: [INTERRUPT_TOOL], add: [answer({ slot: MEETING_SLOTS[2] })] });
    expect(text(booked)).toBe(`Booked for ${MEETING_SLOTS[2]}.`);
  });

  it("ctx.interrupt() with a responseSchema no answer can be checked against fails the tool before it asks", async () => {
    const threadId = `answer-uncheckable-${randomUUID().slice(0, 8)}`;
    const run = await conversation("1.0.0", `${server.url}/api/agents/${UNCHECKABLE}/run`, threadId).run({ add: [user(`schedule a meeting [${threadId}]`)] });
    expect(finished(run)!.outcome).toBeUndefined();
    const result = run.find((e) => e.type === "TOOL_CALL_RESULT") as Ev & { content: string };
    expect(result.content).toContain("responseSchema is not a JSON Schema this server can check answers against");
    expect((await server.store.read(threadId)).some((e) => e.type === "interrupt.requested")).toBe(false);
  });
});
