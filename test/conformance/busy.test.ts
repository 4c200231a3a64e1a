/**
 * 11 (continued). The 409s: a run on a thread whose run is still going (double-texting policy
 * "reject", the default), and a run for a thread that belongs to another agent. Both answer JSON
 * before any stream, and neither writes anything: the rejected run's id and message never reach
 * the log. The first run's upstream answer is held back (an async aimock response) until the
 * second request has been answered, so the thread is busy for sure, without a sleep.
 */
import { randomUUID } from "node:crypto";
import type { Fixture } from "@copilotkit/aimock";
import { expect, it } from "vitest";
import { conformanceSuite, local, newThreadId, TEST_AGENT_ID } from "./support/kit.ts";
import { openRun, post, postRun } from "./support/sse.ts";

/** Holds the upstream's answer back until the test opens it: the first run is surely still going. */
class Gate {
  #open = false;
  #waiters: Array<() => void> = [];
  wait(): Promise<void> {
    return this.#open ? Promise.resolve() : new Promise((resolve) => this.#waiters.push(resolve));
  }
  close(): void {
    this.#open = false;
  }
  open(): void {
    this.#open = true;
    for (const w of this.#waiters.splice(0)) w();
  }
}
const gate = new Gate();

const fixtures: Fixture[] = [
  {
    match: { userMessage: "[busy]" },
    response: async () => {
      await gate.wait();
      return { content: "I waited for the test to let me answer." };
    },
  },
  { match: { userMessage: "[owner]" }, response: { content: "This thread is mine." } },
];

const input = (threadId: string, text: string) => ({
  threadId,
  runId: `run-${randomUUID()}`,
  messages: [{ id: `u-${randomUUID()}`, role: "user", content: text }],
});

conformanceSuite("409 before any stream", { fixtures }, (target) => {
  it("rejects a second run while the thread's run is going, and writes nothing for it", async () => {
    const t = target();
    const { store } = local(t).server;
    const threadId = newThreadId("busy");
    const first = input(threadId, "[busy] take your time");
    gate.close();
    const stream = await openRun(t.runUrl(), first);
    let res: { second: ReturnType<typeof input>; http: Awaited<ReturnType<typeof post>> } | undefined;
    try {
      await stream.until((f) => f.event.type === "RUN_STARTED"); // the thread is running now
      const second = { ...input(threadId, "[busy] me too"), messages: [...first.messages, input(threadId, "x").messages[0]!] };
      res = { second, http: await post(t.runUrl(), { body: second, headers: { Accept: "text/event-stream" } }) };
    } finally {
      gate.open(); // whatever happened, let the first run end
    }
    const { second, http } = res!;
    expect(http.status).toBe(409);
    expect(http.headers["content-type"]).toMatch(/^application\/json/);
    expect(http.json).toMatchObject({ error: { code: "THREAD_BUSY", threadId, activeRunId: first.runId } });
    expect(String((http.json as { error: { message: string } }).error.message)).toMatch(/doubleTexting/);

    const rest = await stream.rest();
    expect(rest.at(-1)?.event.type).toBe("RUN_FINISHED");
    expect(await store.getRun(second.threadId, second.runId)).toBeNull();
    const log = await store.read(threadId);
    expect(log.some((e) => e.runId === second.runId || JSON.stringify(e.data).includes(second.runId))).toBe(false);
    expect(log.some((e) => JSON.stringify(e.data).includes(second.messages[1]!.id))).toBe(false);
  });

  it("rejects a run for a thread that belongs to another agent, and writes nothing", async () => {
    const t = target();
    const { store } = local(t).server;
    const threadId = newThreadId("owner");
    const first = await postRun(t.runUrl("default"), input(threadId, "[owner] hello"));
    expect(first.sse.frames.at(-1)?.event.type).toBe("RUN_FINISHED");
    const before = await store.read(threadId);

    const other = input(threadId, "[owner] hello again");
    const res = await post(t.runUrl(TEST_AGENT_ID), { body: other });
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ error: { code: "THREAD_AGENT_MISMATCH", threadId, agentId: "default" } });
    expect(await store.read(threadId)).toEqual(before);
    expect(await store.getRun(other.threadId, other.runId)).toBeNull();
    expect((await store.getThread(threadId))?.agentId).toBe("default");
  });
});
