/**
 * The chaos client: one long run (long text, a tool call with long arguments, many state deltas,
 * activity and terminal output) read by a client that hangs up 200 times at seeded random points
 * (mid-text, mid-tool-call, between frames, in the middle of a frame, right after the end) and
 * reconnects each time with its last id, half the time as the `Last-Event-ID` header, half as
 * `lastSeenEventId`. What it received, concatenated, must be the uninterrupted stream of that run,
 * frame for frame: same ids, same payloads, no gap, no duplicate.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareFrameIds } from "../../protocol/frames.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
import { durableAgent, gate, startScriptUpstream, type ScriptUpstream } from "./support/script.ts";
import { isTerminal, prng, readAll, readSse, type Cut, type Frame } from "./support/sse.ts";
import { connectUrl, getThread, maskIds, runUrl } from "./support/threads.ts";

const SEED = Number(process.env.CHAOS_SEED ?? 20_240_601);
const DISCONNECTS = 200;

const runBody = (threadId: string, extra: object = {}) => ({
  threadId,
  runId: `run-${threadId}`,
  messages: [{ id: "u1", role: "user", content: "Do the long job please" }],
  state: { owner: "chaos" },
  tools: [],
  context: [],
  ...extra,
});

type Place = "mid-text" | "mid-tool-call" | "between-frames" | "mid-frame" | "after-end";

/** Where a hang-up happened, judged from what the client had received before it. */
function placesOf(received: Frame[], partial: boolean): Place[] {
  const open = { text: 0, tool: 0 };
  for (const f of received) {
    const t = f.event.type;
    if (t === "TEXT_MESSAGE_START") open.text++;
    if (t === "TEXT_MESSAGE_END") open.text--;
    if (t === "TOOL_CALL_START") open.tool++;
    if (t === "TOOL_CALL_END") open.tool--;
  }
  const places: Place[] = [partial ? "mid-frame" : "between-frames"];
  if (open.text > 0) places.push("mid-text");
  if (open.tool > 0) places.push("mid-tool-call");
  const last = received.at(-1);
  if (last && isTerminal(last)) places.push("after-end");
  return places;
}

const exactConnectUrl = (base: string) => `${connectUrl(base)}?replay=exact`;

describe.each(backends())("chaos client on %s", (backend) => {
  let upstream: ScriptUpstream;
  let server: TestServer;
  const door = gate();
  beforeAll(async () => {
    upstream = await startScriptUpstream({ latencyMs: 3, chunkSize: 3 });
    server = await startTestServer({ backend, llmUrl: upstream.url, agents: [durableAgent({ hold: door.hold })] });
  }, 120_000);
  afterAll(async () => {
    door.open();
    await server?.close();
    await upstream?.stop();
  });

  it(`hears the same stream through ${DISCONNECTS} hang-ups as a client that never left`, { timeout: 180_000 }, async () => {
    // 1. The reference: one uninterrupted run, read by a client that never disconnects.
    const reference = await readAll(runUrl(server.url), runBody("chaos-reference"));
    expect(reference.ended).toBe(true);
    const types = reference.frames.map((f) => f.event.type);
    expect(types.at(-1)).toBe("RUN_FINISHED");
    expect(types.filter((t) => t === "TEXT_MESSAGE_CONTENT").length).toBeGreaterThan(200);
    expect(types.filter((t) => t === "TOOL_CALL_ARGS").length).toBeGreaterThan(100);
    expect(types.filter((t) => t === "STATE_DELTA").length).toBeGreaterThan(20);
    const n = reference.frames.length;

    // 2. The same kind of run, read by the chaos client; an observer on the same thread never leaves.
    const threadId = "chaos-run";
    const t0 = Date.now();
    const random = prng(SEED);
    // ~75% of the frames are spent on the random hang-ups; the last hang-up is right after the end.
    const maxFrames = Math.max(1, Math.floor((1.5 * n) / DISCONNECTS));
    const nextCut = (first: boolean): Cut => ({
      frames: (first ? 1 : 0) + Math.floor(random() * (maxFrames + 1)),
      partial: random() < 0.5,
    });
    const received: Frame[] = [];
    const places = new Map<Place, number>();
    let cursors = { header: 0, body: 0 };
    let disconnects = 0;

    const first = await readSse(runUrl(server.url), { body: runBody(threadId), cut: nextCut(true), random });
    expect(first.status).toBe(200);
    expect(first.cut).toBe(true);
    disconnects++;
    received.push(...first.frames);
    for (const p of placesOf(received, first.partialBytes > 0)) places.set(p, (places.get(p) ?? 0) + 1);
    let runEndedAt = Infinity;
    // Frame for frame against the observer and the reference: the log one for one (?replay=exact),
    // as a resume that lands after the run's end would otherwise get its long stretches merged
    // (test/server/compacted-catchup.test.ts cuts compacted replays).
    const observer = readAll(exactConnectUrl(server.url), { threadId, lastSeenEventId: "0" }).then((r) => {
      runEndedAt = Date.now();
      return r;
    });
    let liveDisconnects = 0;

    while (!received.some(isTerminal)) {
      const last = received.at(-1)!.id;
      const viaHeader = random() < 0.5;
      cursors = viaHeader ? { ...cursors, header: cursors.header + 1 } : { ...cursors, body: cursors.body + 1 };
      // The last hang-up comes right after the terminal frame, before the server ends the response.
      const cut: Cut = disconnects < DISCONNECTS - 1 ? nextCut(false) : { frames: 0, partial: false, afterTerminal: true };
      const got = await readSse(exactConnectUrl(server.url), {
        body: viaHeader ? { threadId } : { threadId, lastSeenEventId: last },
        ...(viaHeader && { headers: { "last-event-id": last } }),
        cut,
        random,
      });
      expect(got.status).toBe(200);
      received.push(...got.frames);
      if (got.cut) {
        disconnects++;
        if (Date.now() < runEndedAt) liveDisconnects++;
        for (const p of placesOf(received, got.partialBytes > 0)) places.set(p, (places.get(p) ?? 0) + 1);
      } else {
        // A connect ends on its own only once the run's terminal frame has gone out.
        expect(got.ended).toBe(true);
        expect(received.some(isTerminal)).toBe(true);
      }
    }

    // No gap, no duplicate: ids strictly increase, and the whole equals what the observer heard.
    for (let i = 1; i < received.length; i++) expect(compareFrameIds(received[i - 1]!.id, received[i]!.id)).toBeLessThan(0);
    const watched = await observer;
    expect(watched.ended).toBe(true);
    expect(received.length).toBe(watched.frames.length);
    expect(received).toEqual(watched.frames);
    // ... and, ids of messages and runs aside, what the reference client heard of its own run.
    expect(received.map((f) => f.id)).toEqual(reference.frames.map((f) => f.id));
    expect(maskIds(received)).toEqual(maskIds(reference.frames));

    if (process.env.CHAOS_DEBUG) console.log({ n, maxFrames, disconnects, liveDisconnects, cursors, places: Object.fromEntries(places), ms: Date.now() - t0 });
    expect(disconnects).toBe(DISCONNECTS);
    // Many hang-ups happened while the run was live (a reconnect then follows its live tail).
    expect(liveDisconnects).toBeGreaterThan(DISCONNECTS / 4);
    expect(cursors.header).toBeGreaterThan(50);
    expect(cursors.body).toBeGreaterThan(50);
    for (const place of ["mid-text", "mid-tool-call", "between-frames", "mid-frame", "after-end"] as const) {
      expect(places.get(place) ?? 0, `hang-ups ${place}`).toBeGreaterThan(0);
    }

    // After the end: a connect with the last id gets an empty stream that ends.
    const last = received.at(-1)!;
    expect(last.event.type).toBe("RUN_FINISHED");
    const tail = await readAll(connectUrl(server.url), { threadId }, { "last-event-id": last.id });
    expect(tail).toMatchObject({ status: 200, ended: true, frames: [] });
    const tailBody = await readAll(connectUrl(server.url), { threadId, lastSeenEventId: last.id });
    expect(tailBody).toMatchObject({ status: 200, ended: true, frames: [] });

    // The run was not disturbed by its original client going away: it finished, WAITING for input.
    const thread = await getThread(server.url, threadId);
    expect(thread.status).toBe("WAITING");
    expect(thread.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(Object.values(thread.toolCalls).map((c) => c.status)).toEqual(["complete"]);
  });

  it("answers a connect to an unknown thread with 200 and an empty stream that ends", async () => {
    const got = await readAll(connectUrl(server.url), { threadId: "no-such-thread" });
    expect(got).toMatchObject({ status: 200, ended: true, frames: [], rawLength: 0 });
    const withCursor = await readAll(connectUrl(server.url), { threadId: "no-such-thread", lastSeenEventId: "12.3" });
    expect(withCursor).toMatchObject({ status: 200, ended: true, frames: [] });
  });

  it("cancels a run posted with onDisconnect: cancel when its client leaves", async () => {
    const threadId = "chaos-cancel-on-disconnect";
    const body = runBody(threadId, {
      messages: [{ id: "u1", role: "user", content: "Please hold on" }],
      forwardedProps: { threadline: { onDisconnect: "cancel" } },
    });
    door.close(); // the run cannot end on its own: only the cancel can end it
    const gone = await readSse(runUrl(server.url), { body, cut: { frames: 5, partial: false } });
    expect(gone.cut).toBe(true);
    expect(gone.frames.at(-1)!.event.type).toBe("TEXT_MESSAGE_CONTENT");
    // Watch it from elsewhere: a live connect ends after the run's terminal frame.
    const rest = await readAll(connectUrl(server.url), { threadId, lastSeenEventId: "0" });
    expect(rest.ended).toBe(true);
    const end = rest.frames.at(-1)!;
    expect(end.event).toMatchObject({ type: "RUN_ERROR", code: "CANCELLED" });
    expect((await getThread(server.url, threadId)).status).toBe("CANCELLED");
  });

  it("lets a run go on when its client leaves without asking for cancel", async () => {
    const threadId = "chaos-continue";
    const body = runBody(threadId, { messages: [{ id: "u1", role: "user", content: "Answer slow please" }] });
    const first = await readSse(runUrl(server.url), { body, cut: { frames: 3, partial: true }, random: prng(SEED + 1) });
    expect(first.cut).toBe(true);
    const rest = await readAll(connectUrl(server.url), { threadId }, { "last-event-id": first.frames.at(-1)!.id });
    expect(rest.frames.at(-1)!.event.type).toBe("RUN_FINISHED");
    const thread = await getThread(server.url, threadId);
    expect(thread.status).toBe("WAITING");
    expect(thread.messages.at(-1)).toMatchObject({ role: "assistant" });
  });
});
