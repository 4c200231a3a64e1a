/**
 * Subagent runs in the projection (protocol/project-subagents.ts), over hand-built logs, through
 * the real clients: 1.0 frames for a 1.0 run (SUBAGENT_*, the child's frames attributed, the
 * closes a run's end makes attributed to their opener), CUSTOM `threadline:subagent` for a legacy
 * one, one frame per stored event in both, a child kept open across a recovery and closed with
 * SUBAGENT_ERROR when its run fails.
 */
import type { AGUIEvent, Message } from "@ag-ui/core";
import { describe, expect, it } from "vitest";
import type { WorkflowEvent } from "../../protocol/events.ts";
import type { Frame } from "../../protocol/frames.ts";
import { project } from "../../protocol/project.ts";
import { SUBAGENT_CUSTOM_EVENT } from "../../protocol/project-subagents.ts";
import { encodeFrame } from "../../protocol/sse.ts";
import { checkWithBothClients } from "../support/agui-clients.ts";
import { Log, user } from "./log.ts";

const sse = (frames: Frame[]) => frames.map(encodeFrame).join("");
const A = "call-a~sub";
const B = "call-b~sub";
const calls = [
  { id: "call-a", name: "researcher", args: '{"task":"dig"}' },
  { id: "call-b", name: "critic", args: '{"task":"check"}' },
];

/** The child's version of an event: what the attributed pen writes (server/engine/attributed-pen.ts). */
function child(e: WorkflowEvent, id: string): WorkflowEvent {
  const data = { ...e.data, subagentRunId: id } as Record<string, unknown>;
  if (e.type === "message.appended") data.message = { ...e.data.message, subagentRunId: id };
  return { ...e, data } as WorkflowEvent;
}

/** A lead whose turn calls two children at once; `end` decides how the run ends. */
function lead(end: (log: Log) => Log, opts: { recovered?: boolean } = {}): Log {
  const log = new Log().created("lead");
  log.add({ type: "run.accepted", data: { runId: "r1", protocolVersion: "1.0", tools: [], context: [] } });
  log.add({ type: "message.appended", data: { runId: "r1", source: "input", message: user("u1", "Go") } });
  log.add({ type: "workflow.started", data: { runId: "r1" } });
  log.task("r1", "k1", "llm-request-1").toolCall("r1", "a1", calls[0]!).toolCall("r1", "a1", calls[1]!).assistant("r1", "a1", undefined, calls).taskDone("r1", "k1");
  for (const [id, call, name] of [[A, "call-a", "researcher"], [B, "call-b", "critic"]] as const) {
    log.task("r1", `t-${call}`, `tool-${name}`, call);
    log.add({ type: "subagent.started", data: { runId: "r1", childRunId: id, name, agentId: name, parentToolCallId: call, parentMessageId: "a1" } });
    log.add(child({ type: "message.appended", data: { runId: "r1", source: "agent", message: { id: `${id}-task`, role: "user", content: `task of ${name}` } } }, id));
    log.add(child({ type: "task.created", data: { runId: "r1", taskId: `${id}:llm`, kind: "llm", name: `${id}/llm-request-1` } }, id));
    log.add(child({ type: "text.started", data: { runId: "r1", messageId: `${id}-m` } }, id));
  }
  log.add(child({ type: "text.delta", data: { runId: "r1", messageId: `${A}-m`, delta: "Found it." } }, A));
  log.add(child({ type: "text.delta", data: { runId: "r1", messageId: `${B}-m`, delta: "Looks right." } }, B));
  if (opts.recovered) {
    log.add({ type: "workflow.resumed", data: { runId: "r1", reason: "recovered", owner: "b" } });
    // The survivor runs A's task again: its start is logged again, and it streams anew.
    log.add({ type: "subagent.started", data: { runId: "r1", childRunId: A, name: "researcher", agentId: "researcher", parentToolCallId: "call-a", parentMessageId: "a1" } });
    log.add(child({ type: "task.created", data: { runId: "r1", taskId: `${A}:llm2`, kind: "llm", name: `${A}/llm-request-1` } }, A));
    log.add(child({ type: "text.started", data: { runId: "r1", messageId: `${A}-m2` } }, A));
    log.add(child({ type: "text.delta", data: { runId: "r1", messageId: `${A}-m2`, delta: "Found it." } }, A));
  }
  return end(log);
}

function finishBoth(log: Log, aMessage = `${A}-m`): Log {
  for (const [id, msg, text, call] of [[A, aMessage, "Found it.", "call-a"], [B, `${B}-m`, "Looks right.", "call-b"]] as const) {
    log.add(child({ type: "text.ended", data: { runId: "r1", messageId: msg } }, id));
    log.add(child({ type: "message.appended", data: { runId: "r1", source: "agent", message: { id: msg, role: "assistant", content: text } } }, id));
    log.add(child({ type: "task.completed", data: { runId: "r1", taskId: id === A && msg !== `${A}-m` ? `${A}:llm2` : `${id}:llm` } }, id));
    log.add({ type: "subagent.ended", data: { runId: "r1", childRunId: id, outcome: "success" } });
    log.toolResult("r1", `res-${call}`, call, text).taskDone("r1", `t-${call}`);
  }
  return log.task("r1", "k2", "llm-request-2").text("r1", "a2", ["Done."]).assistant("r1", "a2", "Done.").taskDone("r1", "k2").suspended("r1");
}

const types = (events: { type: string }[]) => events.map((e) => e.type);

describe("subagents in the projection", () => {
  it("a 1.0 run: SUBAGENT_* for both children, their frames attributed, accepted by @ag-ui/client 1.0.0", async () => {
    const log = lead((l) => finishBoth(l));
    const frames = project(log.events, "1.0");
    const events = frames.map((f) => f.event as AGUIEvent & { subagentRunId?: string });
    expect(events.filter((e) => e.type === "SUBAGENT_STARTED").map((e) => e.subagentRunId)).toEqual([A, B]);
    expect(events.filter((e) => e.type === "SUBAGENT_FINISHED").map((e) => e.subagentRunId)).toEqual([A, B]);
    // Each child's task (its user turn), then both answers interleaved, then the lead's.
    expect(events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.subagentRunId)).toEqual([A, B, A, B, undefined]);
    expect(events.filter((e) => e.type === "STEP_STARTED").map((e) => e.subagentRunId)).toEqual([undefined, undefined, A, undefined, B, undefined]);
    const out = await checkWithBothClients(sse(frames));
    expect(out["1.0.0"].error?.message).toBeUndefined();
    expect(out["1.0.0"].messages.filter((m: Message) => m.subagentRunId === A).map((m) => m.role)).toEqual(["user", "assistant"]);
    // The same log for a legacy reader: one CUSTOM per SUBAGENT_*, the frame ids the same.
    const legacy = project(log.events, "legacy");
    expect(legacy.map((f) => f.id)).toEqual(frames.map((f) => f.id));
    expect(legacy.filter((f) => f.event.type === "CUSTOM" && (f.event as { name: string }).name === SUBAGENT_CUSTOM_EVENT)).toHaveLength(4);
    // Nothing carries the attribution itself (the CUSTOM values name the child, as the 1.0 frame does).
    expect(legacy.filter((f) => "subagentRunId" in f.event)).toEqual([]);
    const plain = await checkWithBothClients(sse(legacy));
    for (const v of ["1.0.0", "0.0.59"] as const) expect(plain[v].error?.message, v).toBeUndefined();
    // 0.0.59 holds the children's messages as ordinary ones (its client puts tool results right after their call).
    expect(plain["0.0.59"].messages.map((m: Message) => m.id).sort()).toEqual(["u1", "a1", `${A}-task`, `${A}-m`, "res-call-a", `${B}-task`, `${B}-m`, "res-call-b", "a2"].sort());
  });

  it("a recovery keeps the child open: its second start is a CUSTOM continuation, and both clients accept the run", async () => {
    const log = lead((l) => finishBoth(l, `${A}-m2`), { recovered: true });
    const frames = project(log.events, "1.0");
    const events = frames.map((f) => f.event as AGUIEvent & { subagentRunId?: string; name?: string; value?: { continued?: boolean } });
    expect(events.filter((e) => e.type === "SUBAGENT_STARTED").map((e) => e.subagentRunId)).toEqual([A, B]);
    expect(events.filter((e) => e.type === "CUSTOM" && e.name === SUBAGENT_CUSTOM_EVENT).map((e) => e.value?.continued)).toEqual([true]);
    expect(project(log.events, "legacy").map((f) => f.id)).toEqual(frames.map((f) => f.id));
    const out = await checkWithBothClients(sse(frames));
    expect(out["1.0.0"].error?.message).toBeUndefined();
    expect(types(out["1.0.0"].events).at(-1)).toBe("RUN_FINISHED");
  });

  it("a run that fails with its children open closes them: their ends attributed, then SUBAGENT_ERROR RUN_ENDED, then RUN_ERROR", async () => {
    const log = lead((l) => l.failed("r1", "UPSTREAM_ERROR", "the model went away"));
    const frames = project(log.events, "1.0");
    const events = frames.map((f) => f.event as AGUIEvent & { subagentRunId?: string; code?: string });
    // What the failure closes: everything after the children's last streamed words.
    const tail = events.slice(events.findLastIndex((e) => e.type === "TEXT_MESSAGE_CONTENT") + 1);
    expect(tail.filter((e) => e.type === "TEXT_MESSAGE_END").map((e) => e.subagentRunId)).toEqual([A, B]);
    expect(tail.filter((e) => e.type === "STEP_FINISHED").map((e) => e.subagentRunId)).toEqual([undefined, A, undefined, B]);
    expect(tail.filter((e) => e.type === "SUBAGENT_ERROR").map((e) => [e.subagentRunId, e.code])).toEqual([[A, "RUN_ENDED"], [B, "RUN_ENDED"]]);
    expect(tail.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "UPSTREAM_ERROR" });
    const out = await checkWithBothClients(sse(frames));
    expect(out["1.0.0"].error?.message).toBeUndefined();
    expect(project(log.events, "legacy").map((f) => f.id)).toEqual(frames.map((f) => f.id));
  });
});
