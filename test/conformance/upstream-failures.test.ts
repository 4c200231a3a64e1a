/**
 * 8. The upstream answers HTTP 500: exactly one RUN_ERROR with a code, the thread is FAILED, and a
 *    later run on the same thread works.
 * 9. The upstream drops the connection mid-stream: the open text message is closed, then one
 *    RUN_ERROR; no RUN_FINISHED, and the response ends.
 */
import { randomUUID } from "node:crypto";
import type { Fixture } from "@copilotkit/aimock";
import type { Message } from "@ag-ui/core";
import { expect, it } from "vitest";
import { CLIENT_VERSIONS, runClient } from "../support/agui-clients.ts";
import { count, expectAccepted, expectBracketed, expectLifecyclesClosed, ofType, streamedText, types } from "./support/expect.ts";
import { conformanceSuite, local, newThreadId } from "./support/kit.ts";
import { postRun } from "./support/sse.ts";

const LONG = "This answer is long enough to be cut into many small chunks before it is complete.";
const fixtures: Fixture[] = [
  { match: { userMessage: "[boom]" }, response: { error: { message: "upstream exploded", type: "server_error" }, status: 500 } },
  // A small latency makes the chunks leave before the cut (else the whole body is lost unsent).
  { match: { userMessage: "[drop]" }, response: { content: LONG }, truncateAfterChunks: 4, latency: 5 },
  { match: { userMessage: "[again]" }, response: { content: "Back to normal." } },
];

const user = (text: string): Message => ({ id: `u-${randomUUID()}`, role: "user", content: text });

conformanceSuite("upstream failures", { fixtures }, (target) => {
  it.each(CLIENT_VERSIONS)("turns an upstream 500 into one RUN_ERROR; the thread recovers (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const threadId = newThreadId(`boom-${version}`);
    const run1 = await runClient(version, { url: t.runUrl(), input: { threadId, messages: [user("[boom] hello")] } });
    expectAccepted(run1); // RUN_ERROR is a valid end of a run, not a protocol failure
    expectBracketed(run1.events, { threadId, terminal: "RUN_ERROR" });
    const [error] = ofType(run1.events, "RUN_ERROR");
    expect(error).toMatchObject({ code: "UPSTREAM_HTTP_500" });
    expect(String(error!.message)).toMatch(/500/);
    expect(count(run1.events, "RUN_FINISHED")).toBe(0);
    expect((await kit.thread(threadId)).status).toBe("FAILED");

    // The same thread takes the next message.
    const run2 = await runClient(version, {
      url: t.runUrl(),
      input: { threadId, messages: [...run1.messages, user("[again] are you there?")] },
    });
    expectAccepted(run2);
    expectBracketed(run2.events, { threadId, terminal: "RUN_FINISHED" });
    expect(streamedText(run2.events)).toBe("Back to normal.");
    const thread = await kit.thread(threadId);
    expect(thread.status).toBe("WAITING");
    expect(thread.messages.map((m) => m.role)).toEqual(["user", "user", "assistant"]);
  });

  it.each(CLIENT_VERSIONS)("closes the open text and ends with one RUN_ERROR when the upstream drops (@ag-ui/client %s)", async (version) => {
    const t = target();
    const kit = local(t);
    const threadId = newThreadId(`drop-${version}`);
    const out = await runClient(version, { url: t.runUrl(), input: { threadId, messages: [user("[drop] tell me a story")] } });
    expectAccepted(out);
    expectBracketed(out.events, { threadId, terminal: "RUN_ERROR" });
    expectLifecyclesClosed(out.events);
    const seq = types(out.events);
    expect(seq).toContain("TEXT_MESSAGE_CONTENT"); // some text got through before the cut
    // The cut message is closed (expectLifecyclesClosed: END after its last CONTENT, before the
    // end of the run), and nothing of the message follows the error.
    expect(seq.at(-1)).toBe("RUN_ERROR");
    expect(seq.lastIndexOf("TEXT_MESSAGE_END")).toBeGreaterThan(seq.lastIndexOf("TEXT_MESSAGE_CONTENT"));
    expect(ofType(out.events, "RUN_ERROR")[0]).toMatchObject({ code: "UPSTREAM_STREAM_BROKEN" });
    expect(count(out.events, "RUN_FINISHED")).toBe(0);
    const partial = streamedText(out.events);
    expect(LONG.startsWith(partial) && partial.length < LONG.length).toBe(true);
    expect((await kit.thread(threadId)).status).toBe("FAILED");
  });

  it("ends the HTTP response right after the RUN_ERROR frame", async () => {
    const t = target();
    const threadId = newThreadId("drop-raw");
    const res = await postRun(t.runUrl(), { threadId, runId: `run-${randomUUID()}`, messages: [user("[drop] once more")] });
    expect(res.status).toBe(200);
    const frames = res.sse.frames.map((f) => f.event.type);
    expect(frames.filter((x) => x === "RUN_ERROR")).toHaveLength(1);
    expect(frames.at(-1)).toBe("RUN_ERROR");
    expect(frames).not.toContain("RUN_FINISHED");
    expect(res.sse.trailing).toBe("");
  });
});
