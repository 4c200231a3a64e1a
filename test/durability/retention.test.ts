/**
 * Retention: once runs have ended, `store.compact(age)` deletes their stream-level events. What
 * a reload shows must not change (GET /api/threads/:id, and a connect with no cursor applied by
 * both clients); a client whose cursor points into the deleted range gets a snapshot resync, not
 * the text again on top of what it holds; a run still streaming keeps every event.
 */
import type { Message } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isStreamEvent } from "../../protocol/events.ts";
import { CLIENT_VERSIONS, checkWithBothClients } from "../support/agui-clients.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
import { postSse } from "../support/sse-client.ts";
import { expectAccepted, LiveClient, reloadWithBoth, toSse } from "./support/live.ts";
import { durableAgent, FRONTEND_TOOL, gate, startScriptUpstream, type ScriptUpstream } from "./support/script.ts";
import { readAll, readSse, type Frame } from "./support/sse.ts";
import { connectUrl, getThread, runUrl, untilEvent, type ThreadView } from "./support/threads.ts";

const HOUR = 3_600_000;

describe.each(backends())("retention on %s", (backend) => {
  let upstream: ScriptUpstream;
  let server: TestServer;
  const door = gate();
  const threadId = "retention-finished";
  let before: ThreadView;
  /** The exact replay of the whole thread before compaction: every frame a live client saw. */
  let full: Frame[];

  beforeAll(async () => {
    upstream = await startScriptUpstream({ latencyMs: 2, chunkSize: 4 });
    server = await startTestServer({ backend, llmUrl: upstream.url, agents: [durableAgent({ hold: door.hold })] });
    const live = new LiveClient(server.url, "1.0.0", threadId);
    expect((await live.say("Please lookup the answer", { state: { theme: "dark" } })).failed).toBe(false);
    expect((await live.say("Do the long job please")).failed).toBe(false);
    expect((await live.say("Please paint the page", { tools: [FRONTEND_TOOL] })).failed).toBe(false);
    before = await getThread(server.url, threadId);
    // The log one for one (?replay=exact): the compacted form would merge the deltas this test cuts inside.
    full = (await readAll(`${connectUrl(server.url)}?replay=exact`, { threadId, lastSeenEventId: "0" })).frames;
  }, 120_000);
  afterAll(async () => {
    door.open(); // a failed test must not leave a run held open: close() waits for it
    await server?.close();
    await upstream?.stop();
  });

  const streamEvents = async (id: string) => (await server.store.read(id)).filter(isStreamEvent);

  it("deletes the stream events of ended runs, and a reload shows the same conversation", async () => {
    expect(before.status).toBe("WAITING");
    expect(full.filter((f) => f.event.type === "TEXT_MESSAGE_CONTENT").length).toBeGreaterThan(100);
    const reloadBefore = await reloadWithBoth(server.url, threadId);
    expectAccepted(reloadBefore);
    const streamed = (await streamEvents(threadId)).length;
    expect(streamed).toBeGreaterThan(300);

    // With an hour's retention nothing is old enough yet; with none, every ended run is compacted.
    expect(await server.store.compact(HOUR)).toBe(0);
    expect(await server.store.compact(0)).toBeGreaterThanOrEqual(streamed);
    expect(await streamEvents(threadId)).toEqual([]);
    expect(await server.store.compact(0)).toBe(0);

    expect(await getThread(server.url, threadId)).toEqual(before);
    const reloadAfter = await reloadWithBoth(server.url, threadId);
    expectAccepted(reloadAfter);
    for (const v of CLIENT_VERSIONS) {
      expect(reloadBefore[v].messages, `before, ${v}`).toEqual(before.messages);
      expect(reloadAfter[v].messages, `after, ${v}`).toEqual(before.messages);
      expect(reloadAfter[v].state, `after, ${v}`).toEqual(before.state);
      expect(reloadBefore[v].state, `before, ${v}`).toEqual(before.state);
    }
  });

  it("resyncs a cursor inside the compacted range with a snapshot, never the text again", async () => {
    await server.store.compact(0);
    // A client that hung up in the middle of the long answer, holding part of its text.
    const contents = full.filter((f) => f.event.type === "TEXT_MESSAGE_CONTENT");
    const cursorFrame = contents[contents.length - 40]!;
    const messageId = cursorFrame.event.messageId as string;
    const upto = full.slice(0, full.indexOf(cursorFrame) + 1);
    const partial = upto
      .filter((f) => f.event.type === "TEXT_MESSAGE_CONTENT" && f.event.messageId === messageId)
      .map((f) => f.event.delta)
      .join("");
    const at = before.messages.findIndex((m) => m.id === messageId);
    expect(at).toBeGreaterThan(0);
    const held: Message[] = [...before.messages.slice(0, at), { id: messageId, role: "assistant", content: partial }];
    expect(partial.length).toBeLessThan((before.messages[at]!.content as string).length);

    for (const headers of [{ "last-event-id": cursorFrame.id }, undefined]) {
      const body = headers ? { threadId } : { threadId, lastSeenEventId: cursorFrame.id };
      const resync = await readAll(connectUrl(server.url), body, headers);
      expect(resync.ended).toBe(true);
      expect(resync.frames.map((f) => f.event.type)).toEqual(["RUN_STARTED", "MESSAGES_SNAPSHOT", "STATE_SNAPSHOT", "RUN_FINISHED"]);
      expect(resync.frames[1]!.event.messages).toEqual(before.messages);
      const applied = await checkWithBothClients(toSse(resync.frames), { threadId, initialMessages: held, initialState: {} });
      expectAccepted(applied);
      for (const v of CLIENT_VERSIONS) {
        // The held partial message is replaced by id: its text appears once, whole.
        expect(applied[v].messages, `resynced ${v}`).toEqual(before.messages);
        expect(applied[v].state, `resynced ${v}`).toEqual(before.state);
      }
    }
    // A client that had everything still gets nothing.
    const tail = await readAll(connectUrl(server.url), { threadId, lastSeenEventId: full.at(-1)!.id });
    expect(tail).toMatchObject({ ended: true, frames: [] });
  });

  it("keeps every event of a run that is still running", async () => {
    const id = "retention-running";
    const live = new LiveClient(server.url, "1.0.0", id);
    expect((await live.say("Please lookup the answer")).failed).toBe(false);
    expect((await streamEvents(id)).length).toBeGreaterThan(0);
    const runId = `${id}-run2`;
    door.close();
    const watching = readAll(runUrl(server.url), {
      threadId: id,
      runId,
      messages: [...live.messages, { id: "u2", role: "user", content: "Please hold on" }],
      state: live.state,
      tools: [],
      context: [],
    });
    // The run has streamed its text and tool call and now waits in the `hold` tool.
    await untilEvent(server.store, id, (e) => e.type === "task.created" && e.data.kind === "tool" && e.runId === runId);
    const accepted = (await server.store.read(id)).find((e) => e.type === "run.accepted" && e.data.runId === runId)!;
    // A client that saw the first frames of run 2, then hung up in the middle of a frame ...
    const early = await readSse(connectUrl(server.url), {
      body: { threadId: id, lastSeenEventId: String(accepted.seq - 1) },
      cut: { frames: 12, partial: true },
    });
    expect(early.cut).toBe(true);
    expect(early.frames[0]!.event).toMatchObject({ type: "RUN_STARTED", runId });

    // ... compaction runs meanwhile: run 1's deltas go, run 2's stay, and run 2's log has no hole.
    const run2Stream = (await streamEvents(id)).filter((e) => e.runId === runId);
    expect(run2Stream.length).toBeGreaterThan(20);
    expect(await server.store.compact(0)).toBeGreaterThan(0);
    const log = await server.store.read(id);
    expect(log.filter((e) => isStreamEvent(e) && e.runId !== runId)).toEqual([]);
    expect(log.filter((e) => isStreamEvent(e) && e.runId === runId)).toEqual(run2Stream);
    const seqs = log.filter((e) => e.seq >= accepted.seq).map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => accepted.seq + i));

    // ... and the client resumes exactly where it was: no resync, no gap, no duplicate. A page
    // loaded now gets the compacted run 1 as a snapshot, then run 2 from its start.
    const resuming = readAll(connectUrl(server.url), { threadId: id }, { "last-event-id": early.frames.at(-1)!.id });
    const reloading = await postSse(connectUrl(server.url), { threadId: id });
    await reloading.waitFor((f) => f.event.type === "TOOL_CALL_END");
    door.open();
    const [rest, watched, reloaded] = await Promise.all([resuming, watching, reloading.done]);
    expect(rest.frames[0]!.event.type).not.toBe("MESSAGES_SNAPSHOT");
    expect([...early.frames, ...rest.frames]).toEqual(watched.frames);
    expect(watched.frames.at(-1)!.event.type).toBe("RUN_FINISHED");
    expect(reloaded.slice(0, 4).map((f) => f.event.type)).toEqual(["RUN_STARTED", "MESSAGES_SNAPSHOT", "STATE_SNAPSHOT", "RUN_FINISHED"]);
    expect(reloaded[1]!.event.messages).toEqual(live.messages);
    expect(reloaded.slice(4)).toEqual(watched.frames);

    // Once it has ended, its deltas go too, and the conversation stays the same.
    const ended = await getThread(server.url, id);
    expect(await server.store.compact(0)).toBeGreaterThanOrEqual(run2Stream.length);
    expect(await streamEvents(id)).toEqual([]);
    expect(await getThread(server.url, id)).toEqual(ended);
    const reload = await reloadWithBoth(server.url, id);
    expectAccepted(reload);
    for (const v of CLIENT_VERSIONS) {
      expect(reload[v].messages, v).toEqual(ended.messages);
      expect(reload[v].state, v).toEqual(ended.state);
    }
  });
});
