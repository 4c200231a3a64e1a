/**
 * A run sent to a busy thread: reject (409 naming the active run), enqueue (runs after the
 * active one, in order), interrupt (steering: stop after the current tool, skip the rest, answer
 * the new message next, so a correction lands without losing work already done). Never two active runs on one thread.
 */
import type { LLMock } from "@copilotkit/aimock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
import { isType, postSse } from "../support/sse-client.ts";
import { gatedAgent, runBody, startGatedUpstream, user, type GatedAgent } from "./support.ts";


describe.each(backends())("double texting on %s", (backend) => {
  let upstream: { mock: LLMock; url: string };
  let server: TestServer;
  let gated: GatedAgent;
  const runUrl = () => `${server.url}/api/agents/gated/run`;

  beforeAll(async () => {
    upstream = await startGatedUpstream();
  });
  afterAll(async () => {
    await upstream.mock.stop();
  });
  afterEach(async () => {
    gated.release.open();
    await server.threadline.engine.idle();
    await server.close();
  });
  const start = async () => {
    gated = gatedAgent();
    server = await startTestServer({ backend, llmUrl: upstream.url, agents: [gated.agent] });
  };

  it("reject: a second run on a busy thread gets 409 naming the active run, and nothing is written", async () => {
    await start();
    const first = runBody("t-reject", [user("one step please")]);
    const a = await postSse(runUrl(), first);
    await gated.started.next();
    const before = await server.store.read("t-reject");

    const res = await fetch(runUrl(), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(runBody("t-reject", [user("hello?")])) });
    expect(res.status).toBe(409);
    const body = (await res.json()) as { error: { code: string; activeRunId: string; message: string } };
    expect(body.error.code).toBe("THREAD_BUSY");
    expect(body.error.activeRunId).toBe(first.runId);
    expect(body.error.message).toMatch(/enqueue/);
    expect(await server.store.read("t-reject")).toHaveLength(before.length);

    gated.release.open();
    const frames = await a.done;
    expect(frames.at(-1)?.event.type).toBe("RUN_FINISHED");
  });

  it("two runs sent together to a settled thread: exactly one starts, the other is rejected", async () => {
    await start();
    // "hello" is answered without the gated tool; the two that follow wait at the gate, so the
    // admitted one is still active when the other is decided, however slow the machine is (an
    // open gate let the first finish before the second was read, and both were rightly started).
    const first = await postSse(runUrl(), runBody("t-together", [user("hello")]));
    await first.done;
    const send = () =>
      fetch(runUrl(), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(runBody("t-together", [user("one step please")])) });
    const [x, y] = await Promise.all([send(), send()]);
    expect([x.status, y.status].sort()).toEqual([200, 409]);
    gated.release.open();
    await (x.status === 200 ? x : y).text();
    const started = (await server.store.read("t-together")).filter((e) => e.type === "workflow.started");
    expect(started).toHaveLength(2);
  });

  it("enqueue: the second run waits for the first, then runs, in order", async () => {
    await start();
    const first = runBody("t-enqueue", [user("one step please")]);
    const a = await postSse(runUrl(), first);
    await gated.started.next();
    const second = runBody("t-enqueue", [user("one step please"), user("and then this")], {
      forwardedProps: { threadline: { doubleTexting: "enqueue" } },
    });
    const b = await postSse(runUrl(), second);
    expect(b.status).toBe(200);
    const third = runBody("t-enqueue", [user("and a third")]);
    const c = await postSse(runUrl(), third, { "x-threadline-double-texting": "enqueue" });

    gated.release.open();
    const [fa, fb, fc] = await Promise.all([a.done, b.done, c.done]);
    for (const [frames, runId] of [[fa, first.runId], [fb, second.runId], [fc, third.runId]] as const) {
      expect(frames[0]?.event).toMatchObject({ type: "RUN_STARTED", runId });
      expect(frames.at(-1)?.event).toMatchObject({ type: "RUN_FINISHED", runId });
    }
    const text = (frames: typeof fb) => frames.filter(isType("TEXT_MESSAGE_CONTENT")).map((f) => f.event.delta).join("");
    expect(text(fb)).toBe("answer to: and then this");
    expect(text(fc)).toBe("answer to: and a third");

    // The log never has two open runs: each run's start comes after the previous run's end.
    const log = await server.store.read("t-enqueue");
    const order = log
      .filter((e) => e.type === "workflow.started" || e.type === "workflow.suspended")
      .map((e) => `${e.type === "workflow.started" ? "start" : "end"}:${e.runId}`);
    expect(order).toEqual([
      `start:${first.runId}`, `end:${first.runId}`,
      `start:${second.runId}`, `end:${second.runId}`,
      `start:${third.runId}`, `end:${third.runId}`,
    ]);
  });

  it("interrupt during a tool call: the current tool finishes, the rest is skipped, the new message is answered next", async () => {
    await start();
    const first = runBody("t-interrupt", [user("do two steps")]);
    const a = await postSse(runUrl(), first);
    expect(await gated.started.next()).toBe("first");

    const second = runBody("t-interrupt", [user("do two steps"), user("stop, answer this instead")], {
      forwardedProps: { threadline: { doubleTexting: "interrupt" } },
    });
    const b = await postSse(runUrl(), second);
    expect(b.status).toBe(200);
    // The steering request is in the log before the tool is let go.
    await waitForEvent(server, "t-interrupt", (e) => e.type === "signal.received");
    gated.release.open();

    const [fa, fb] = await Promise.all([a.done, b.done]);
    expect(fa.at(-1)?.event).toMatchObject({ type: "RUN_FINISHED", runId: first.runId });
    const results = fa.filter(isType("TOOL_CALL_RESULT")).map((f) => f.event);
    expect(results).toHaveLength(2);
    expect(results[0]).toMatchObject({ toolCallId: "call-first" });
    expect(String(results[1]!.content)).toMatch(/Skipped/);
    expect(gated.completed.get("first")).toBe(1);
    expect(gated.completed.has("second")).toBe(false);
    // The interrupted run asked the model nothing more: its last frames are the results.
    expect(fa.filter(isType("TEXT_MESSAGE_CONTENT"))).toHaveLength(0);

    const answer = fb.filter(isType("TEXT_MESSAGE_CONTENT")).map((f) => f.event.delta).join("");
    expect(answer).toBe("answer to: stop, answer this instead");
    const thread = (await (await fetch(`${server.url}/api/threads/t-interrupt`)).json()) as { status: string };
    expect(thread.status).toBe("WAITING");
  });
});

async function waitForEvent(server: TestServer, threadId: string, match: (e: { type: string }) => boolean): Promise<void> {
  const stop = new AbortController();
  try {
    for await (const batch of server.store.follow(threadId, 0, stop.signal)) {
      if (batch.some(match)) return;
    }
  } finally {
    stop.abort();
  }
}
