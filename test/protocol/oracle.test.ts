/**
 * The oracle checks itself: it must actually run both versions, and tell them apart where
 * shared/reference/agui-protocol.md §2.4 says they differ. A green projection suite means nothing
 * if the oracle accepts everything.
 */
import { describe, expect, it } from "vitest";
import { checkWithBothClients, runClient, serveBody } from "../support/agui-clients.ts";

const frame = (e: object) => `data: ${JSON.stringify(e)}\n\n`;
const RS = { type: "RUN_STARTED", threadId: "t", runId: "r" };
const RF = { type: "RUN_FINISHED", threadId: "t", runId: "r" };

describe("checkWithBothClients", () => {
  it("accepts a minimal valid stream in both versions and applies it", async () => {
    const body = [
      RS,
      { type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "hi" },
      { type: "TEXT_MESSAGE_END", messageId: "m" },
      { type: "STATE_SNAPSHOT", snapshot: { a: 1 } },
      RF,
    ].map(frame).join("");
    const out = await checkWithBothClients(body);
    for (const v of ["1.0.0", "0.0.59"] as const) {
      expect(out[v].failed).toBe(false);
      expect(out[v].messages).toEqual([{ id: "m", role: "assistant", content: "hi" }]);
      expect(out[v].state).toEqual({ a: 1 });
      expect(out[v].events.map((e) => e.type)).toEqual([
        "RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "STATE_SNAPSHOT", "RUN_FINISHED",
      ]);
    }
  });

  it("reports a stream both versions reject (content for a message never started), with the error", async () => {
    const out = await checkWithBothClients([RS, { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "x" }, RF].map(frame).join(""));
    for (const v of ["1.0.0", "0.0.59"] as const) {
      expect(out[v].failed).toBe(true);
      expect(out[v].error?.message).toMatch(/No active text message found with ID 'm'/);
    }
  });

  it("tells the versions apart: outcome.pendingToolCallIds is fine for 1.0.0, fatal for 0.0.59", async () => {
    const out = await checkWithBothClients(
      [RS, { ...RF, outcome: { type: "success", pendingToolCallIds: ["tc"] } }].map(frame).join(""),
    );
    expect(out["1.0.0"].failed).toBe(false);
    expect(out["0.0.59"].failed).toBe(true);
  });

  it("tells the versions apart: a float timestamp is fatal for 1.0.0 only", async () => {
    const out = await checkWithBothClients([{ ...RS, timestamp: 1.5 }, RF].map(frame).join(""));
    expect(out["1.0.0"].failed).toBe(true);
    expect(out["0.0.59"].failed).toBe(false);
  });

  it("records the warnings a client prints, such as 1.0's enforce stage stripping an unknown field", async () => {
    const out = await checkWithBothClients([{ ...RS, notAField: 1 }, RF].map(frame).join(""));
    expect(out["1.0.0"].failed).toBe(false);
    expect(out["1.0.0"].warnings.join("\n")).toMatch(/notAField/);
    expect(out["0.0.59"].warnings).toEqual([]);
  });

  it("passes initial messages and state to the agent, and the request carries them", async () => {
    const server = await serveBody([RS, RF].map(frame).join(""));
    try {
      const out = await runClient("0.0.59", {
        url: server.url,
        input: { threadId: "t", messages: [{ id: "u", role: "user", content: "hi" }], state: { s: 1 } },
      });
      expect(out.failed).toBe(false);
      expect(out.messages).toEqual([{ id: "u", role: "user", content: "hi" }]);
      const sent = JSON.parse(server.requests[0]!.body) as { threadId: string; messages: unknown[]; state: unknown };
      expect(sent).toMatchObject({ threadId: "t", messages: [{ id: "u" }], state: { s: 1 } });
      expect(server.requests[0]!.headers.accept).toBe("text/event-stream");
    } finally {
      await server.close();
    }
  });
});
