/**
 * Input checked where it enters: each refusal is a 400 with the reasons (each naming its field),
 * and the thread's log, read through GET /api/threads/:id/events, is the same afterwards. Through
 * raw HTTP and the real clients (@ag-ui/client 1.0.0, and 0.0.59 with its own `binary` parts):
 * - an interrupt's answer against the responseSchema it was asked with: an approval's answer with
 *   a key that schema forbids (additionalProperties: false) is refused, not stored;
 * - an approval's edits against the tool's arguments schema: a key the tool does not take is
 *   refused, not dropped;
 * - media parts: base64 that does not decode, an image whose mimeType is not an image type, or
 *   whose bytes are another type's, an image type the model path does not read, and URLs that are
 *   not https: or data: (file:, javascript:, http:).
 * What fits still goes through: a PNG, an https: URL, a data: URL, a fitting answer.
 */
import { randomUUID } from "node:crypto";
import type { Fixture } from "@copilotkit/aimock";
import type { Message } from "@ag-ui/core";
import request from "supertest";
import { expect, it } from "vitest";
import { approvalsAgent, APPROVALS_AGENT_ID } from "../../server/agents/approvals-agent.ts";
import { approvalsFixtures } from "../../server/demo/approvals-fixtures.ts";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import { conversation, finished, type WireInterrupt } from "../support/interrupt-conversation.ts";
import { postSse } from "../support/sse-client.ts";
import { expectAccepted } from "./support/expect.ts";
import { conformanceSuite, local, newThreadId, type LocalKit } from "./support/kit.ts";

const MARK = "[entry]";
const fixtures = [{ match: { userMessage: MARK }, response: { content: "Seen." } }, ...approvalsFixtures()] as Fixture[];

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]).toString("base64");
const HTML = Buffer.from("<html><script>alert(1)</script></html>").toString("base64");

const image = (source: Record<string, unknown>) => ({ type: "image", source });
/** Each refused part, with the field and what the reason must say. */
const BAD_PARTS: [string, Record<string, unknown>, string, RegExp][] = [
  ["base64 that does not decode", image({ type: "data", value: "not base64!", mimeType: "image/png" }), "source.value", /is not base64/],
  ["base64 cut mid-byte", image({ type: "data", value: PNG.slice(0, 5), mimeType: "image/png" }), "source.value", /whole bytes/],
  ["an image typed text/html", image({ type: "data", value: PNG, mimeType: "text/html" }), "source.mimeType", /"text\/html" is not an image type/],
  ["HTML bytes said to be a PNG", image({ type: "data", value: HTML, mimeType: "image/png" }), "source.value", /does not hold PNG bytes/],
  ["JPEG bytes said to be a PNG", image({ type: "data", value: JPEG, mimeType: "image/png" }), "source.value", /holds JPEG bytes.*send it as "image\/jpeg"/],
  ["a file: URL", image({ type: "url", value: "file:///etc/passwd", mimeType: "image/png" }), "source.value", /scheme file:/],
  ["a javascript: URL", image({ type: "url", value: "javascript:alert(1)" }), "source.value", /scheme javascript:/],
  ["an http: URL", image({ type: "url", value: "http://example.com/cat.png" }), "source.value", /scheme http:.*send an https: URL/],
  ["a data: URL that is not base64", image({ type: "url", value: "data:image/png,%89PNG" }), "source.value", /not base64/],
  ["a data: URL with HTML inside", image({ type: "url", value: `data:text/html;base64,${HTML}` }), "source.value", /"text\/html" is not an image type/],
];

conformanceSuite("checked where it enters", { fixtures, agents: () => [approvalsAgent()] }, (target) => {
  /** The thread's log as the events route serves it. */
  const events = async (kit: LocalKit, threadId: string) => {
    const res = await request(kit.server.url).get(`/api/threads/${threadId}/events`);
    expect(res.status).toBe(200);
    return res.body.events as unknown[];
  };
  const user = (content: Message["content"]): Message => ({ id: `u-${randomUUID()}`, role: "user", content } as Message);
  const post = (kit: LocalKit, agentId: string, body: object) => request(kit.server.url).post(`/api/agents/${agentId}/run`).send({ tools: [], context: [], state: {}, forwardedProps: {}, ...body });

  /** A thread with one exchange, so that "nothing written" is a log that did not grow. */
  async function started(kit: LocalKit, label: string) {
    const threadId = newThreadId(label);
    const first = user(`${MARK} hello`);
    expect((await post(kit, "default", { threadId, runId: randomUUID(), messages: [first] })).status).toBe(200);
    // The history as the thread has it (question and answer): what a client sends next.
    const history = (await kit.thread(threadId)).messages;
    expect(history.map((m) => m.role)).toEqual(["user", "assistant"]);
    return { threadId, history, log: await events(kit, threadId) };
  }

  it.each(BAD_PARTS)("media, raw HTTP: %s is a 400 naming the field, nothing written", async (_label, part, field, reason) => {
    const kit = local(target());
    const { threadId, history, log } = await started(kit, "media-raw");
    const res = await post(kit, "default", { threadId, runId: randomUUID(), messages: [...history, user([{ type: "text", text: `${MARK} look` }, part] as never)] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("INVALID_RUN_INPUT");
    expect(res.body.error.issues).toEqual([{ path: `messages.2.content.1.${field}`, message: expect.stringMatching(reason) }]);
    expect(await events(kit, threadId)).toEqual(log);
  });

  it("media: an image type the model path does not read (SVG) is a 400 naming the model, nothing written", async () => {
    const kit = local(target());
    const { threadId, history, log } = await started(kit, "media-svg");
    const svg = image({ type: "data", value: Buffer.from("<svg/>").toString("base64"), mimeType: "image/svg+xml" });
    const res = await post(kit, "default", { threadId, runId: randomUUID(), messages: [...history, user([svg] as never)] });
    expect(res.status).toBe(400);
    expect(res.body.error.issues).toEqual([{ path: "messages.2.content.0", message: expect.stringMatching(/takes image only as PNG, JPEG, GIF, WebP.*"image\/svg\+xml"/) }]);
    expect(await events(kit, threadId)).toEqual(log);
  });

  it.each(CLIENT_VERSIONS)("media through the client: a file: URL (1.0 part) or HTML bytes sent as a PNG (0.0.59's binary part) is refused, nothing written; a PNG, an https: URL and a data: URL go through (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const { threadId, history, log } = await started(kit, `media-client-${version}`);
    const bad = version === "1.0.0" ? image({ type: "url", value: "file:///etc/passwd", mimeType: "image/png" }) : { type: "binary", mimeType: "image/png", data: HTML };
    const refused = await runClient(version, { url: t.runUrl(), input: { threadId, messages: [...history, user([{ type: "text", text: `${MARK} look` }, bad] as never)] } });
    expect(refused.failed).toBe(true);
    expect(refused.error?.message).toMatch(/400/);
    expect(refused.events).toEqual([]);
    expect(await events(kit, threadId)).toEqual(log);

    const good =
      version === "1.0.0"
        ? [image({ type: "data", value: PNG, mimeType: "image/png" }), image({ type: "url", value: "https://example.com/cat.png" }), image({ type: "url", value: `data:image/png;base64,${PNG}` })]
        : [{ type: "binary", mimeType: "image/png", data: PNG, filename: "dot.png" }, { type: "binary", mimeType: "image/jpeg", url: "https://example.com/cat.jpg" }];
    const ok = await runClient(version, { url: t.runUrl(), input: { threadId, messages: [...history, user([{ type: "text", text: `${MARK} look` }, ...good] as never)] } });
    expectAccepted(ok);
    expect((await events(kit, threadId)).length).toBeGreaterThan(log.length);
  });

  /** An approval asked by the approvals agent (send_email), through `version`'s client. */
  async function asked(version: (typeof CLIENT_VERSIONS)[number], label: string) {
    const t = target();
    const kit = local(t);
    const threadId = newThreadId(`${label}-${version}`);
    const c = conversation(version, t.runUrl(APPROVALS_AGENT_ID), threadId);
    const runId = `r-${randomUUID()}`;
    const [interrupt] = finished(await c.run({ runId, add: [user("email the team")] }))!.outcome!.interrupts as WireInterrupt[];
    expect(interrupt!.responseSchema).toMatchObject({ additionalProperties: false });
    return { kit, c, threadId, runId, interrupt: interrupt!, log: await events(kit, threadId) };
  }
  const resolved = (interruptId: string, payload: unknown) => [{ interruptId, status: "resolved" as const, payload }];

  it.each(CLIENT_VERSIONS)("an approval's answer with a key its responseSchema forbids is a 400 naming the key, nothing written, raw and through the client; the fitting answer then runs (@ag-ui/client %s)", async (version) => {
    const { kit, c, threadId, runId, interrupt, log } = await asked(version, "extra-key");
    const payload = { approved: true, approvedBy: "mallory" };
    const raw = await post(kit, APPROVALS_AGENT_ID, { threadId, runId, messages: c.agent.messages, resume: resolved(interrupt.id, payload) });
    expect(raw.status).toBe(400);
    expect(raw.body.error).toMatchObject({ code: "INVALID_RESUME", interruptId: interrupt.id });
    expect(raw.body.error.issues).toEqual([{ path: "resume.0.payload.approvedBy", message: "is not a field this schema takes" }]);
    expect(raw.body.error.message).toContain("resume.0.payload.approvedBy");
    await expect(c.run({ runId, resume: resolved(interrupt.id, payload) })).rejects.toThrow(/400.*approvedBy/s);
    // Through Threadline's CopilotKit runtime: the one RUN_ERROR, with the reason.
    const viaRuntime = await (await postSse(`${kit.server.url}/api/copilotkit/agent/${APPROVALS_AGENT_ID}/run`, { threadId, runId, messages: c.agent.messages, tools: [], context: [], state: {}, forwardedProps: {}, resume: resolved(interrupt.id, payload) })).done;
    expect(viaRuntime.map((f) => f.event)).toEqual([expect.objectContaining({ type: "RUN_ERROR", code: "INVALID_RESUME", message: expect.stringContaining("approvedBy") })]);
    expect(await events(kit, threadId)).toEqual(log);

    c.agent.pendingInterrupts = [interrupt];
    const run = await c.run({ runId, resume: resolved(interrupt.id, { approved: true }) });
    expect(finished(run)).toMatchObject({ runId });
    const stored = (await kit.log(threadId)).filter((e) => e.type === "interrupt.resolved").map((e) => e.data as { payload?: unknown });
    expect(stored).toEqual([expect.objectContaining({ payload: { approved: true } })]);
  });

  it.each(CLIENT_VERSIONS)("edits with a key the tool does not take are a 400 naming it, nothing written; known keys run (@ag-ui/client %s)", async (version) => {
    const { kit, c, threadId, runId, interrupt, log } = await asked(version, "edit-key");
    const edits = { to: "carol@example.com", subject: "Status", body: "Hi.", bcc: "mallory@example.com" };
    const raw = await post(kit, APPROVALS_AGENT_ID, { threadId, runId, messages: c.agent.messages, resume: resolved(interrupt.id, { approved: true, editedArgs: edits }) });
    expect(raw.status).toBe(400);
    expect(raw.body.error).toMatchObject({ code: "INVALID_RESUME", interruptId: interrupt.id });
    expect(raw.body.error.issues).toEqual([{ path: "resume.0.payload.editedArgs.bcc", message: "is not a field this schema takes" }]);
    await expect(c.run({ runId, resume: resolved(interrupt.id, { approved: true, editedArgs: edits }) })).rejects.toThrow(/400.*editedArgs\.bcc/s);
    expect(await events(kit, threadId)).toEqual(log);

    const { bcc: _, ...known } = edits;
    c.agent.pendingInterrupts = [interrupt];
    await c.run({ runId, resume: resolved(interrupt.id, { approved: true, editedArgs: known }) });
    const sent = (await kit.log(threadId)).filter((e) => e.type === "interrupt.resolved").map((e) => (e.data as { payload: { editedArgs?: unknown } }).payload.editedArgs);
    expect(sent).toEqual([known]);
  });
});
