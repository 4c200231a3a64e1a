/**
 * Cursors that tell the truth (issue 30): a `Last-Event-ID` (or `lastSeenEventId`) past the end
 * of the thread's log is 409 CURSOR_AHEAD naming the thread's last id, on connect and on the raw
 * events route, never a 200 with an empty stream that a client takes for "up to date". Both AG-UI
 * clients, pointed at connect with the header (as a reconnecting client sends it), fail the run
 * with the 409 rather than finishing it empty; at the last id itself they get the (empty) rest,
 * and a reload with no cursor gets the conversation.
 */
import type { Fixture } from "@copilotkit/aimock";
import type { Message } from "@ag-ui/core";
import { expect, it } from "vitest";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import { conformanceSuite, local, newThreadId } from "./support/kit.ts";

const fixtures: Fixture[] = [{ match: { userMessage: "[cursor-ahead]" }, response: { content: "Here is the answer." } }];

conformanceSuite("cursor past the end of the log", { fixtures }, (target) => {
  const setUp = async (version: string) => {
    const t = target();
    const threadId = newThreadId(`cursor-${version}`);
    const user: Message = { id: `${threadId}-u1`, role: "user", content: "[cursor-ahead] hello" };
    const first = await runClient("1.0.0", { url: t.runUrl(), input: { threadId, messages: [user] } });
    expect(first.failed).toBe(false);
    const log = await local(t).log(threadId);
    return { t, threadId, lastSeq: log.at(-1)!.seq, url: `${local(t).server.url}/api/agents/default/connect` };
  };

  it.each(CLIENT_VERSIONS)("@ag-ui/client %s reconnecting with a Last-Event-ID past the end gets 409 CURSOR_AHEAD naming the last id", async (version) => {
    const { threadId, lastSeq, url } = await setUp(version);
    const ahead = await runClient(version, { url, input: { threadId }, headers: { "Last-Event-ID": String(lastSeq + 5) } });
    expect(ahead.failed).toBe(true);
    expect(ahead.events.map((e) => e.type)).not.toContain("RUN_FINISHED");
    expect(String(ahead.error?.message)).toMatch(/409/);

    // At the last id: nothing after it, and that is true (the run is over), so the stream ends.
    const atEnd = await runClient(version, { url, input: { threadId }, headers: { "Last-Event-ID": String(lastSeq) } });
    expect(atEnd.error?.message).toBeUndefined();
    // A reload (no cursor) gets the conversation: the way out the 409 names.
    const reload = await runClient(version, { url, input: { threadId } });
    expect(reload.failed).toBe(false);
    expect(reload.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("the 409's body says what to do and names the thread's last id, for the header, the body field and the events route", async () => {
    const { t, threadId, lastSeq, url } = await setUp("raw");
    const base = local(t).server.url;
    const viaHeader = await fetch(url, { method: "POST", headers: { "content-type": "application/json", "last-event-id": `${lastSeq + 1}` }, body: JSON.stringify({ threadId }) });
    const viaBody = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ threadId, lastSeenEventId: `${lastSeq + 1}.0` }) });
    const events = await fetch(`${base}/api/threads/${threadId}/events`, { headers: { accept: "text/event-stream", "last-event-id": `${lastSeq + 1}` } });
    const page = await fetch(`${base}/api/threads/${threadId}/events?after=${lastSeq + 1}`);
    for (const res of [viaHeader, viaBody, events, page]) {
      expect(res.status).toBe(409);
      const body = (await res.json()) as { error: { code: string; message: string; lastEventId: string; threadId: string } };
      expect(body.error).toMatchObject({ code: "CURSOR_AHEAD", lastEventId: String(lastSeq), threadId });
      expect(body.error.message).toMatch(/Reload it/);
    }
    // Nothing was opened: no stream headers on the refusal, and the thread is as it was.
    expect((await local(t).log(threadId)).at(-1)!.seq).toBe(lastSeq);
    // An unknown thread keeps its fixed answer, cursor or not: 200 and an empty stream.
    const unknown = await fetch(url, { method: "POST", headers: { "content-type": "application/json", "last-event-id": "3" }, body: JSON.stringify({ threadId: newThreadId("never") }) });
    expect(unknown.status).toBe(200);
    expect(await unknown.text()).not.toMatch(/^data:/m);
  });
});
