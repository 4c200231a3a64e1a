/**
 * 10. Time to first frame. The upstream streams slowly (a delay before every chunk); the first
 * TEXT_MESSAGE_CONTENT must reach the client while the upstream is still streaming, i.e. the
 * server neither buffers the answer nor waits for the LLM to finish. An UpstreamRecorder between
 * the server and aimock marks the end of each upstream response in a timeline the test also marks:
 * the check is on the order of the marks, not on clock values.
 */
import { randomUUID } from "node:crypto";
import type { Fixture } from "@copilotkit/aimock";
import type { Message } from "@ag-ui/core";
import { expect, it } from "vitest";
import { CLIENT_VERSIONS } from "../support/agui-clients.ts";
import { expectBracketed, streamedText } from "./support/expect.ts";
import { conformanceSuite, local, newThreadId } from "./support/kit.ts";
import { runObserved } from "./support/observed-client.ts";
import { openRun } from "./support/sse.ts";
import type { UpstreamRecorder } from "./support/upstream-recorder.ts";

const SLOW = "Every word of this answer arrives after a pause, the way a slow model types.";
const fixtures: Fixture[] = [{ match: { userMessage: "[slow]" }, response: { content: SLOW }, latency: 40 }];

const user = (): Message => ({ id: `u-${randomUUID()}`, role: "user", content: "[slow] take your time" });

/** The marks added since `from`: exactly one upstream request, and where its end and `mark` fall. */
function order(rec: UpstreamRecorder, from: number, mark: string) {
  const marks = rec.timeline.slice(from).map((m) => m.what);
  const requests = marks.filter((m) => m.startsWith("upstream-request:"));
  expect(requests).toHaveLength(1);
  const id = requests[0]!.split(":")[1];
  return { client: marks.indexOf(mark), upstreamEnd: marks.indexOf(`upstream-end:${id}`), marks };
}

conformanceSuite("time to first frame", { fixtures, recordUpstream: true }, (target) => {
  it("sends the first content frame on the wire while the upstream still streams", async () => {
    const t = target();
    const rec = local(t).recorder!;
    const from = rec.timeline.length;
    const stream = await openRun(t.runUrl(), { threadId: newThreadId("ttff-raw"), runId: `run-${randomUUID()}`, messages: [user()] });
    const first = await stream.until((f) => f.event.type === "TEXT_MESSAGE_CONTENT");
    rec.mark("wire-first-content");
    expect(rec.inFlight()).toBe(1); // the upstream response is still open right now
    const rest = await stream.rest();
    expect(rest.at(-1)?.event.type).toBe("RUN_FINISHED");
    const { client, upstreamEnd, marks } = order(rec, from, "wire-first-content");
    expect(upstreamEnd, marks.join(" < ")).toBeGreaterThan(client);
    expect(String(first.event.delta).length).toBeGreaterThan(0);
  });

  it.each(CLIENT_VERSIONS)("delivers the first TEXT_MESSAGE_CONTENT to @ag-ui/client %s before the upstream ends", async (version) => {
    const t = target();
    const rec = local(t).recorder!;
    const from = rec.timeline.length;
    let seen = false;
    const run = await runObserved(version, {
      url: t.runUrl(),
      threadId: newThreadId(`ttff-${version}`),
      messages: [user()],
      onEvent: (e) => {
        if (e.type !== "TEXT_MESSAGE_CONTENT" || seen) return;
        seen = true;
        rec.mark("client-first-content");
      },
    });
    expect(run.error?.message).toBeUndefined();
    expectBracketed(run.events, { terminal: "RUN_FINISHED" });
    expect(streamedText(run.events)).toBe(SLOW);
    const { client, upstreamEnd, marks } = order(rec, from, "client-first-content");
    expect(client, marks.join(" < ")).toBeGreaterThanOrEqual(0);
    expect(upstreamEnd, marks.join(" < ")).toBeGreaterThan(client);
  });
});
