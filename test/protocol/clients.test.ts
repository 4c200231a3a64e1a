/**
 * Every projected stream through the REAL clients, @ag-ui/client 1.0.0 and 0.0.59: both must
 * accept it without a warning and end up with the conversation and state the log describes.
 */
import { describe, expect, it } from "vitest";
import type { Message } from "@ag-ui/core";
import { framesAfter, project } from "../../protocol/project.ts";
import { reconstruct, reloadCut, snapshotRunFrames } from "../../protocol/reconstruct.ts";
import { encodeFrame } from "../../protocol/sse.ts";
import type { Frame } from "../../protocol/frames.ts";
import { assertAcceptedByBoth, checkWithBothClients, CLIENT_VERSIONS, type BothOutcomes } from "../support/agui-clients.ts";
import { Log, user } from "./log.ts";
import { scenario, scenarios } from "./scenarios.ts";

const sse = (frames: Frame[]) => frames.map(encodeFrame).join("");

function expectBoth(out: BothOutcomes, messages: Message[], state: unknown): void {
  assertAcceptedByBoth(out);
  for (const v of CLIENT_VERSIONS) {
    expect(out[v].warnings, `warnings of ${v}`).toEqual([]);
    expect(out[v].messages, `messages of ${v}`).toEqual(messages);
    expect(out[v].state, `state of ${v}`).toEqual(state);
  }
}

describe.each(scenarios())("$name", (s) => {
  it("is accepted by both client versions, which end with the expected conversation and state", async () => {
    const frames = project(s.log.events);
    const out = await checkWithBothClients(sse(frames), { initialState: { fromClient: true } });
    expectBoth(out, s.messages, s.state);
    // The clients saw every frame we sent, in order.
    for (const v of CLIENT_VERSIONS) expect(out[v].events.map((e) => e.type)).toEqual(frames.map((f) => f.event.type));
  });
});

describe("run-level outcomes as the clients see them", () => {
  it("a failed or cancelled run ends with RUN_ERROR, which both clients take as the end of the run, not a failure", async () => {
    for (const name of ["failed run (upstream error) with a message left open", "cancellation"]) {
      const out = await checkWithBothClients(sse(project(scenario(name).log.events)));
      for (const v of CLIENT_VERSIONS) {
        expect(out[v].failed).toBe(false);
        expect(out[v].events.at(-1)?.type).toBe("RUN_ERROR");
      }
    }
  });

  it("a suspended run ends with RUN_FINISHED and no outcome (0.0.59 rejects pendingToolCallIds)", async () => {
    const out = await checkWithBothClients(sse(project(scenario("frontend tool suspends the run").log.events)));
    for (const v of CLIENT_VERSIONS) {
      const last = out[v].events.at(-1)!;
      expect(last.type).toBe("RUN_FINISHED");
      expect(last).not.toHaveProperty("outcome");
    }
  });
});

describe("partial streams", () => {
  it("the second run of a thread, after a cursor at the end of the first, is accepted on top of the first run's conversation", async () => {
    const s = scenario("several runs in one thread");
    const firstRunEnd = s.log.events.find((e) => e.type === "workflow.suspended")!.seq;
    const second = framesAfter(s.log.events, `${firstRunEnd}`);
    expect(second[0]?.event.type).toBe("RUN_STARTED");
    const out = await checkWithBothClients(sse(second), { initialMessages: s.messages.slice(0, 2), initialState: { n: 1 } });
    expectBoth(out, s.messages, { n: 2 });
  });

  it.each(scenarios().filter((s) => s.compactable).map((s) => [s.name, s] as const))(
    "a compacted log (stream events removed) replays to the same conversation: %s",
    async (_name, s) => {
      const compacted = s.log.compacted();
      expect(compacted.length).toBeLessThan(s.log.events.length);
      const out = await checkWithBothClients(sse(project(compacted)));
      expectBoth(out, s.messages, s.state);
    },
  );

  it("a reload mid-run: snapshot of the conversation, then the open run from its start", async () => {
    const log = new Log()
      .created()
      .run("r1", { messages: [user("u1", "Hi")], state: { n: 1 } })
      .text("r1", "a1", ["Hello."])
      .assistant("r1", "a1", "Hello.")
      .suspended("r1")
      .run("r2", { messages: [user("u2", "More")], state: { n: 2 } })
      .task("r2", "k1", "llm-1")
      .text("r2", "a2", ["Still typ"], { end: false });
    const cut = reloadCut(log.events);
    expect(cut.openRunId).toBe("r2");
    const frames = [...snapshotRunFrames(log.events, cut.snapshotUpto), ...framesAfter(log.events, `${cut.snapshotUpto}`)];
    // The stream stops mid-run (the live tail would follow); both clients apply what they got.
    const out = await checkWithBothClients(sse(frames));
    for (const v of CLIENT_VERSIONS) {
      expect(out[v].failed, out[v].error?.message).toBe(false);
      expect(out[v].messages.map((m) => [m.id, m.content])).toEqual([
        ["u1", "Hi"],
        ["a1", "Hello."],
        ["u2", "More"],
        ["a2", "Still typ"],
      ]);
      expect(out[v].state).toEqual({ n: 2 });
    }
    // A reload of a settled thread is the snapshot alone, and it is the whole reconstructed conversation.
    const settled = scenario("backend tool call with result and follow-up answer").log.events;
    const whole = reloadCut(settled);
    expect(whole.openRunId).toBeUndefined();
    const snapOut = await checkWithBothClients(sse(snapshotRunFrames(settled, whole.snapshotUpto)), {
      initialMessages: [user("stale", "not in the thread")],
    });
    expectBoth(snapOut, reconstruct(settled).messages, {});
  });
});
