/**
 * Properties every projected stream has, checked over every scenario: ids from log positions,
 * commit-time timestamps, no nulls, runs bracketed and closed, determinism, and `framesAfter` at
 * every cursor equal to the suffix a live client got.
 */
import { describe, expect, it } from "vitest";
import { compareFrameIds, parseFrameId, type Frame } from "../../protocol/frames.ts";
import { framesAfter, project, Projector } from "../../protocol/project.ts";
import { scenarios } from "./scenarios.ts";

/** The rules both clients' verifiers enforce, restated over our frames (without the clients). */
function checkBrackets(frames: Frame[]): void {
  let run: string | undefined;
  let snapshotSent = false;
  const open = new Map<string, Set<string>>();
  const set = (k: string) => open.get(k) ?? open.set(k, new Set()).get(k)!;
  const opening = (k: string, id: string) => {
    expect(set(k).has(id), `${k} ${id} opened twice`).toBe(false);
    set(k).add(id);
  };
  const closing = (k: string, id: string) => expect(set(k).delete(id), `${k} ${id} closed but not open`).toBe(true);
  const continuing = (k: string, id: string) => expect(set(k).has(id), `${k} ${id} continued but not open`).toBe(true);
  for (const { event: e } of frames) {
    const ev = e as unknown as Record<string, string>;
    if (e.type === "RUN_STARTED") {
      expect(run, "RUN_STARTED inside a run").toBeUndefined();
      run = ev.runId;
      snapshotSent = false;
      open.clear();
      continue;
    }
    expect(run, `${e.type} outside a run`).toBeDefined();
    switch (e.type) {
      case "RUN_FINISHED":
      case "RUN_ERROR":
        for (const [k, ids] of open) expect([...ids], `${k} still open at ${e.type}`).toEqual([]);
        run = undefined;
        break;
      case "STATE_SNAPSHOT":
        snapshotSent = true;
        break;
      case "STATE_DELTA":
        expect(snapshotSent, "STATE_DELTA before any STATE_SNAPSHOT in the run").toBe(true);
        break;
      case "TEXT_MESSAGE_START": opening("text", ev.messageId!); break;
      case "TEXT_MESSAGE_CONTENT": continuing("text", ev.messageId!); break;
      case "TEXT_MESSAGE_END": closing("text", ev.messageId!); break;
      case "TOOL_CALL_START": opening("tool", ev.toolCallId!); break;
      case "TOOL_CALL_ARGS": continuing("tool", ev.toolCallId!); break;
      case "TOOL_CALL_END": closing("tool", ev.toolCallId!); break;
      case "REASONING_START": opening("span", ev.messageId!); break;
      case "REASONING_END": closing("span", ev.messageId!); break;
      case "REASONING_MESSAGE_START": opening("reasoning", ev.messageId!); break;
      case "REASONING_MESSAGE_CONTENT": continuing("reasoning", ev.messageId!); break;
      case "REASONING_MESSAGE_END": closing("reasoning", ev.messageId!); break;
      case "STEP_STARTED": opening("step", ev.stepName!); break;
      case "STEP_FINISHED": closing("step", ev.stepName!); break;
    }
  }
  expect(run, "the stream ends inside a run").toBeUndefined();
}

describe.each(scenarios())("$name", (s) => {
  const events = s.log.events;
  const frames = project(events);

  it("starts with RUN_STARTED, brackets every run and closes everything before its terminal frame", () => {
    expect(frames[0]?.event.type).toBe("RUN_STARTED");
    checkBrackets(frames);
  });

  it("derives ids from log positions and timestamps from commit times", () => {
    const bySeq = new Map(events.map((e) => [e.seq, e]));
    const perSeq = new Map<number, number>();
    for (const f of frames) {
      const id = parseFrameId(f.id)!;
      perSeq.set(id.seq, (perSeq.get(id.seq) ?? 0) + 1);
      expect(f.event.timestamp).toBe(bySeq.get(id.seq)!.at);
      expect(Number.isInteger(f.event.timestamp)).toBe(true);
    }
    for (const f of frames) {
      const id = parseFrameId(f.id)!;
      expect(id.part === null).toBe(perSeq.get(id.seq) === 1);
    }
    for (let i = 1; i < frames.length; i++) expect(compareFrameIds(frames[i - 1]!.id, frames[i]!.id)).toBeLessThan(0);
  });

  it("never sends null or undefined for a field", () => {
    for (const { event } of frames) {
      for (const [k, v] of Object.entries(event)) expect(v, `${event.type}.${k}`).not.toBeNull();
      for (const [k, v] of Object.entries(event)) expect(v, `${event.type}.${k}`).not.toBeUndefined();
    }
  });

  it("is deterministic: twice, or one event at a time as a live feed would push them, gives the same frames", () => {
    expect(project(events)).toEqual(frames);
    const live = new Projector(s.log.threadId);
    const pushed = events.flatMap((e) => live.push(e));
    expect(JSON.stringify(pushed)).toBe(JSON.stringify(frames));
    // An overlapping re-delivery (live feed and catch-up read) adds nothing.
    expect(events.flatMap((e) => live.push(e))).toEqual([]);
  });

  it("framesAfter(cursor) is exactly the suffix after that cursor, for every frame id and every seq", () => {
    expect(framesAfter(events)).toEqual(frames);
    for (const [i, f] of frames.entries()) expect(framesAfter(events, f.id)).toEqual(frames.slice(i + 1));
    for (const e of events) {
      const expected = frames.filter((f) => parseFrameId(f.id)!.seq > e.seq);
      expect(framesAfter(events, `${e.seq}`)).toEqual(expected);
    }
  });
});

it("framesAfter refuses a cursor that is not a frame id", () => {
  const events = scenarios()[0]!.log.events;
  expect(() => framesAfter(events, "abc")).toThrow(/Not a frame id: 'abc'/);
});
