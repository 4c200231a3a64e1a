/**
 * Cancel through POST /api/threads/:id/cancel: the thread goes CANCELLING then CANCELLED, a
 * running tool gets the abort signal, the upstream LLM request is aborted (the upstream sees
 * its connection closed), and attached clients get one RUN_ERROR{code:"CANCELLED"} that both
 * @ag-ui/client versions accept. A later run reopens the thread.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_VERSIONS, cancelledEnd, runClient } from "../support/agui-clients.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
import { postSse } from "../support/sse-client.ts";
import { sseChunk, sseHead, startRawUpstream, type RawUpstream } from "../llm/support.ts";
import { gatedAgent, startGatedUpstream } from "./support.ts";

const cancel = async (server: TestServer, threadId: string) => {
  const res = await fetch(`${server.url}/api/threads/${threadId}/cancel`, { method: "POST" });
  return { status: res.status, body: (await res.json()) as { status: string; cancelled: boolean } };
};

describe.each(backends())("cancel on %s", (backend) => {
  describe("a running tool", () => {
    let upstream: Awaited<ReturnType<typeof startGatedUpstream>>;
    beforeAll(async () => {
      upstream = await startGatedUpstream();
    });
    afterAll(() => upstream.mock.stop());

    it("gets the abort signal; the thread ends CANCELLED; a later run reopens it", async () => {
      const gated = gatedAgent();
      const server = await startTestServer({ backend, llmUrl: upstream.url, agents: [gated.agent] });
      try {
        const stream = await postSse(`${server.url}/api/agents/gated/run`, {
          threadId: "t-cancel-tool", runId: "r1", messages: [{ id: "u1", role: "user", content: "one step" }],
        });
        await gated.started.next();
        const { status, body } = await cancel(server, "t-cancel-tool");
        expect(status).toBe(200);
        expect(body).toMatchObject({ cancelled: true, status: "CANCELLED" });
        expect(gated.aborted).toEqual(["only"]);

        const frames = await stream.done;
        const terminals = frames.filter((f) => f.event.type === "RUN_ERROR" || f.event.type === "RUN_FINISHED");
        expect(terminals.map((f) => f.event)).toEqual([expect.objectContaining({ type: "RUN_ERROR", code: "CANCELLED" })]);
        const statuses = (await server.store.read("t-cancel-tool")).map((e) => e.type).filter((t) => t.startsWith("workflow."));
        expect(statuses).toEqual(["workflow.started", "workflow.cancelling", "workflow.cancelled"]);

        // Cancelling a settled thread is a no-op that says so.
        expect((await cancel(server, "t-cancel-tool")).body).toMatchObject({ cancelled: false, status: "CANCELLED" });

        const again = await postSse(`${server.url}/api/agents/gated/run`, {
          threadId: "t-cancel-tool", runId: "r2", messages: [{ id: "u2", role: "user", content: "hello again" }],
        });
        expect((await again.done).at(-1)?.event).toMatchObject({ type: "RUN_FINISHED", runId: "r2" });
      } finally {
        gated.release.open();
        await server.close();
      }
    });
  });

  describe("a streaming LLM request", () => {
    let upstream: RawUpstream;
    let server: TestServer;
    beforeAll(async () => {
      // An upstream that sends one token and then holds the stream open until the client leaves.
      upstream = await startRawUpstream((_req, res) => {
        sseHead(res);
        res.write(sseChunk({ role: "assistant", content: "Thinking very slowly" }));
      });
      server = await startTestServer({ backend, llmUrl: upstream.url });
    });
    afterAll(async () => {
      await server.close();
      await upstream.close();
    });

    it.each(CLIENT_VERSIONS)("is aborted upstream, and @ag-ui/client %s accepts the cancelled run", async (version) => {
      const threadId = `t-cancel-llm-${version}`;
      const index = version === CLIENT_VERSIONS[0] ? 0 : 1;
      const client = runClient(version, {
        url: `${server.url}/api/agents/default/run`,
        input: { threadId, messages: [{ id: "u1", role: "user", content: "take your time" }] },
      });
      await upstream.arrived(index);
      // The token reached the log before we cancel: the text message is open when the run ends.
      await waitForType(server, threadId, "text.delta");
      const { body } = await cancel(server, threadId);
      expect(body.status).toBe("CANCELLED");
      await upstream.closed(index);

      const out = await client;
      expect(out.error?.message).toBeUndefined();
      expect(out.failed).toBe(false);
      const types = out.events.map((e) => e.type);
      expect(out.events.at(-1)).toMatchObject(cancelledEnd(version));
      expect(types.filter((t) => t === "RUN_ERROR" || t === "RUN_FINISHED")).toHaveLength(1);
      expect(types).toContain("TEXT_MESSAGE_END");
      expect(out.events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT")).toHaveLength(1);
    });
  });
});

async function waitForType(server: TestServer, threadId: string, type: string): Promise<void> {
  const stop = new AbortController();
  try {
    for await (const batch of server.store.follow(threadId, 0, stop.signal)) if (batch.some((e) => e.type === type)) return;
  } finally {
    stop.abort();
  }
}
