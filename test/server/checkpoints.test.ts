/**
 * Checkpoints through the engine: every run's end stores the thread's fold in the commit of its
 * terminal event, and that fold equals what folding the whole log gives (conversation, state,
 * usage, tool calls), through tool calls, shared state, a failure and a cancel. A later run's
 * admission and a reload start from it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredEvent, WorkflowEvent } from "../../protocol/events.ts";
import { parseFrameId } from "../../protocol/frames.ts";
import { reconstruct, Reconstructor } from "../../protocol/reconstruct.ts";
import { Replay } from "../../protocol/replay.ts";
import { startDemoUpstream } from "../support/demo-upstream.ts";
import { backends, serverMetric, startTestServer, type TestServer } from "../support/server.ts";
import { postSse } from "../support/sse-client.ts";

describe.each(backends())("checkpoints on %s", (backend) => {
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

  let n = 0;
  const turn = async (threadId: string, text: string) => {
    const message = { id: `u-${++n}`, role: "user", content: text };
    const frames = await (await postSse(`${server.url}/api/agents/default/run`, {
      // Only the new message: the thread holds the rest. Its user messages without the answers
      // would be a stale copy of the thread, refused (STALE_HISTORY).
      threadId, runId: `r-${n}`, messages: [message], state: {},
    })).done;
    return { frames, message };
  };

  /** The checkpoint stands for the whole log: same position, same fold. */
  async function expectCheckpointEqualsLog(threadId: string) {
    const thread = await server.store.getThread(threadId);
    const cp = await server.store.readCheckpoint(threadId);
    expect(cp?.seq).toBe(thread!.lastSeq);
    const whole = reconstruct(await server.store.read(threadId), { status: thread!.status });
    const fromCheckpoint = Reconstructor.from(cp!).snapshot({ status: thread!.status });
    expect(fromCheckpoint).toEqual(whole);
  }

  it("after every kind of run end, the checkpoint equals the fold of the whole log", async () => {
    const threadId = `t-cp-${backend}`;
    for (const text of ["What is the weather in Paris?", "add tasks please", "make a plan", "Simulate an upstream failure", "hello"]) {
      const { frames } = await turn(threadId, text);
      expect(["RUN_FINISHED", "RUN_ERROR"]).toContain(frames.at(-1)?.event.type);
      await server.threadline.engine.idle();
      await expectCheckpointEqualsLog(threadId);
    }
  });

  it("the thread view and a run's admission start from the checkpoint", async () => {
    const threadId = `t-cp-view-${backend}`;
    await turn(threadId, "What is the weather in Paris?");
    await server.threadline.engine.idle();
    const cp = await server.store.readCheckpoint(threadId);
    expect(cp).not.toBeNull();
    // The same conversation whether read from the checkpoint or not.
    const view = (await (await fetch(`${server.url}/api/threads/${threadId}`)).json()) as { messages: { id: string }[] };
    expect(view.messages.map((m) => m.id)).toEqual(cp!.fold.messages.map((m) => m.id));
    // A second run still sees the first: the model is answered in context, and the checkpoint moves.
    const second = await turn(threadId, "hello");
    expect(second.frames.at(-1)?.event.type).toBe("RUN_FINISHED");
    await server.threadline.engine.idle();
    expect((await server.store.readCheckpoint(threadId))!.seq).toBeGreaterThan(cp!.seq);
    await expectCheckpointEqualsLog(threadId);
  });

  it("a reload and a resume at or past the checkpoint read only the log after it, and send the frames a replay from seq 1 sends", async () => {
    const threadId = `t-cp-reload-${backend}`;
    const runId = `${threadId}-r1`;
    const store = server.store;
    await store.ensureThread(threadId, "default");
    // One long finished run written straight into the log: its terminal append carries the
    // checkpoint, as the executor's does.
    const events: WorkflowEvent[] = [
      { type: "thread.created", data: { agentId: "default" } },
      { type: "run.accepted", data: { runId, tools: [], context: [] } },
      { type: "message.appended", data: { runId, source: "input", message: { id: "u1", role: "user", content: "long" } } },
      { type: "workflow.started", data: { runId } },
      { type: "state.set", data: { runId, state: { doc: "draft" } } },
      { type: "text.started", data: { runId, messageId: "a1" } },
      ...Array.from({ length: 3 * store.logPageSize }, (): WorkflowEvent => ({ type: "text.delta", data: { runId, messageId: "a1", delta: "tok " } })),
      { type: "text.ended", data: { runId, messageId: "a1" } },
      { type: "message.appended", data: { runId, source: "agent", message: { id: "a1", role: "assistant", content: "tok ".repeat(3 * store.logPageSize) } } },
    ];
    const fold = new Reconstructor();
    for (const e of await store.append(threadId, events)) fold.push(e);
    const end: WorkflowEvent = { type: "workflow.completed", data: { runId } };
    fold.push({ ...end, threadId, runId, seq: fold.lastSeq + 1, at: Date.now() } as StoredEvent);
    const [terminal] = await store.append(threadId, [end], { checkpoint: fold.toState() });
    expect((await store.readCheckpoint(threadId))!.seq).toBe(terminal!.seq);
    const log = await store.read(threadId);

    /** What the replay from seq 1 sends (Replay without the checkpoint, over the whole log). */
    const fromSeqOne = (cursor?: string) => {
      const r = new Replay({ threadId, activeRunId: null, ...(cursor && { cursor: parseFrameId(cursor)! }) });
      return [...log.flatMap((e) => r.push(e)), ...r.endOfBacklog()].map((f) => ({ id: f.id, event: f.event }));
    };
    const connect = async (cursor?: string) => {
      const pages = await serverMetric(server, "threadline_stream_log_pages_total");
      const frames = await (await postSse(`${server.url}/api/agents/default/connect`, { threadId }, cursor ? { "Last-Event-ID": cursor } : {})).done;
      return { frames, pages: (await serverMetric(server, "threadline_stream_log_pages_total")) - pages };
    };
    const json = (frames: { id?: string; event: unknown }[]) => JSON.parse(JSON.stringify(frames.map((f) => ({ id: f.id, event: f.event }))));

    // A reload: the snapshot from the checkpoint, and one (empty) page read after it.
    const reload = await connect();
    expect(reload.frames.map((f) => f.event.type)).toEqual(["RUN_STARTED", "MESSAGES_SNAPSHOT", "STATE_SNAPSHOT", "RUN_FINISHED"]);
    expect(json(reload.frames)).toEqual(json(fromSeqOne()));
    expect(reload.pages).toBe(1);
    // A resume at the checkpoint: nothing after it, one page.
    const resume = await connect(String(terminal!.seq));
    expect(resume.frames).toEqual([]);
    expect(resume.pages).toBe(1);
    // A resume from before the checkpoint needs the projection from seq 1: the whole log is read.
    const early = await connect(String(terminal!.seq - 10));
    expect(json(early.frames)).toEqual(json(fromSeqOne(String(terminal!.seq - 10))));
    expect(early.pages).toBeGreaterThan(3);
    // The thread view: the row's last seq is the checkpoint's, so the log is not read at all.
    const pages = await serverMetric(server, "threadline_stream_log_pages_total");
    const view = (await (await fetch(`${server.url}/api/threads/${threadId}`)).json()) as { messages: unknown[]; state: unknown };
    expect(view).toMatchObject({ state: { doc: "draft" }, messages: [{ id: "u1" }, { id: "a1" }] });
    expect((await serverMetric(server, "threadline_stream_log_pages_total")) - pages).toBe(0);
  });
});
