/**
 * Regenerate, edit and branch, as the clients do them: CopilotKit's Regenerate sends the history
 * without the last assistant turn; an edit sends a user message under its id with new text (the
 * history after it dropped). The upstream receives exactly the client's history, the thread view
 * and a reload show the current branch, and the branch left behind stays readable.
 */
import { randomUUID } from "node:crypto";
import type { Fixture } from "@copilotkit/aimock";
import type { Message } from "@ag-ui/core";
import request from "supertest";
import { expect, it } from "vitest";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import { postSse } from "../support/sse-client.ts";
import { expectAccepted, expectBracketed, ofType, streamedText } from "./support/expect.ts";
import { conformanceSuite, local, newThreadId } from "./support/kit.ts";

let answers = 0;
const fixtures: Fixture[] = [
  // Every request gets a fresh answer: a regenerated turn is told apart from the one it replaces.
  { match: { predicate: (req) => JSON.stringify(req.messages).includes("[branch]") }, response: () => ({ content: `Answer ${++answers}.` }) },
];

const textOf = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content));
const convo = (messages: { role: string; content?: unknown }[]) =>
  messages.filter((m) => m.role !== "system").map((m) => [m.role, textOf(m.content ?? "")]);

interface BranchesJson {
  branch: string;
  branches: { branchId: string; fromBranchId?: string; keepThrough?: string | null; parentRunId?: string }[];
  messages: Message[];
}

conformanceSuite("branches", { fixtures }, (target) => {
  it.each(CLIENT_VERSIONS)("Regenerate, then an edit: the model sees the client's history; old branches stay readable (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const threadId = newThreadId(`branch-${version}`);
    const marker = `[${threadId}]`;
    const u1: Message = { id: `u1-${randomUUID()}`, role: "user", content: `[branch] ${marker} first` };
    const run1 = await runClient(version, { url: t.runUrl(), input: { threadId, messages: [u1] } });
    expectAccepted(run1);
    const u2: Message = { id: `u2-${randomUUID()}`, role: "user", content: `[branch] ${marker} second` };
    const run2 = await runClient(version, { url: t.runUrl(), input: { threadId, messages: [...run1.messages, u2] } });
    expectAccepted(run2);
    const answer2 = streamedText(run2.events);
    expect(run2.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);

    // Regenerate: the history without the last assistant turn.
    const regen = await runClient(version, { url: t.runUrl(), input: { threadId, messages: run2.messages.slice(0, 3) } });
    expectAccepted(regen);
    expectBracketed(regen.events, { threadId, terminal: "RUN_FINISHED" });
    const answer3 = streamedText(regen.events);
    expect(answer3).not.toBe(answer2);
    expect(regen.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    let requests = kit.llmRequests(marker);
    expect(requests).toHaveLength(3);
    expect(convo(requests[2]!.messages)).toEqual(convo(run2.messages.slice(0, 3)));

    // The thread is on the new branch; the one left behind still has the replaced answer.
    const now = (await request(kit.server.url).get(`/api/threads/${threadId}`)).body as BranchesJson;
    expect(now.branch).not.toBe("main");
    expect(convo(now.messages)).toEqual(convo(regen.messages));
    expect(now.branches.map((b) => b.branchId)).toEqual(["main", now.branch]);
    expect(now.branches[1]).toMatchObject({ fromBranchId: "main", keepThrough: u2.id });
    const main = (await request(kit.server.url).get(`/api/threads/${threadId}?branch=main`)).body as BranchesJson;
    expect(convo(main.messages)).toEqual(convo(run2.messages));
    expect(main.messages.at(-1)!.content).toBe(answer2);

    // An edit of the first message: same id, new text, nothing after it.
    const edited: Message = { ...u1, content: `[branch] ${marker} first, edited` };
    const edit = await runClient(version, { url: t.runUrl(), input: { threadId, messages: [edited] } });
    expectAccepted(edit);
    requests = kit.llmRequests(marker);
    expect(convo(requests.at(-1)!.messages)).toEqual([["user", edited.content]]);
    const afterEdit = (await request(kit.server.url).get(`/api/threads/${threadId}`)).body as BranchesJson;
    expect(convo(afterEdit.messages)).toEqual(convo(edit.messages));
    expect(afterEdit.branches.map((b) => b.branchId)).toHaveLength(3);
    expect(afterEdit.branches[2]).toMatchObject({ fromBranchId: now.branch, keepThrough: null });
    // The regenerated branch stays readable as it was.
    const second = (await request(kit.server.url).get(`/api/threads/${threadId}?branch=${now.branch}`)).body as BranchesJson;
    expect(convo(second.messages)).toEqual(convo(regen.messages));
    expect((await request(kit.server.url).get(`/api/threads/${threadId}?branch=nope`)).status).toBe(404);

    // A reload shows the current branch only.
    const reload = await (await postSse(`${kit.server.url}/api/agents/default/connect`, { threadId })).done;
    const snapshot = reload.find((f) => f.event.type === "MESSAGES_SNAPSHOT")!.event as unknown as { messages: Message[] };
    expect(convo(snapshot.messages)).toEqual(convo(edit.messages));

    // Nothing was deleted: every answer is still in the log.
    const appended = (await kit.log(threadId)).filter((e) => e.type === "message.appended").map((e) => textOf((e.data as { message: Message }).message.content));
    expect(appended).toEqual(expect.arrayContaining([answer2, answer3, edited.content, u1.content]));
  });

  it.each(CLIENT_VERSIONS)("a client that did not send the fork gets the new branch as MESSAGES_SNAPSHOT in the run (@ag-ui/client %s)", async (version) => {
    const t = target();
    const threadId = newThreadId(`branch-follow-${version}`);
    const u1: Message = { id: `u1-${randomUUID()}`, role: "user", content: `[branch] [${threadId}] one` };
    const run1 = await runClient(version, { url: t.runUrl(), input: { threadId, messages: [u1] } });
    const u2: Message = { id: `u2-${randomUUID()}`, role: "user", content: `[branch] [${threadId}] two` };
    const run2 = await runClient(version, { url: t.runUrl(), input: { threadId, messages: [...run1.messages, u2] } });
    // Regenerate the first answer: the fork keeps u1 only.
    const regen = await runClient(version, { url: t.runUrl(), input: { threadId, messages: [u1] } });
    expectAccepted(regen);
    const snapshots = ofType(regen.events, "MESSAGES_SNAPSHOT") as unknown as { messages: Message[] }[];
    expect(snapshots).toHaveLength(1);
    expect(snapshots[0]!.messages.map((m) => m.id)).toEqual([u1.id]);
    expect(regen.messages.map((m) => m.id)).not.toContain(run2.messages[1]!.id);
    expect(regen.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("a run that only continues the branch (all its history, or only new messages) does not fork", async () => {
    const t = target();
    const kit = local(t);
    const threadId = newThreadId("branch-none");
    const u1: Message = { id: `u1-${randomUUID()}`, role: "user", content: `[branch] [${threadId}] one` };
    const run1 = await runClient("1.0.0", { url: t.runUrl(), input: { threadId, messages: [u1] } });
    const u2: Message = { id: `u2-${randomUUID()}`, role: "user", content: `[branch] [${threadId}] two` };
    await runClient("1.0.0", { url: t.runUrl(), input: { threadId, messages: [...run1.messages, u2] } });
    const u3: Message = { id: `u3-${randomUUID()}`, role: "user", content: `[branch] [${threadId}] three` };
    await runClient("1.0.0", { url: t.runUrl(), input: { threadId, messages: [u3] } });
    expect((await kit.log(threadId)).filter((e) => e.type === "branch.forked")).toHaveLength(0);
    const view = (await request(kit.server.url).get(`/api/threads/${threadId}`)).body as BranchesJson;
    expect(view.branch).toBe("main");
    expect(view.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
  });

  it.each(CLIENT_VERSIONS)("a stale copy that says something new is refused with 409 STALE_HISTORY, nothing written; fork: true branches on purpose (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const threadId = newThreadId(`branch-stale-${version}`);
    const u1: Message = { id: `u1-${randomUUID()}`, role: "user", content: `[branch] [${threadId}] one` };
    const run1 = await runClient(version, { url: t.runUrl(), input: { threadId, messages: [u1] } });
    expectAccepted(run1);
    // Another tab adds an exchange; this client still holds run1's copy.
    const u2: Message = { id: `u2-${randomUUID()}`, role: "user", content: `[branch] [${threadId}] two, from elsewhere` };
    const run2 = await runClient(version, { url: t.runUrl(), input: { threadId, messages: [...run1.messages, u2] } });
    expectAccepted(run2);
    const head = run2.messages.at(-1)!.id;
    const logBefore = await kit.log(threadId);

    const u3: Message = { id: `u3-${randomUUID()}`, role: "user", content: `[branch] [${threadId}] three, from the stale tab` };
    const stale = await runClient(version, { url: t.runUrl(), input: { threadId, messages: [...run1.messages, u3] } });
    expect(stale.failed).toBe(true);
    expect(stale.events.filter((e) => e.type === "RUN_STARTED")).toHaveLength(0);
    // The raw answer: 409 with the code, the head the client lacks, and a sentence that says what to do.
    const raw = await request(kit.server.url)
      .post("/api/agents/default/run")
      .send({ threadId, runId: randomUUID(), messages: [...run1.messages, u3], tools: [], context: [], state: {}, forwardedProps: {} });
    expect(raw.status).toBe(409);
    expect(raw.body.error).toMatchObject({ code: "STALE_HISTORY", threadId, headMessageId: head, branch: "main" });
    expect(raw.body.error.message).toContain("fork");
    // Through the CopilotKit runtime: the same refusal, as the one RUN_ERROR before any RUN_STARTED.
    const viaRuntime = await (await postSse(`${kit.server.url}/api/copilotkit/agent/default/run`, { threadId, runId: randomUUID(), messages: [...run1.messages, u3], tools: [], context: [], state: {}, forwardedProps: {} })).done;
    expect(viaRuntime.map((f) => f.event.type)).toEqual(["RUN_ERROR"]);
    expect(viaRuntime[0]!.event).toMatchObject({ code: "STALE_HISTORY" });
    // Nothing was written, and nothing disappeared from the thread.
    expect(await kit.log(threadId)).toHaveLength(logBefore.length);
    const view = (await request(kit.server.url).get(`/api/threads/${threadId}`)).body as BranchesJson;
    expect(view.branch).toBe("main");
    expect(view.messages.map((m) => m.id)).toEqual(run2.messages.map((m) => m.id));

    // Caught up, the same text is a plain continuation.
    const resent: Message = { ...u3, id: `u3b-${randomUUID()}` };
    const caughtUp = await runClient(version, { url: t.runUrl(), input: { threadId, messages: [...run2.messages, resent] } });
    expectAccepted(caughtUp);
    const after = (await request(kit.server.url).get(`/api/threads/${threadId}`)).body as BranchesJson;
    expect(after.branch).toBe("main");
    expect(after.messages.map((m) => m.id).slice(0, 4)).toEqual(run2.messages.map((m) => m.id));

    // Branching off from the older copy on purpose: the run says so, and the thread forks.
    const u4: Message = { id: `u4-${randomUUID()}`, role: "user", content: `[branch] [${threadId}] four, a branch on purpose` };
    const fork = await runClient(version, { url: t.runUrl(), input: { threadId, messages: [...run1.messages, u4], forwardedProps: { threadline: { fork: true } } } });
    expectAccepted(fork);
    const forked = (await request(kit.server.url).get(`/api/threads/${threadId}`)).body as BranchesJson;
    expect(forked.branch).not.toBe("main");
    expect(forked.branches.at(-1)).toMatchObject({ fromBranchId: "main", keepThrough: run1.messages.at(-1)!.id });
    const main = (await request(kit.server.url).get(`/api/threads/${threadId}?branch=main`)).body as BranchesJson;
    expect(main.messages.map((m) => m.id)).toContain(resent.id);
  });
});

