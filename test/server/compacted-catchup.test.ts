/**
 * Catch-up of finished runs from their compacted form (protocol/merged-deltas.ts, migration 0009):
 * a connect whose cursor lies before a finished run's stretches of deltas gets each stretch as one
 * delta under the id of its last, read from the rows the run's end wrote instead of the log's
 * thousands; `?replay=exact` gets the log one for one. Every id of a compacted replay is a cursor:
 * a client cut off anywhere and resuming with the last id it got ends with what the exact replay
 * leaves it with (fast-check over the cut points), and the real @ag-ui/client of both versions
 * ends with the same messages and state either way.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredEvent, WorkflowEvent } from "../../protocol/events.ts";
import { COMPACTED_MAX_CHARS_PER_RUN, DeltaMerger, matchesMerged, MIN_STRETCH_EVENTS } from "../../protocol/merged-deltas.ts";
import { Reconstructor } from "../../protocol/reconstruct.ts";
import { startDemoUpstream } from "../support/demo-upstream.ts";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import { clientView } from "../support/client-view.ts";
import { backends, serverMetric, startTestServer, type TestServer } from "../support/server.ts";
import { postSse, type SseFrame } from "../support/sse-client.ts";

const deltas = (n: number, word: string) => Array.from({ length: n }, (_, i) => `${word}${i} `);

/** One finished run: reasoning, a text whose deltas a state patch interrupts, a tool call's arguments. */
function runEvents(runId: string, k: number, first: boolean): WorkflowEvent[] {
  const text = deltas(80, `w${k}-`);
  const args = ['{"city":', '"Par', 'is"', "}"];
  const thinking = deltas(40, `t${k}-`);
  const a = `a-${runId}`;
  const r = `rs-${runId}`;
  const c = `c-${runId}`;
  return [
    ...(first ? [{ type: "thread.created", data: { agentId: "default" } } as WorkflowEvent] : []),
    { type: "run.accepted", data: { runId, tools: [], context: [] } },
    { type: "message.appended", data: { runId, source: "input", message: { id: `u-${runId}`, role: "user", content: "go" } } },
    { type: "workflow.started", data: { runId } },
    ...(first ? [{ type: "state.set", data: { runId, state: { n: 0 } } } as WorkflowEvent] : []),
    { type: "reasoning.started", data: { runId, messageId: r } },
    ...thinking.map((delta): WorkflowEvent => ({ type: "reasoning.delta", data: { runId, messageId: r, delta } })),
    { type: "reasoning.ended", data: { runId, messageId: r } },
    { type: "text.started", data: { runId, messageId: a } },
    ...text.slice(0, 40).map((delta): WorkflowEvent => ({ type: "text.delta", data: { runId, messageId: a, delta } })),
    { type: "state.patched", data: { runId, patch: [{ op: "replace", path: "/n", value: k }] } },
    ...text.slice(40).map((delta): WorkflowEvent => ({ type: "text.delta", data: { runId, messageId: a, delta } })),
    { type: "text.ended", data: { runId, messageId: a } },
    { type: "toolcall.started", data: { runId, toolCallId: c, name: "weather", parentMessageId: a } },
    ...args.map((delta): WorkflowEvent => ({ type: "toolcall.args", data: { runId, toolCallId: c, delta } })),
    { type: "toolcall.ended", data: { runId, toolCallId: c } },
    { type: "message.appended", data: { runId, source: "agent", message: { id: r, role: "reasoning", content: thinking.join("") } } },
    {
      type: "message.appended",
      data: { runId, source: "agent", message: { id: a, role: "assistant", content: text.join(""), toolCalls: [{ id: c, type: "function", function: { name: "weather", arguments: args.join("") } }] } },
    },
  ];
}

describe.each(backends())("catch-up from the compacted form on %s", (backend) => {
  let upstream: Awaited<ReturnType<typeof startDemoUpstream>>;
  let server: TestServer;
  beforeAll(async () => {
    upstream = await startDemoUpstream({ latencyMs: 0 });
    server = await startTestServer({ backend, llmUrl: `${upstream.url}` });
  });
  afterAll(async () => {
    await server.close();
    await upstream.stop();
  });

  /** Two finished runs written as an executor writes them: the end carries the checkpoint and the merged stretches. */
  async function writeThread(threadId: string): Promise<void> {
    const store = server.store;
    await store.ensureThread(threadId, "default");
    const fold = new Reconstructor();
    for (const [k, runId] of [`${threadId}-r1`, `${threadId}-r2`].entries()) {
      const merger = new DeltaMerger(COMPACTED_MAX_CHARS_PER_RUN);
      for (const e of await store.append(threadId, runEvents(runId, k, k === 0))) {
        fold.push(e);
        merger.push(e);
      }
      const end: WorkflowEvent = { type: "workflow.completed", data: { runId } };
      fold.push({ ...end, threadId, runId, seq: fold.lastSeq + 1, at: Date.now() } as StoredEvent);
      await store.append(threadId, [end], { checkpoint: fold.toState(), compacted: merger.take() });
    }
  }

  const connect = async (threadId: string, cursor: string, query = "") => {
    const pages = await serverMetric(server, "threadline_stream_log_pages_total");
    const frames = await (await postSse(`${server.url}/api/agents/default/connect${query}`, { threadId }, { "Last-Event-ID": cursor })).done;
    return { frames, pages: (await serverMetric(server, "threadline_stream_log_pages_total")) - pages };
  };
  const plain = (frames: SseFrame[]) => frames.map((f) => ({ id: f.id!, event: f.event as never }));
  const view = (frames: SseFrame[]) => clientView(frames.map((f) => f.event));

  it(`a run's end stores each stretch of consecutive deltas as one event, and only those of ${MIN_STRETCH_EVENTS} or more`, async () => {
    const threadId = `t-cc-rows-${backend}`;
    await writeThread(threadId);
    const rows = await server.store.readCompacted(threadId, 0, 100);
    // Per run: the reasoning (40), the text before the patch (40) and after it (40); not the 4 arguments.
    expect(rows.map((m) => [m.event.type, m.event.seq - m.fromSeq + 1])).toEqual([0, 1].flatMap(() => [["reasoning.delta", 40], ["text.delta", 40], ["text.delta", 40]]));
    const log = await server.store.read(threadId);
    for (const m of rows) {
      const stretch = log.filter((e) => e.seq >= m.fromSeq && e.seq <= m.event.seq);
      expect(m.event.data).toMatchObject({ delta: stretch.map((e) => (e.data as { delta: string }).delta).join("") });
      expect(m.event.at).toBe(stretch.at(-1)!.at);
    }
    // The bound of the store's read: a limit of 3 gives the first 3, after a position the rest.
    expect((await server.store.readCompacted(threadId, 0, 3)).map((m) => m.event.seq)).toEqual(rows.slice(0, 3).map((m) => m.event.seq));
    expect((await server.store.readCompacted(threadId, rows[3]!.fromSeq, 100)).map((m) => m.event.seq)).toEqual(rows.slice(3).map((m) => m.event.seq));
  });

  it("from cursor 0: the compacted form merges the stretches, ?replay=exact is the log one for one, and both leave a client with the same", async () => {
    const threadId = `t-cc-zero-${backend}`;
    await writeThread(threadId);
    const exact = await connect(threadId, "0", "?replay=exact");
    const compacted = await connect(threadId, "0");
    const contents = (fs: SseFrame[]) => fs.filter((f) => f.event.type === "TEXT_MESSAGE_CONTENT").length;
    expect(contents(exact.frames)).toBe(160);
    expect(contents(compacted.frames)).toBe(4); // two per answer: the state patch stands between
    expect(compacted.frames.length).toBe(exact.frames.length - 2 * 3 * 39);
    expect(matchesMerged(plain(exact.frames), plain(compacted.frames))).toEqual({ ok: true });
    expect(view(compacted.frames)).toEqual(view(exact.frames));
    // Statements: the 6 stretches (one read of up to 8), the log before, between and after them.
    const logLength = (await server.store.read(threadId)).length;
    expect(exact.pages).toBe(Math.floor(logLength / server.store.logPageSize) + 1);
    expect(compacted.pages).toBe(1 + 7);
    // The exact replay is what it always was: every frame a client that never left got, in order.
    expect(exact.frames.map((f) => f.id)).toEqual([...exact.frames.map((f) => f.id)].sort((x, y) => Number(x) - Number(y)));
  });

  it("a client cut off anywhere in a compacted replay, resuming with the last id it got, ends where the exact replay ends", async () => {
    const threadId = `t-cc-cut-${backend}`;
    await writeThread(threadId);
    const exact = (await connect(threadId, "0", "?replay=exact")).frames;
    const compacted = (await connect(threadId, "0")).frames;
    const whole = view(exact);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: compacted.length - 1 }), fc.boolean(), async (cut, alsoFromExact) => {
        // What the client got before the cut: a compacted prefix (or, half the time, an exact one).
        const got = alsoFromExact ? exact.slice(0, Math.min(cut, exact.length - 1) + 1) : compacted.slice(0, cut + 1);
        const rest = (await connect(threadId, got.at(-1)!.id!)).frames;
        const ids = [...got, ...rest].map((f) => f.id);
        expect(new Set(ids).size).toBe(ids.length); // no duplicate
        expect(view([...got, ...rest])).toEqual(whole); // no loss
        // And the rest is the exact rest with stretches merged, never other frames.
        const exactRest = exact.slice(exact.findIndex((f) => f.id === got.at(-1)!.id) + 1);
        expect(matchesMerged(plain(exactRest), plain(rest))).toEqual({ ok: true });
      }),
      { numRuns: 25 },
    );
  });

  it("a cursor inside a stretch reads that stretch from the log, and later ones compacted", async () => {
    const threadId = `t-cc-inside-${backend}`;
    await writeThread(threadId);
    const exact = (await connect(threadId, "0", "?replay=exact")).frames;
    const firstText = exact.findIndex((f) => f.event.type === "TEXT_MESSAGE_CONTENT");
    const cursor = exact[firstText + 3]!.id!;
    const rest = (await connect(threadId, cursor)).frames;
    const texts = rest.filter((f) => f.event.type === "TEXT_MESSAGE_CONTENT").map((f) => (f.event as unknown as { delta: string }).delta);
    // The first run's first stretch (the cursor's): its 36 remaining deltas one by one; then merged.
    expect(texts.slice(0, 36)).toEqual(deltas(40, "w0-").slice(4));
    expect(texts.length).toBe(36 + 3);
    expect(view([...exact.slice(0, firstText + 4), ...rest])).toEqual(view(exact));
  });

  it("the real @ag-ui/client of both versions ends with the same messages and state from either form", async () => {
    const threadId = `t-cc-clients-${backend}`;
    await writeThread(threadId);
    for (const version of CLIENT_VERSIONS) {
      const run = (query: string) =>
        runClient(version, { url: `${server.url}/api/agents/default/connect${query}`, input: { threadId }, headers: { "Last-Event-ID": "0" } });
      const [exact, compacted] = [await run("?replay=exact"), await run("")];
      expect(exact.failed, `${version}: ${exact.error?.message}`).toBe(false);
      expect(compacted.failed, `${version}: ${compacted.error?.message}`).toBe(false);
      expect(compacted.messages).toEqual(exact.messages);
      expect(compacted.state).toEqual(exact.state);
      expect(compacted.events.length).toBeLessThan(exact.events.length);
    }
  });

  it("a run the engine executed writes its stretches with its end, and a catch-up sends them merged", async () => {
    const threadId = `t-cc-engine-${backend}`;
    const frames = await (await postSse(`${server.url}/api/agents/default/run`, { threadId, runId: "r1", messages: [{ id: "u1", role: "user", content: "hello" }], state: {} })).done;
    expect(frames.at(-1)?.event.type).toBe("RUN_FINISHED");
    const live = frames.filter((f) => f.event.type === "TEXT_MESSAGE_CONTENT").length;
    expect(live).toBeGreaterThan(1);
    const rows = await server.store.readCompacted(threadId, 0, 100);
    expect(rows.length).toBeGreaterThan(0);
    const replay = (await connect(threadId, frames[0]!.id!)).frames;
    expect(replay.filter((f) => f.event.type === "TEXT_MESSAGE_CONTENT").length).toBeLessThan(live);
    expect(matchesMerged(plain(frames.slice(1)), plain(replay))).toEqual({ ok: true });
  });

  it("?replay= takes exact or compacted, and answers anything else with 400 and the reason", async () => {
    for (const bad of ["?replay=fast", "?replay=exact&replay=exact"]) {
      const res = await fetch(`${server.url}/api/agents/default/connect${bad}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ threadId: "t-none" }) });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: "INVALID_CONNECT_INPUT", issues: [{ path: expect.stringContaining("replay") }] } });
    }
  });
});
