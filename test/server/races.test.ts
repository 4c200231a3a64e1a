/**
 * Defined answers to races: every one of them gets a 2xx or a 4xx, never a 500 or a stream that
 * sends no frame. Each race is made deterministic by a store that runs a step of the other side
 * at the exact point where it would hurt (a thin wrapper over the real store: the database is
 * real, only the order of events is chosen).
 */
import type { LLMock } from "@copilotkit/aimock";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunAgentInput } from "@ag-ui/core";
import { loadConfig } from "../../server/config.ts";
import { AppendError } from "../../server/store/errors.ts";
import type { EventStore } from "../../server/store/types.ts";
import { createThreadline } from "../../server/threadline.ts";
import { backends, openStore, startTestServer, type TestServer } from "../support/server.ts";
import { isType, postSse } from "../support/sse-client.ts";
import { gatedAgent, runBody, startGatedUpstream, user, type GatedAgent } from "./support.ts";


type Hooks = { beforeAdmit?: () => Promise<void>; beforeEnqueue?: () => Promise<void> };

/** The real store, with a hook run once before the next admission or enqueue. */
function interleaved(store: EventStore, hooks: Hooks): EventStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === "append") {
        return async (...args: Parameters<EventStore["append"]>) => {
          const hook = args[2]?.admit ? hooks.beforeAdmit : undefined;
          if (hook) {
            hooks.beforeAdmit = undefined;
            await hook();
          }
          return target.append(...args);
        };
      }
      if (prop === "enqueueRun") {
        return async (...args: Parameters<EventStore["enqueueRun"]>) => {
          const hook = hooks.beforeEnqueue;
          if (hook) {
            hooks.beforeEnqueue = undefined;
            await hook();
          }
          return target.enqueueRun(...args);
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
}

describe.each(backends())("races on %s", (backend) => {
  let upstream: { mock: LLMock; url: string };
  let server: TestServer;
  let store: EventStore;
  let gated: GatedAgent;
  const hooks: Hooks = {};
  const runUrl = () => `${server.url}/api/agents/gated/run`;
  const post = (url: string, body: unknown, method = "POST") =>
    fetch(url, { method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });

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
    await store.close();
  });
  const start = async () => {
    gated = gatedAgent();
    store = openStore(backend);
    server = await startTestServer({ backend, llmUrl: upstream.url, agents: [gated.agent], store: interleaved(store, hooks) });
  };

  it("a reused runId gets 409 RUN_ID_REUSED and writes nothing; another thread may use it", async () => {
    await start();
    const first = runBody("t-reuse", [user("hello")]);
    expect((await (await postSse(runUrl(), first)).done).at(-1)?.event.type).toBe("RUN_FINISHED");
    const before = await store.read("t-reuse");

    const again = { ...runBody("t-reuse", [user("hello"), user("again")]), runId: first.runId };
    const res = await post(runUrl(), again);
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: { code: "RUN_ID_REUSED", threadId: "t-reuse", runId: first.runId } });
    expect(await store.read("t-reuse")).toEqual(before);

    const elsewhere = await postSse(runUrl(), { ...runBody("t-reuse-2", [user("hi")]), runId: first.runId });
    expect((await elsewhere.done).at(-1)?.event).toMatchObject({ type: "RUN_FINISHED", runId: first.runId });
  });

  it("an enqueued run that reuses the active run's id gets 409, and the queue is untouched", async () => {
    await start();
    const first = runBody("t-enq-reuse", [user("one step please")]);
    const a = await postSse(runUrl(), first);
    await gated.started.next();
    const dup = { ...runBody("t-enq-reuse", [user("later")], { forwardedProps: { threadline: { doubleTexting: "enqueue" } } }), runId: first.runId };
    const res = await post(runUrl(), dup);
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: { code: "RUN_ID_REUSED" } });
    expect(await store.nextQueuedRun("t-enq-reuse")).toBeNull();
    gated.release.open();
    expect((await a.done).at(-1)?.event.type).toBe("RUN_FINISHED");
  });

  it("DELETE committed between a run's read of the thread and its admission: the run starts a new thread", async () => {
    await start();
    const first = runBody("t-del-start", [user("hello")]);
    await (await postSse(runUrl(), first)).done;
    hooks.beforeAdmit = async () => {
      expect(await store.deleteThread("t-del-start")).toBe("deleted");
    };
    const second = runBody("t-del-start", [user("fresh start")]);
    const b = await postSse(runUrl(), second);
    expect(b.status).toBe(200);
    const frames = await b.done;
    expect(frames[0]?.event).toMatchObject({ type: "RUN_STARTED", runId: second.runId });
    expect(frames.at(-1)?.event).toMatchObject({ type: "RUN_FINISHED", runId: second.runId });
    const log = await store.read("t-del-start");
    expect(log[0]?.type).toBe("thread.created");
    expect(log.some((e) => e.runId === first.runId)).toBe(false);
  });

  it("DELETE while a run is active or queued is 409 and deletes nothing; after the queue drains it is 204", async () => {
    await start();
    const first = runBody("t-del-busy", [user("one step please")]);
    const a = await postSse(runUrl(), first);
    await gated.started.next();
    const url = `${server.url}/api/threads/t-del-busy`;
    expect((await fetch(url, { method: "DELETE" })).status).toBe(409);

    const queued = runBody("t-del-busy", [user("after that")], { forwardedProps: { threadline: { doubleTexting: "enqueue" } } });
    const b = await postSse(runUrl(), queued);
    expect(b.status).toBe(200);
    const res = await fetch(url, { method: "DELETE" });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: { code: "THREAD_ACTIVE" } });

    gated.release.open();
    const [fa, fb] = await Promise.all([a.done, b.done]);
    expect(fa.at(-1)?.event.type).toBe("RUN_FINISHED");
    expect(fb.filter(isType("TEXT_MESSAGE_CONTENT")).map((f) => f.event.delta).join("")).toBe("answer to: after that");
    await server.threadline.engine.idle();
    expect((await fetch(url, { method: "DELETE" })).status).toBe(204);
    expect((await fetch(url, { method: "DELETE" })).status).toBe(404);
  });

  it("a thread deleted between the busy check and the enqueue: the run starts on a new thread", async () => {
    await start();
    const first = runBody("t-enq-del", [user("one step please")]);
    const a = await postSse(runUrl(), first);
    await gated.started.next();
    hooks.beforeEnqueue = async () => {
      gated.release.open();
      await a.done;
      await server.threadline.engine.idle();
      expect(await store.deleteThread("t-enq-del")).toBe("deleted");
    };
    const queued = runBody("t-enq-del", [user("queued one")], { forwardedProps: { threadline: { doubleTexting: "enqueue" } } });
    const b = await postSse(runUrl(), queued);
    expect(b.status).toBe(200);
    const frames = await b.done;
    expect(frames[0]?.event).toMatchObject({ type: "RUN_STARTED", runId: queued.runId });
    expect(frames.at(-1)?.event).toMatchObject({ type: "RUN_FINISHED", runId: queued.runId });
    expect((await store.getThread("t-enq-del"))?.status).toBe("WAITING");
  });

  it("cancel after the run ended answers 200 with nothing to cancel; cancel of a missing thread is 404", async () => {
    await start();
    const first = runBody("t-cancel-late", [user("hello")]);
    await (await postSse(runUrl(), first)).done;
    const res = await post(`${server.url}/api/threads/t-cancel-late/cancel`, undefined);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ cancelled: false, status: "WAITING" });
    expect((await post(`${server.url}/api/threads/no-such-thread/cancel`, undefined)).status).toBe(404);
  });

  it("a run the database refuses writes nothing: no thread, no lease, and the thread id starts cleanly later", async () => {
    await start();
    const bad = runBody("t-refused", [user("nul \u0000 byte")]) as unknown as RunAgentInput;
    await expect(server.threadline.engine.startRun(gated.agent, bad)).rejects.toBeInstanceOf(AppendError);
    expect(await store.getThread("t-refused")).toBeNull();
    expect(await store.read("t-refused")).toEqual([]);
    const ok = await postSse(runUrl(), runBody("t-refused", [user("hello")]));
    expect((await ok.done).at(-1)?.event.type).toBe("RUN_FINISHED");
  });
});

describe.each(backends())("a failure outside the run loop on %s", (backend) => {
  it("fails that run with RUN_ERROR and FAILED; the process and other runs go on", async () => {
    const upstream = await startGatedUpstream();
    const store = openStore(backend);
    const gated = gatedAgent();
    let calls = 0;
    const threadline = await createThreadline({
      config: loadConfig({ LOG_LEVEL: "silent", OPENAI_BASE_URL: upstream.url }),
      store,
      logger: pino({ level: "silent" }),
      agents: [gated.agent],
      model: () => {
        calls++;
        throw new Error("the model factory broke");
      },
    });
    try {
      const port = await threadline.listen(0, "127.0.0.1");
      const url = `http://127.0.0.1:${port}/api/agents/gated/run`;
      const a = await postSse(url, runBody("t-factory", [user("hello")]));
      const frames = await a.done;
      expect(frames.at(-1)?.event).toMatchObject({ type: "RUN_ERROR", code: "INTERNAL_ERROR" });
      expect(String(frames.at(-1)?.event.message)).toMatch(/model factory broke/);
      expect((await store.getThread("t-factory"))?.status).toBe("FAILED");
      const b = await postSse(url, runBody("t-factory-2", [user("hello")]));
      expect((await b.done).at(-1)?.event.type).toBe("RUN_ERROR");
      expect(calls).toBe(2);
    } finally {
      await threadline.close();
      await store.close();
      await upstream.mock.stop();
    }
  });
});
