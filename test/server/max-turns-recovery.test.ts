/**
 * maxTurns holds across a recovery: a run whose agent allows 3 model requests makes 2 on
 * instance A, A stops mid-tool (its engine closes: the run is left for recovery, its lease
 * freed), and instance B on the same store takes the run over from the log. B counts on from
 * the 2 requests the log records, so the upstream hears 3 requests in all, and the run ends as
 * documented: FAILED, RUN_ERROR MAX_TURNS_EXCEEDED. Before, B counted from 0 and the upstream
 * heard 5.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool } from "../../server/agents/define.ts";
import { backends, openStore, startTestServer } from "../support/server.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../support/scripted-upstream.ts";
import { postSse } from "../support/sse-client.ts";
import { Signals } from "./support.ts";

const MAX_TURNS = 3;

/** The looping agent: every model answer calls `step`; on A, step "s1" waits until A stops it. */
function looper(instance: "A" | "B", started: Signals<string>) {
  const step = defineTool({
    name: "step",
    description: "One step.",
    inputSchema: z.object({ label: z.string() }),
    async execute({ label }, ctx) {
      started.push(`${instance}:${label}`);
      if (instance === "A" && label === "s1") {
        await new Promise<void>((_resolve, reject) => ctx.signal.addEventListener("abort", () => reject(new Error("stopped")), { once: true }));
      }
      return { label, done: true };
    },
  });
  return defineAgent({ id: "looper", instructions: "Loop.", tools: [step], maxTurns: MAX_TURNS });
}

describe.each(backends())("maxTurns across a recovery on %s", (backend) => {
  let upstream: ScriptedUpstream;
  beforeAll(async () => {
    // Every answer is one more step: the run never ends on its own, only at maxTurns.
    upstream = await startScriptedUpstream((_body, n) => ({ toolCalls: [{ id: `call-${n}`, name: "step", arguments: JSON.stringify({ label: `s${n}` }) }] }));
  });
  afterAll(() => upstream.close());

  it(`the upstream hears at most maxTurns (${MAX_TURNS}) requests over both instances, and the run fails MAX_TURNS_EXCEEDED`, async () => {
    const first = upstream.requests.length;
    const store = openStore(backend);
    const started = new Signals<string>();
    const a = await startTestServer({ backend, llmUrl: upstream.url, store, agents: [looper("A", started)], leaseOwner: "instance-a" });
    let b: Awaited<ReturnType<typeof startTestServer>> | undefined;
    try {
      const threadId = `turns-${backend}`;
      const run = await postSse(`${a.url}/api/agents/looper/run`, { threadId, runId: "r1", messages: [{ id: "u1", role: "user", content: "go" }] });
      expect(await started.next()).toBe("A:s0");
      expect(await started.next()).toBe("A:s1"); // two requests made; A is inside the second step
      expect(upstream.requests.length - first).toBe(2);

      // A stops: its engine aborts the step and leaves the run to whoever claims it next.
      await a.threadline.engine.close();
      // A's stream is left open (it follows the log: the run is not over); the log is what counts.
      void run.done.catch(() => undefined);
      b = await startTestServer({ backend, llmUrl: upstream.url, store, agents: [looper("B", started)], leaseOwner: "instance-b" });
      const frames = await (await postSse(`${b.url}/api/agents/looper/connect`, { threadId, lastSeenEventId: "0" })).done;

      expect(frames.at(-1)?.event).toMatchObject({ type: "RUN_ERROR", code: "MAX_TURNS_EXCEEDED" });
      expect(upstream.requests.length - first).toBe(MAX_TURNS);
      const log = await store.read(threadId);
      expect(log.map((e) => e.type)).toContain("workflow.resumed");
      expect(log.filter((e) => e.type === "task.created" && e.data.kind === "llm")).toHaveLength(MAX_TURNS);
      expect((await store.getThread(threadId))?.status).toBe("FAILED");
    } finally {
      await b?.close();
      await a.close();
      await store.close();
    }
  });
});
