/**
 * Checkpoints through the engine: every run's end stores the thread's fold in the commit of its
 * terminal event, and that fold equals what folding the whole log gives (conversation, state,
 * usage, tool calls), through tool calls, shared state, a failure and a cancel. A later run's
 * admission and a reload start from it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reconstruct, Reconstructor } from "../../protocol/reconstruct.ts";
import { startDemoUpstream } from "../../server/demo/upstream.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
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
  const turn = async (threadId: string, text: string, history: object[]) => {
    const message = { id: `u-${++n}`, role: "user", content: text };
    const frames = await (await postSse(`${server.url}/api/agents/default/run`, {
      threadId, runId: `r-${n}`, messages: [...history, message], state: {},
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
    const history: object[] = [];
    for (const text of ["What is the weather in Paris?", "add tasks please", "make a plan", "Simulate an upstream failure", "hello"]) {
      const { frames, message } = await turn(threadId, text, history);
      expect(["RUN_FINISHED", "RUN_ERROR"]).toContain(frames.at(-1)?.event.type);
      history.push(message);
      await server.threadline.engine.idle();
      await expectCheckpointEqualsLog(threadId);
    }
  });

  it("the thread view and a run's admission start from the checkpoint", async () => {
    const threadId = `t-cp-view-${backend}`;
    const first = await turn(threadId, "What is the weather in Paris?", []);
    await server.threadline.engine.idle();
    const cp = await server.store.readCheckpoint(threadId);
    expect(cp).not.toBeNull();
    // The same conversation whether read from the checkpoint or not.
    const view = (await (await fetch(`${server.url}/api/threads/${threadId}`)).json()) as { messages: { id: string }[] };
    expect(view.messages.map((m) => m.id)).toEqual(cp!.fold.messages.map((m) => m.id));
    // A second run still sees the first: the model is answered in context, and the checkpoint moves.
    const second = await turn(threadId, "hello", [first.message]);
    expect(second.frames.at(-1)?.event.type).toBe("RUN_FINISHED");
    await server.threadline.engine.idle();
    expect((await server.store.readCheckpoint(threadId))!.seq).toBeGreaterThan(cp!.seq);
    await expectCheckpointEqualsLog(threadId);
  });
});
