/**
 * The re-issued model request of a run taken over mid-answer, held against what clients already
 * have (server/engine/answer-echo.ts), and the fold that finds that cut answer in the log
 * (cut-answer.ts). Pure: the writer records what the answer would append.
 */
import { describe, expect, it } from "vitest";
import type { StoredEvent, WorkflowEvent } from "../../protocol/events.ts";
import { AnswerEcho } from "../../server/engine/answer-echo.ts";
import { CutAnswerFold, type CutAnswer } from "../../server/engine/cut-answer.ts";
import { LlmAnswer } from "../../server/engine/llm-answer.ts";
import type { RunContext } from "../../server/engine/run-context.ts";
import type { ModelPart } from "../../server/models/model.ts";

function answerWith(cut: CutAnswer) {
  const emitted: WorkflowEvent[] = [];
  let n = 0;
  const ctx = {
    runId: "r1",
    messages: [],
    agent: { predictState: [] },
    writer: { emit: (...events: WorkflowEvent[]) => emitted.push(...events) },
    ids: { message: () => `fresh-${++n}`, toolCall: () => `call-${++n}` },
  } as unknown as RunContext;
  const answer = new LlmAnswer(ctx, "task-2");
  const echo = new AnswerEcho(cut, answer, (messageIds) => ctx.writer.emit({ type: "stream.withdrawn", data: { runId: "r1", messageIds } }));
  return { answer, echo, emitted };
}

const text = (delta: string): ModelPart => ({ type: "text-delta", delta });
/** Each emitted event as "type id delta". */
const summary = (events: WorkflowEvent[]) =>
  events.map((e) => {
    const d = e.data as Record<string, unknown>;
    const id = d.messageId ?? d.toolCallId ?? (d.message as { id?: string } | undefined)?.id ?? (d.messageIds as string[] | undefined)?.join(",");
    return [e.type, id, d.delta ?? (d.message as { content?: string } | undefined)?.content].filter((x) => x !== undefined).join(" ");
  });

const cutText: CutAnswer = { text: { messageId: "cut", content: "Hello wor", ended: false } };

describe("a re-issued answer held against the cut one", () => {
  it("the same answer: nothing until it passes the cut words, then only what follows, in the cut message", () => {
    const { answer, echo, emitted } = answerWith(cutText);
    for (const part of [text("Hel"), text("lo w"), text("or")]) echo.take(part);
    expect(emitted).toEqual([]);
    echo.take(text("ld!"));
    echo.finish();
    answer.complete();
    expect(summary(emitted)).toEqual(["text.delta cut ld!", "text.ended cut", "message.appended cut Hello world!"]);
  });

  it("another wording, found mid-way: the cut message is withdrawn and the new answer streams from its first word", () => {
    const { answer, echo, emitted } = answerWith(cutText);
    for (const part of [text("Hel"), text("p is on")]) echo.take(part);
    echo.take(text(" its way."));
    echo.finish();
    answer.complete();
    expect(summary(emitted)).toEqual([
      "stream.withdrawn cut",
      "text.started fresh-1",
      "text.delta fresh-1 Hel",
      "text.delta fresh-1 p is on",
      "text.delta fresh-1  its way.",
      "text.ended fresh-1",
      "message.appended fresh-1 Help is on its way.",
    ]);
  });

  it("a shorter answer (it ends inside the cut words): withdrawn at its end, then streamed whole", () => {
    const { answer, echo, emitted } = answerWith(cutText);
    echo.take(text("Hello"));
    echo.finish();
    answer.complete();
    expect(summary(emitted)).toEqual(["stream.withdrawn cut", "text.started fresh-1", "text.delta fresh-1 Hello", "text.ended fresh-1", "message.appended fresh-1 Hello"]);
  });

  it("a tool call right where the cut text stopped: the call joins the cut message", () => {
    const { answer, echo, emitted } = answerWith({ text: { messageId: "cut", content: "Let me check.", ended: false } });
    echo.take(text("Let me check."));
    echo.take({ type: "tool-call-start", index: 0, id: "up-1", name: "lookup" });
    echo.take({ type: "tool-call-args-delta", index: 0, delta: "{}" });
    echo.finish();
    const added = answer.complete();
    expect(summary(emitted)).toEqual([
      "toolcall.started up-1",
      "toolcall.args up-1 {}",
      "text.ended cut",
      "toolcall.ended up-1",
      "message.appended cut Let me check.",
    ]);
    expect(added).toEqual([expect.objectContaining({ id: "cut", toolCalls: [expect.objectContaining({ id: "up-1" })] })]);
  });

  it("cancelled before it is decided: the message kept is the cut one, as clients have it", () => {
    const { answer, echo, emitted } = answerWith(cutText);
    echo.take(text("Hel"));
    echo.keepWhatClientsHave();
    answer.keepPartial();
    expect(summary(emitted)).toEqual(["text.ended cut", "message.appended cut Hello wor"]);
  });

  it("reasoning cut mid-way, then the same reasoning and an answer: the reasoning goes on, the answer is new", () => {
    const { answer, echo, emitted } = answerWith({ reasoning: { messageId: "rs", content: "Weighing", ended: false } });
    echo.take({ type: "reasoning-delta", delta: "Weigh" });
    echo.take({ type: "reasoning-delta", delta: "ing it." });
    echo.take(text("Yes."));
    echo.finish();
    answer.complete();
    expect(summary(emitted)).toEqual([
      "reasoning.delta rs  it.",
      "reasoning.ended rs",
      "text.started fresh-1",
      "text.delta fresh-1 Yes.",
      "text.ended fresh-1",
      "message.appended rs Weighing it.",
      "message.appended fresh-1 Yes.",
    ]);
  });
});

describe("the cut answer, folded from the log", () => {
  let seq = 0;
  const stored = (e: WorkflowEvent): StoredEvent => ({ ...e, threadId: "t", seq: ++seq, runId: "r1", at: 0 }) as StoredEvent;
  const fold = (events: WorkflowEvent[]) => {
    const f = new CutAnswerFold("r1");
    for (const e of events) f.push(stored(e));
    return f.result();
  };
  const started = (messageId: string): WorkflowEvent => ({ type: "text.started", data: { runId: "r1", messageId } });
  const delta = (messageId: string, d: string): WorkflowEvent => ({ type: "text.delta", data: { runId: "r1", messageId, delta: d } });

  it("is the text streamed and not recorded, across takeovers that continued it", () => {
    expect(
      fold([
        started("a1"),
        delta("a1", "Once "),
        { type: "workflow.resumed", data: { runId: "r1", reason: "recovered", continues: ["a1"] } },
        delta("a1", "upon"),
      ]),
    ).toEqual({ text: { messageId: "a1", content: "Once upon", ended: false } });
  });

  it("is nothing once the message is recorded, withdrawn, or superseded by a takeover that did not continue it", () => {
    const recorded: WorkflowEvent = { type: "message.appended", data: { runId: "r1", source: "agent", message: { id: "a1", role: "assistant", content: "Once" } } };
    expect(fold([started("a1"), delta("a1", "Once"), recorded])).toBeUndefined();
    expect(fold([started("a1"), delta("a1", "Once"), { type: "stream.withdrawn", data: { runId: "r1", messageIds: ["a1"] } }])).toBeUndefined();
    expect(fold([started("a1"), delta("a1", "Once"), { type: "workflow.resumed", data: { runId: "r1", reason: "recovered" } }])).toBeUndefined();
  });

  it("is not continued when a tool call was streaming: that answer is superseded whole", () => {
    expect(
      fold([started("a1"), delta("a1", "Let me"), { type: "toolcall.started", data: { runId: "r1", toolCallId: "c1", name: "lookup", parentMessageId: "a1" } }]),
    ).toBeUndefined();
  });
});
