/**
 * A Model that ignores its abort signal (an application's own, or an SDK whose aborted stream
 * never ends) cannot hold a run: a cancel ends the run CANCELLED, and the thread takes the next
 * message. The engine bounds the stream itself (server/models/until-aborted.ts).
 */
import { describe, expect, it } from "vitest";
import { defineAgent } from "../../server/agents/define.ts";
import type { Model, ModelPart } from "../../server/models/model.ts";
import { backends, startTestServer } from "../support/server.ts";
import { isType, postSse } from "../support/sse-client.ts";
import { runBody, user } from "./support.ts";

/** Streams one word, then waits for ever, whatever its signal says; answers "done" once `deafTo` is spent. */
function deafModel(): Model & { requests: number } {
  const model = {
    id: "test:deaf",
    requests: 0,
    async *stream(): AsyncGenerator<ModelPart, void, undefined> {
      model.requests++;
      if (model.requests > 1) {
        yield { type: "text-delta", delta: "done" };
        yield { type: "finish", reason: "stop" };
        return;
      }
      yield { type: "text-delta", delta: "thinking" };
      await new Promise<never>(() => {});
    },
  };
  return model;
}

describe.each(backends())("a model deaf to its abort on %s", (backend) => {
  it("a cancel ends the run CANCELLED, and the next message is answered", async () => {
    const model = deafModel();
    const agent = defineAgent({ id: "deaf", instructions: "Test agent." });
    const server = await startTestServer({ backend, agents: [agent], model });
    try {
      const stream = await postSse(`${server.url}/api/agents/deaf/run`, runBody("t-deaf", [user("hello")]));
      await stream.waitFor(isType("TEXT_MESSAGE_CONTENT"));
      const res = await fetch(`${server.url}/api/threads/t-deaf/cancel`, { method: "POST" });
      expect(res.status).toBe(200);
      const frames = await stream.done;
      expect(frames.at(-1)?.event).toMatchObject({ type: "RUN_ERROR", code: "CANCELLED" });
      expect((await server.store.getThread("t-deaf"))?.status).toBe("CANCELLED");

      const next = await postSse(`${server.url}/api/agents/deaf/run`, runBody("t-deaf", [user("hello"), { id: "a-x", role: "assistant", content: "thinking" }, user("again")]));
      expect((await next.done).at(-1)?.event.type).toBe("RUN_FINISHED");
      expect(model.requests).toBe(2);
    } finally {
      await server.close();
    }
  });
});
