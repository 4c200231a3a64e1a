/**
 * Every protocol path the stale-tab rule (protocol/branches.ts: a history that drops the newest
 * messages and adds a user message is refused, 409 STALE_HISTORY) meets, each through a real
 * client, so that a change to the rule cannot refuse one of them unnoticed (it did once: AG-UI's
 * parentRunId branching, refused from 5ce2950 on). The paths:
 *
 * | path                               | client                              | outcome                    |
 * |------------------------------------|-------------------------------------|----------------------------|
 * | continue (the whole history + new) | @ag-ui/client 1.0.0, 0.0.59; core   | no fork                    |
 * | regenerate (last answer dropped)   | @ag-ui/client 1.0.0, 0.0.59         | forks at the question      |
 * | edit (same id, new text)           | @ag-ui/client 1.0.0, 0.0.59         | forks before the message   |
 * | parentRunId + history up to it     | @ag-ui/client 1.0.0, 0.0.59         | forks at that run          |
 * |   ... with forwardedProps fork     | @ag-ui/client 1.0.0, 0.0.59         | the same fork              |
 * |   ... without the history          | @ag-ui/client 1.0.0                 | the same fork              |
 * |   ... of a branch left behind      | @ag-ui/client 1.0.0, 0.0.59         | forks there, restoring it  |
 * |   ... naming the head              | @ag-ui/client 1.0.0                 | no fork                    |
 * | resume (an interrupt's answer)     | @ag-ui/client 1.0.0, 0.0.59; core   | no fork                    |
 * | fork (forwardedProps.threadline)   | @ag-ui/client 1.0.0, 0.0.59         | forks by the shape alone   |
 * | CopilotKit's regenerate            | CopilotKit core 1.74, 1.75          | forks at the question      |
 * | a stale tab                        | @ag-ui/client 1.0.0, 0.0.59; core   | 409 STALE_HISTORY, no write|
 * |   ... naming a run it went past    | @ag-ui/client 1.0.0, 0.0.59         | 409 STALE_HISTORY, no write|
 */
import { randomUUID } from "node:crypto";
import type { Fixture } from "@copilotkit/aimock";
import type { Message } from "@ag-ui/core";
import request from "supertest";
import { expect, it } from "vitest";
import { approvalsAgent, APPROVALS_AGENT_ID } from "../../server/agents/approvals-agent.ts";
import { approvalsFixtures } from "../../server/demo/approvals-fixtures.ts";
import { CLIENT_VERSIONS, runClient, type ClientOutcome } from "../support/agui-clients.ts";
import { CORE_VERSIONS, ckSession, threadlineDoor } from "../support/copilotkit-clients.ts";
import { conversation, finished } from "../support/interrupt-conversation.ts";
import { expectAccepted, ofType, streamedText } from "./support/expect.ts";
import { conformanceSuite, local, newThreadId, type LocalKit, type Target } from "./support/kit.ts";

const MARK = "[paths]";
let answers = 0;
const fixtures = [
  // A fresh answer per request: a regenerated turn is told apart from the one it replaces.
  { match: { predicate: (req) => JSON.stringify(req.messages).includes(MARK) }, response: () => ({ content: `Answer ${++answers}.` }) },
  ...approvalsFixtures(),
] as Fixture[];

interface Branch {
  branchId: string;
  fromBranchId?: string;
  keepThrough?: string | null;
  parentRunId?: string;
}
interface ThreadView {
  status: string;
  branch: string;
  branches: Branch[];
  messages: Message[];
}

const user = (threadId: string, text: string): Message => ({ id: `u-${randomUUID()}`, role: "user", content: `${MARK} [${threadId}] ${text}` });
const ids = (messages: readonly { id: string }[]) => messages.map((m) => m.id);

conformanceSuite("the stale-tab rule, path by path", { fixtures, agents: () => [approvalsAgent()] }, (target) => {
  const view = async (kit: LocalKit, threadId: string, branch?: string) =>
    (await request(kit.server.url).get(`/api/threads/${threadId}${branch ? `?branch=${branch}` : ""}`)).body as ThreadView;
  const forks = async (kit: LocalKit, threadId: string) => (await kit.log(threadId)).filter((e) => e.type === "branch.forked").map((e) => e.data as Branch);

  /** Two exchanges on one thread, by one client: run1 (u1, its answer), run2 (u2, its answer). */
  async function twoRuns(t: Target, version: (typeof CLIENT_VERSIONS)[number], label: string) {
    const threadId = newThreadId(`${label}-${version}`);
    const run1Id = `run1-${randomUUID()}`;
    const run1 = await runClient(version, { url: t.runUrl(), input: { threadId, runId: run1Id, messages: [user(threadId, "one")] } });
    expectAccepted(run1);
    const run2Id = `run2-${randomUUID()}`;
    const run2 = await runClient(version, { url: t.runUrl(), input: { threadId, runId: run2Id, messages: [...run1.messages, user(threadId, "two")] } });
    expectAccepted(run2);
    return { threadId, run1Id, run1, run2Id, run2 };
  }

  /** The client's run was refused before any stream: 409 STALE_HISTORY, the log as it was. */
  async function expectRefused(kit: LocalKit, threadId: string, out: ClientOutcome, logLength: number) {
    expect(out.failed).toBe(true);
    expect(out.error?.message).toContain("STALE_HISTORY");
    expect(ofType(out.events, "RUN_STARTED")).toHaveLength(0);
    expect(await kit.log(threadId)).toHaveLength(logLength);
  }

  it.each(CLIENT_VERSIONS)("continue: the whole history and a new message does not fork (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const { threadId, run2 } = await twoRuns(t, version, "continue");
    const run3 = await runClient(version, { url: t.runUrl(), input: { threadId, messages: [...run2.messages, user(threadId, "three")] } });
    expectAccepted(run3);
    expect(await forks(kit, threadId)).toEqual([]);
    expect(ids((await view(kit, threadId)).messages)).toEqual(ids(run3.messages));
  });

  it.each(CLIENT_VERSIONS)("regenerate: the history without the last answer forks at the question (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const { threadId, run2 } = await twoRuns(t, version, "regenerate");
    const regen = await runClient(version, { url: t.runUrl(), input: { threadId, messages: run2.messages.slice(0, 3) } });
    expectAccepted(regen);
    expect(await forks(kit, threadId)).toMatchObject([{ fromBranchId: "main", keepThrough: run2.messages[2]!.id }]);
    expect(streamedText(regen.events)).not.toBe(run2.messages[3]!.content);
  });

  it.each(CLIENT_VERSIONS)("edit: a user message under its id with new text forks before it (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const { threadId, run2 } = await twoRuns(t, version, "edit");
    const edited = { ...run2.messages[2]!, content: `${MARK} [${threadId}] two, edited` } as Message;
    const edit = await runClient(version, { url: t.runUrl(), input: { threadId, messages: [...run2.messages.slice(0, 2), edited] } });
    expectAccepted(edit);
    expect(await forks(kit, threadId)).toMatchObject([{ fromBranchId: "main", keepThrough: run2.messages[1]!.id }]);
    expect((await view(kit, threadId)).messages[2]!.content).toBe(edited.content);
  });

  it.each(CLIENT_VERSIONS)("parentRunId: the history up to an earlier run and a new message forks at that run, with or without fork: true (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const { threadId, run1Id, run1, run2 } = await twoRuns(t, version, "parent");
    const u3 = user(threadId, "three, a branch from run1");
    const branched = await runClient(version, { url: t.runUrl(), input: { threadId, parentRunId: run1Id, messages: [...run1.messages, u3] } });
    expectAccepted(branched);
    expect(ofType(branched.events, "RUN_STARTED")[0]).toMatchObject({ parentRunId: run1Id });
    // The model saw run1's conversation and the new message, nothing of run2.
    const seen = kit.llmRequests(`[${threadId}]`).at(-1)!.messages.filter((m) => m.role !== "system");
    expect(seen.map((m) => m.content)).toEqual([run1.messages[0]!.content, run1.messages[1]!.content, u3.content]);
    const now = await view(kit, threadId);
    expect(now.branch).not.toBe("main");
    expect(now.branches.at(-1)).toMatchObject({ fromBranchId: "main", keepThrough: run1.messages[1]!.id, parentRunId: run1Id });
    expect(ids(now.messages)).toEqual(ids(branched.messages));
    expect(ids(now.messages).slice(0, 3)).toEqual([...ids(run1.messages), u3.id]);
    // run2's exchange stays on the branch left behind.
    expect(ids((await view(kit, threadId, "main")).messages)).toEqual(ids(run2.messages));

    // The same with Threadline's own flag: forks at run1 again.
    const u4 = user(threadId, "four, again from run1");
    const flagged = await runClient(version, { url: t.runUrl(), input: { threadId, parentRunId: run1Id, messages: [...run1.messages, u4], forwardedProps: { threadline: { fork: true } } } });
    expectAccepted(flagged);
    const again = await view(kit, threadId);
    expect(again.branches.at(-1)).toMatchObject({ fromBranchId: now.branch, keepThrough: run1.messages[1]!.id, parentRunId: run1Id });
    expect(ids(again.messages).slice(0, 3)).toEqual([...ids(run1.messages), u4.id]);
  });

  it("parentRunId without the history (AG-UI lets a run omit what the thread has): forks at that run (@ag-ui/client 1.0.0)", async () => {
    const t = target();
    const kit = local(t);
    const { threadId, run1Id, run1 } = await twoRuns(t, "1.0.0", "parent-bare");
    const u3 = user(threadId, "three, only the new message");
    const branched = await runClient("1.0.0", { url: t.runUrl(), input: { threadId, parentRunId: run1Id, messages: [u3] } });
    expectAccepted(branched);
    const now = await view(kit, threadId);
    expect(now.branches.at(-1)).toMatchObject({ keepThrough: run1.messages[1]!.id, parentRunId: run1Id });
    expect(ids(now.messages).slice(0, 3)).toEqual([...ids(run1.messages), u3.id]);
    // The client is told the whole branch (it held only its new message; 1.0.0 merges the
    // snapshot into what it holds, keeping its own message where it was).
    expect(ids(branched.messages).sort()).toEqual(ids(now.messages).sort());
  });

  it.each(CLIENT_VERSIONS)("parentRunId naming a run of a branch left behind: forks there, its messages written back as the log has them (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const { threadId, run2Id, run2 } = await twoRuns(t, version, "parent-old");
    // An edit of u2 leaves main (and run2 on it) behind.
    const edited = { ...run2.messages[2]!, content: `${MARK} [${threadId}] two, edited` } as Message;
    expectAccepted(await runClient(version, { url: t.runUrl(), input: { threadId, messages: [...run2.messages.slice(0, 2), edited] } }));
    const u5 = user(threadId, "five, from run2 on main");
    const back = await runClient(version, { url: t.runUrl(), input: { threadId, parentRunId: run2Id, messages: [...run2.messages, u5] } });
    expectAccepted(back);
    const now = await view(kit, threadId);
    expect(now.branches.at(-1)).toMatchObject({ keepThrough: run2.messages[1]!.id, parentRunId: run2Id });
    expect(ids(now.messages).slice(0, 5)).toEqual([...ids(run2.messages), u5.id]);
    // u2 as the log recorded it, not as edited.
    expect(now.messages[2]!.content).toBe(run2.messages[2]!.content);
    expect(ids(back.messages)).toEqual(ids(now.messages));
  });

  it("parentRunId naming the run that ended last: a continuation, no fork (@ag-ui/client 1.0.0)", async () => {
    const t = target();
    const kit = local(t);
    const { threadId, run2Id, run2 } = await twoRuns(t, "1.0.0", "parent-head");
    const run3 = await runClient("1.0.0", { url: t.runUrl(), input: { threadId, parentRunId: run2Id, messages: [...run2.messages, user(threadId, "three")] } });
    expectAccepted(run3);
    expect(await forks(kit, threadId)).toEqual([]);
  });

  it.each(CLIENT_VERSIONS)("resume: an interrupt's answer continues the branch, no fork, no refusal (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const threadId = newThreadId(`resume-${version}`);
    const c = conversation(version, t.runUrl(APPROVALS_AGENT_ID), threadId);
    const runId = `r-${randomUUID()}`;
    const [asked] = finished(await c.run({ runId, add: [{ id: `u-${randomUUID()}`, role: "user", content: "email the team" }] }))!.outcome!.interrupts;
    const answered = await c.run({ runId, resume: [{ interruptId: asked!.id, status: "resolved", payload: { approved: true } }] });
    expect(finished(answered)).toBeDefined();
    expect(await forks(kit, threadId)).toEqual([]);
    expect((await view(kit, threadId)).messages.at(-1)!.content).toBe("Done: the email is sent.");
  });

  it.each(CLIENT_VERSIONS)("fork: forwardedProps.threadline.fork branches a stale-shaped history on purpose (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const { threadId, run1 } = await twoRuns(t, version, "flag");
    const forked = await runClient(version, { url: t.runUrl(), input: { threadId, messages: [...run1.messages, user(threadId, "three")], forwardedProps: { threadline: { fork: true } } } });
    expectAccepted(forked);
    expect(await forks(kit, threadId)).toMatchObject([{ fromBranchId: "main", keepThrough: run1.messages[1]!.id }]);
  });

  it.each(CLIENT_VERSIONS)("a stale tab is refused, 409 STALE_HISTORY and nothing written, also when its parentRunId names a run its history went past (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const { threadId, run1Id, run1, run2 } = await twoRuns(t, version, "stale");
    const before = (await kit.log(threadId)).length;
    // The tab still holds run1's copy and says something new.
    const stale = await runClient(version, { url: t.runUrl(), input: { threadId, messages: [...run1.messages, user(threadId, "three, stale")] } });
    await expectRefused(kit, threadId, stale, before);
    // A parentRunId explains only the history as that run left it: this one holds u2, which came after run1.
    const past = await runClient(version, {
      url: t.runUrl(),
      input: { threadId, parentRunId: run1Id, messages: [...run1.messages, run2.messages[2]!, user(threadId, "three, past run1")] },
    });
    await expectRefused(kit, threadId, past, before);
    // A parentRunId the thread never had explains nothing either.
    const unknown = await runClient(version, { url: t.runUrl(), input: { threadId, parentRunId: `nope-${randomUUID()}`, messages: [...run1.messages, user(threadId, "three")] } });
    await expectRefused(kit, threadId, unknown, before);
    expect((await view(kit, threadId)).branch).toBe("main");
  });

  it.each(CORE_VERSIONS)("CopilotKit core %s: its calls continue, its regenerate forks, a stale tab gets RUN_ERROR STALE_HISTORY, useInterrupt's resolve continues", async (core) => {
    const t = target();
    const kit = local(t);
    const door = threadlineDoor(kit.server.url);
    const threadId = newThreadId(`ck-${core}`);
    const page = ckSession(core, door, "default", threadId);
    await page.say(`${MARK} [${threadId}] one`);
    // A second tab loads the thread, then the first goes on without it.
    const tab = ckSession(core, door, "default", threadId);
    await tab.connect();
    expect(ids(tab.agent.messages)).toEqual(ids(page.agent.messages));
    await page.say(`${MARK} [${threadId}] two`);
    expect(await forks(kit, threadId)).toEqual([]);
    const before = (await kit.log(threadId)).length;
    await tab.say(`${MARK} [${threadId}] three, from the stale tab`);
    expect(tab.runErrors).toEqual([expect.stringMatching(/^STALE_HISTORY: /)]);
    expect(await kit.log(threadId)).toHaveLength(before);

    // CopilotChat's regenerate: keep up to the last question, run again.
    const question = page.agent.messages.findLastIndex((m) => m.role === "user");
    const replaced = page.agent.messages.at(-1)!.id;
    page.agent.setMessages(page.agent.messages.slice(0, question + 1));
    await page.run();
    expect(page.runErrors).toEqual([]);
    expect(await forks(kit, threadId)).toMatchObject([{ fromBranchId: "main", keepThrough: page.agent.messages[question]!.id }]);
    expect(ids((await view(kit, threadId)).messages)).not.toContain(replaced);

    // useInterrupt's resolve: the answer runs under the interrupted run's id and continues.
    const approvals = ckSession(core, door, APPROVALS_AGENT_ID, newThreadId(`ck-resume-${core}`));
    await approvals.say("email the team");
    const ask = approvals.finishes.at(-1)!;
    expect(ask.outcome).toBe("interrupt");
    expect(await approvals.answer([{ id: ask.interrupts[0]!.id, payload: { approved: true } }])).toEqual(["resume"]);
    expect(approvals.runErrors).toEqual([]);
    expect(await forks(kit, approvals.agent.threadId)).toEqual([]);
    expect(approvals.reply()).toContain("Done: the email is sent.");
  });
});
