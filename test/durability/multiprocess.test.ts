/**
 * Two server processes, A and B, on one Postgres schema, both alive: a client may follow a run,
 * or cancel it, through the instance that does not execute it.
 *
 * - connect: a run streams on A; a client that leaves A mid-answer and connects to B with the
 *   cursor of the last frame it got receives the rest with no gap and no duplicate: exactly the
 *   frames and ids a client that stayed on A received, live (B learns of A's appends through the
 *   NOTIFY doorbell), and B's response ends after the terminal frame.
 * - cancel: a run streams on A; POST /api/threads/:id/cancel on B. The log says CANCELLING then
 *   CANCELLED, A's stream ends with one RUN_ERROR{code:"CANCELLED"} that both @ag-ui/client
 *   versions accept, and the upstream sees A's LLM request aborted (its connection closed before
 *   the response ended).
 *
 * The kill tests (recovery by another instance) are in multiprocess-recovery.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SPAWN_READY_BOUND_MS } from "../support/server-process.ts";
import { framesAfter } from "../../protocol/project.ts";
import { CLIENT_VERSIONS, cancelledEnd, runClient } from "../support/agui-clients.ts";
import {
  DATABASE_URL,
  assertStrictlyIncreasing,
  connect,
  describeFrames,
  getThread,
  isContent,
  isTerminal,
  noticeSkip,
  pieces,
  postRun,
  startCluster,
  within,
  type Cluster,
} from "../support/multiprocess-kit.ts";
import { lastUserText } from "../support/scripted-upstream.ts";
import type { ServerProcess } from "../support/server-process.ts";

noticeSkip("multiprocess");

describe.skipIf(!DATABASE_URL)("two server processes on one Postgres schema", () => {
  let cluster: Cluster;
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    cluster = await startCluster();
    // Both at once: they also migrate the fresh schema concurrently.
    [a, b] = await Promise.all([cluster.spawn("A"), cluster.spawn("B")]);
  }, SPAWN_READY_BOUND_MS + 30_000);

  afterAll(async () => {
    await cluster?.close();
  }, 30_000);

  it("a client that moves from A to B mid-stream gets the rest, no gap, no duplicate, same ids", async () => {
    const threadId = `mp-connect-${Date.now()}`;
    const words = pieces("word", 12);
    // The model stops twice: after 2 words (the client leaves A), after 5 (it has joined B).
    cluster.upstream.script = () => ({ text: words, holdAfter: [2, 5], chunkDelayMs: 5 });
    const first = cluster.upstream.requests.length;
    const log = cluster.watch(threadId);

    const mover = await postRun(a, "default", { threadId, runId: "r1", text: "tell me something long" });
    void mover.done.catch(() => {});
    await mover.waitFor((f) => f.event.type === "RUN_STARTED");
    // A second client follows the same run on A from the start and stays there to the end.
    const stayer = await connect(a, "default", threadId, "0");
    void stayer.done.catch(() => {});

    const llm = await within(10_000, cluster.upstream.request(first), "A's LLM request");
    await llm.heldAt(2);
    await within(5_000, mover.waitFor((f) => isContent(f) && f.event.delta === words[1]), "the 2nd word on A's stream");
    mover.close();
    const fromA = mover.frames.slice(); // what the client had when it left A
    const cursor = fromA.at(-1)!.id!;

    // While it is away, A streams three more words.
    llm.release();
    await llm.heldAt(5);
    await log.waitFor((e) => e.type === "text.delta" && e.data.delta === words[4], 5_000, "the 5th word in the log");

    const onB = await connect(b, "default", threadId, cursor);
    void onB.done.catch(() => {});
    expect(onB.status).toBe(200);
    // B replays what A appended after the cursor ...
    await within(5_000, onB.waitFor((f) => isContent(f) && f.event.delta === words[4]), "B's replay of the missed words", () =>
      `cursor ${cursor}; upstream sent ${llm.piecesSent}\n-- frames from B:\n${describeFrames(onB.frames)}\n-- log:\n${log.describe()}\n${cluster.output()}`,
    );
    expect(onB.frames.filter(isContent).map((f) => f.event.delta)).toEqual(words.slice(2, 5));
    let ended = false;
    void onB.done.then(() => (ended = true), () => {});
    await new Promise((r) => setImmediate(r));
    expect(ended).toBe(false); // still open: what follows reaches B live, through the doorbell
    // ... then follows A's appends live, until the terminal frame, and ends the response.
    llm.release();
    const rest = await within(10_000, onB.done, "B's connect response to end");
    const reference = await within(10_000, stayer.done, "the client that stayed on A");

    const moved = [...fromA, ...rest];
    assertStrictlyIncreasing(moved);
    expect(rest.length).toBeGreaterThan(0);
    expect(moved.filter(isTerminal)).toHaveLength(1);
    expect(moved.at(-1)?.event).toMatchObject({ type: "RUN_FINISHED", threadId, runId: "r1" });
    expect(moved.filter(isContent).map((f) => f.event.delta).join("")).toBe(words.join(""));
    // The same frames and ids as the client that stayed on A, and as the log's projection.
    expect(moved).toEqual(reference);
    const projected = framesAfter(await cluster.store.read(threadId)).map((f) => ({ id: f.id, event: f.event }));
    expect(moved).toEqual(projected);
    // And B replays the whole run identically once it is over.
    expect(await (await connect(b, "default", threadId, "0")).done).toEqual(reference);

    // Nobody took the run over from A, which was alive all along.
    await log.waitForType("workflow.suspended", 5_000);
    expect(log.types()).not.toContain("workflow.resumed");
    expect((await getThread(b, threadId)).status).toBe("WAITING");
  });

  it.each(CLIENT_VERSIONS)(
    "cancel through B stops the run on A, aborts its LLM request, @ag-ui/client %s accepts the end",
    async (version) => {
      const threadId = `mp-cancel-${version}-${Date.now()}`;
      cluster.upstream.script = (body) => ({
        text: pieces(lastUserText(body).includes("slowly") ? "slow" : "x", 40),
        // Two tokens, then silence until the client (A) goes away.
        holdAfter: 2,
      });
      const first = cluster.upstream.requests.length;
      const log = cluster.watch(threadId);

      const client = runClient(version, {
        url: `${a.url}/api/agents/default/run`,
        input: { threadId, runId: "r1", messages: [{ id: "u1", role: "user", content: "answer slowly" }] },
      });
      const upstreamRequest = await within(10_000, cluster.upstream.request(first), "A's LLM request");
      await upstreamRequest.held;
      await log.waitFor((e) => e.type === "text.delta" && e.data.delta === " slow2", 5_000, "the second token in the log");

      const t0 = Date.now();
      const res = await fetch(`${b.url}/api/threads/${threadId}/cancel`, { method: "POST" });
      const body = (await res.json()) as { cancelled: boolean; status: string; runId: string };
      const cancelMs = Date.now() - t0;
      expect(res.status).toBe(200);
      expect(body).toMatchObject({ cancelled: true, status: "CANCELLED", runId: "r1" });

      // The provider request A was streaming is aborted: its connection closed mid-response.
      const closed = await within(5_000, upstreamRequest.closed, "the upstream connection to close");
      expect(closed.aborted).toBe(true);
      expect(upstreamRequest.piecesSent).toBe(2);

      const out = await within(10_000, client, "the client's run to end");
      expect(out.error?.message).toBeUndefined();
      expect(out.failed).toBe(false);
      const types = out.events.map((e) => e.type);
      expect(types.filter((t) => t === "RUN_ERROR" || t === "RUN_FINISHED")).toHaveLength(1);
      expect(out.events.at(-1)).toMatchObject(cancelledEnd(version));
      expect(types).toContain("TEXT_MESSAGE_END"); // the half-streamed answer is closed first

      // CANCELLING then CANCELLED, in the log; the status everywhere is CANCELLED.
      await log.waitForType("workflow.cancelled", 5_000);
      expect(log.types().filter((t) => t.startsWith("workflow."))).toEqual([
        "workflow.started",
        "workflow.cancelling",
        "workflow.cancelled",
      ]);
      expect((await getThread(a, threadId)).status).toBe("CANCELLED");
      expect((await getThread(b, threadId)).status).toBe("CANCELLED");
      console.info(`[multiprocess] cancel through B (${version}): settled CANCELLED ${cancelMs} ms after the request`);
    },
  );
});
