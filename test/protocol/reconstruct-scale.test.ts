/**
 * Paged folds equal the one-shot results, for generated logs and page sizes:
 * - Reconstructor fed page by page, with a snapshot at every page boundary, equals reconstruct()
 *   of the log up to that point;
 * - Replay (what connect streams) fed a backlog in pages then a live tail equals the one-shot
 *   replay connect made with the whole backlog in memory (the cut found first, then projected):
 *   the snapshot before the active run then the run from its start, or the frames after a cursor;
 * - the compacted log (retention) replays the same way.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../../protocol/events.ts";
import { parseFrameId, type Frame } from "../../protocol/frames.ts";
import { Projector } from "../../protocol/project.ts";
import { reconstruct, Reconstructor, snapshotRunFrames } from "../../protocol/reconstruct.ts";
import { isTerminalFrame, Replay } from "../../protocol/replay.ts";
import { Log, user } from "./log.ts";

type Step =
  | { kind: "text"; chunks: number; end: boolean }
  | { kind: "tool"; fail: boolean; result: boolean }
  | { kind: "state"; patch: boolean }
  | { kind: "usage" }
  | { kind: "resend" };
type Ending = "suspended" | "completed" | "failed" | "cancelled" | "open";
interface RunSpec {
  /** the run forks the thread, keeping this many of its messages (as a fraction of them) */
  fork: number | null;
  inputs: number;
  /** input message ids repeat (an input upserted by id) */
  repeatInput: boolean;
  steps: Step[];
  ending: Ending;
}

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("text" as const), chunks: fc.integer({ min: 0, max: 4 }), end: fc.boolean() }),
  fc.record({ kind: fc.constant("tool" as const), fail: fc.boolean(), result: fc.boolean() }),
  fc.record({ kind: fc.constant("state" as const), patch: fc.boolean() }),
  fc.record({ kind: fc.constant("usage" as const) }),
  fc.record({ kind: fc.constant("resend" as const) }),
);
const runArb: fc.Arbitrary<RunSpec> = fc.record({
  fork: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { freq: 3 }),
  inputs: fc.integer({ min: 0, max: 3 }),
  repeatInput: fc.boolean(),
  steps: fc.array(stepArb, { maxLength: 6 }),
  ending: fc.constantFrom<Ending>("suspended", "completed", "failed", "cancelled", "open"),
});
/** Every run but the last ends (the status machine allows one open run, the last). */
const logArb = fc.record({
  runs: fc.array(runArb, { minLength: 1, maxLength: 5 }),
  compact: fc.boolean(),
});

function buildLog({ runs, compact }: { runs: RunSpec[]; compact: boolean }): { events: StoredEvent[]; activeRunId: string | null } {
  const log = new Log("t-prop").created();
  let active: string | null = null;
  let branch = "main";
  runs.forEach((spec, r) => {
    const runId = `r${r}`;
    const messages = Array.from({ length: spec.inputs }, (_, i) => user(spec.repeatInput ? `u${r}` : `u${r}-${i}`, `hi ${r}.${i}`));
    let fork: { from: string; keepThrough: string | null } | undefined;
    if (spec.fork !== null && r > 0) {
      // Keep a prefix of the conversation as it stands (folded so far).
      const so = reconstruct(log.events).messages;
      const keep = Math.floor(spec.fork * so.length);
      fork = { from: branch, keepThrough: keep === 0 ? null : so[keep - 1]!.id };
      branch = runId;
    }
    log.run(runId, { messages, ...(r === 0 && { state: { n: 0 } }), ...(fork && { fork }) });
    spec.steps.forEach((step, k) => {
      const id = `${runId}-${k}`;
      switch (step.kind) {
        case "text":
          log.text(runId, `a-${id}`, Array.from({ length: step.chunks }, (_, c) => `c${c} `), { end: step.end });
          if (step.end) log.assistant(runId, `a-${id}`, Array.from({ length: step.chunks }, (_, c) => `c${c} `).join(""));
          break;
        case "tool": {
          const call = { id: `call-${id}`, name: "lookup", args: `{"k":${k}}` };
          log.task(runId, `task-${id}`, "lookup", call.id);
          log.toolCall(runId, `a-${id}`, call);
          log.assistant(runId, `a-${id}`, undefined, [call]);
          if (step.fail) log.taskFailed(runId, `task-${id}`);
          else {
            if (step.result) log.toolResult(runId, `tr-${id}`, call.id, `result ${k}`);
            log.taskDone(runId, `task-${id}`);
          }
          break;
        }
        case "state":
          if (step.patch) log.add({ type: "state.patched", data: { runId, patch: [{ op: "replace", path: "/n", value: k }] } });
          else log.add({ type: "state.set", data: { runId, state: { n: k, run: runId } } });
          break;
        case "usage":
          log.usage(runId, 10 + k, 5);
          break;
        case "resend": // the same message id appended again replaces itself
          log.assistant(runId, `a-${runId}-0`, `replaced ${k}`);
          break;
      }
    });
    const last = r === runs.length - 1;
    const ending = last ? spec.ending : spec.ending === "open" ? "suspended" : spec.ending;
    if (ending === "suspended") log.suspended(runId);
    else if (ending === "completed") log.completed(runId);
    else if (ending === "failed") log.failed(runId, "UPSTREAM_HTTP_500", "boom");
    else if (ending === "cancelled") log.cancelled(runId, "stop");
    else active = runId;
  });
  return { events: compact ? log.compacted() : log.events, activeRunId: active };
}

function pages<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** What connect sent before it was a fold: the backlog whole in memory, the cut found first. */
function oneShotReplay(backlog: StoredEvent[], live: StoredEvent[], activeRunId: string | null, cursorId?: string): Frame[] {
  const out: Frame[] = [];
  const projector = new Projector("t-prop");
  const cursor = cursorId === undefined ? undefined : parseFrameId(cursorId)!;
  let from: (e: StoredEvent) => boolean;
  if (cursor) {
    from = (e) => e.seq >= cursor.seq;
  } else {
    const accepted = activeRunId ? backlog.find((e) => e.type === "run.accepted" && e.data.runId === activeRunId) : undefined;
    const horizon = accepted ? accepted.seq - 1 : (backlog.at(-1)?.seq ?? 0);
    const before = backlog.filter((e) => e.seq <= horizon);
    if (before.some((e) => e.type === "message.appended" || e.type === "state.set" || e.type === "state.patched")) {
      out.push(...snapshotRunFrames(before, horizon));
    }
    from = (e) => e.seq > horizon;
  }
  const afterCursor = (id: string) => {
    if (!cursor) return true;
    const f = parseFrameId(id)!;
    return f.seq > cursor.seq || (cursor.part !== null && f.part !== null && f.part > cursor.part);
  };
  let activeEnded = activeRunId === null;
  const handle = (e: StoredEvent) => {
    const frames = projector.push(e);
    if (!from(e)) return;
    for (const frame of frames) {
      if (afterCursor(frame.id)) out.push(frame);
      if (isTerminalFrame(frame) && e.runId === activeRunId) activeEnded = true;
    }
  };
  for (const e of backlog) handle(e);
  if (activeEnded) return out;
  for (const e of live) {
    handle(e);
    if (activeEnded) return out;
  }
  return out;
}

function pagedReplay(backlog: StoredEvent[], live: StoredEvent[], size: number, activeRunId: string | null, cursor?: string): Frame[] {
  const fold = new Replay({ threadId: "t-prop", activeRunId, ...(cursor !== undefined && { cursor: parseFrameId(cursor)! }) });
  const out: Frame[] = [];
  for (const page of pages(backlog, size)) for (const e of page) out.push(...fold.push(e));
  out.push(...fold.endOfBacklog());
  if (fold.activeEnded) return out;
  for (const page of pages(live, size)) {
    for (const e of page) {
      out.push(...fold.push(e));
      if (fold.activeEnded) return out;
    }
  }
  return out;
}

describe("paged folds equal one-shot results", () => {
  it("Reconstructor, snapshot at every page boundary = reconstruct() of the log so far", () => {
    fc.assert(
      fc.property(logArb, fc.integer({ min: 1, max: 40 }), (spec, size) => {
        const { events } = buildLog(spec);
        const fold = new Reconstructor();
        for (const page of pages(events, size)) {
          for (const e of page) fold.push(e);
          const upto = page.at(-1)!.seq;
          expect(fold.snapshot()).toEqual(reconstruct(events, { uptoSeq: upto }));
          expect(JSON.stringify(fold.snapshot({ status: "WAITING" }).messages)).toBe(JSON.stringify(reconstruct(events, { uptoSeq: upto }).messages));
        }
        expect(fold.snapshot({ status: "FAILED" })).toEqual(reconstruct(events, { status: "FAILED" }));
      }),
      { numRuns: 300 },
    );
  });

  it("Replay in pages (a reload, or a resume from any cursor) = the one-shot replay, frame for frame", () => {
    fc.assert(
      fc.property(logArb, fc.integer({ min: 1, max: 40 }), fc.nat(), fc.option(fc.nat(), { nil: undefined }), (spec, size, splitAt, cursorAt) => {
        const { events, activeRunId } = buildLog(spec);
        // The active run (from the thread row) is in the backlog: the row is read before the log.
        const acceptedAt = activeRunId ? events.findIndex((e) => e.type === "run.accepted" && e.data.runId === activeRunId) : -1;
        const split = Math.max(acceptedAt + 1, splitAt % (events.length + 1));
        const [backlog, live] = [events.slice(0, split), events.slice(split)];
        const cursor = cursorAt === undefined ? undefined : String(events[cursorAt % events.length]!.seq);
        const paged = pagedReplay(backlog, live, size, activeRunId, cursor);
        expect(JSON.stringify(paged)).toBe(JSON.stringify(oneShotReplay(backlog, live, activeRunId, cursor)));
      }),
      { numRuns: 300 },
    );
  });
});

describe("checkpoints", () => {
  it("a fold resumed from a checkpoint at any position, through JSON, equals the fold of the whole log", () => {
    fc.assert(
      fc.property(logArb, fc.nat(), (spec, at) => {
        const { events } = buildLog(spec);
        const cut = events.length === 0 ? 0 : at % (events.length + 1);
        const head = new Reconstructor();
        for (const e of events.slice(0, cut)) head.push(e);
        // Through JSON, as the checkpoints table stores it.
        const fold = JSON.parse(JSON.stringify(head.toState())) as ReturnType<Reconstructor["toState"]>;
        const resumed = Reconstructor.from({ seq: head.lastSeq, fold });
        for (const e of events.slice(cut)) resumed.push(e);
        expect(resumed.snapshot()).toEqual(reconstruct(events));
      }),
      { numRuns: 300 },
    );
  });

  /** The positions between runs (no run accepted and not ended), where a checkpoint stands. */
  function betweenRuns(events: StoredEvent[]): { cut: number; fold: Reconstructor }[] {
    const out: { cut: number; fold: Reconstructor }[] = [];
    const fold = new Reconstructor();
    events.forEach((e, i) => {
      fold.push(e);
      const state = fold.toState();
      if (state.activeRunId === undefined) out.push({ cut: i + 1, fold: Reconstructor.from({ seq: fold.lastSeq, fold: JSON.parse(JSON.stringify(state)) }) });
    });
    return out;
  }

  it("a projection started between runs (Projector.at) makes the frames the whole log's projection makes after it", () => {
    fc.assert(
      fc.property(logArb, (spec) => {
        const { events } = buildLog(spec);
        const whole = new Projector("t-prop");
        const framesAt = events.map((e) => whole.push(e));
        for (const { cut, fold } of betweenRuns(events)) {
          const snap = fold.snapshot();
          const seeded = Projector.at({ threadId: "t-prop", seq: snap.lastSeq, messages: snap.messages, state: snap.state });
          const tail = events.slice(cut).flatMap((e) => seeded.push(e));
          expect(JSON.stringify(tail)).toBe(JSON.stringify(framesAt.slice(cut).flat()));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("a replay seeded with a checkpoint (a reload, or a cursor at or past it) = the replay from seq 1", () => {
    fc.assert(
      fc.property(logArb, fc.nat(), fc.option(fc.nat(), { nil: undefined }), (spec, pick, cursorAt) => {
        const { events, activeRunId } = buildLog(spec);
        const cuts = betweenRuns(events);
        if (cuts.length === 0) return;
        const { fold } = cuts[pick % cuts.length]!;
        const checkpoint = { seq: fold.lastSeq, fold: fold.toState() };
        const cursor = cursorAt === undefined ? undefined : parseFrameId(String(events[cursorAt % events.length]!.seq))!;
        const run = (opts: { checkpoint?: typeof checkpoint }) => {
          const replay = new Replay({ threadId: "t-prop", activeRunId, ...(cursor && { cursor }), ...opts });
          const out = events.filter((e) => e.seq > replay.startsAt).flatMap((e) => (replay.activeEnded ? [] : replay.push(e)));
          return [...out, ...(replay.activeEnded ? [] : replay.endOfBacklog())];
        };
        const seeded = run({ checkpoint });
        expect(JSON.stringify(seeded)).toBe(JSON.stringify(run({})));
      }),
      { numRuns: 300 },
    );
  });
});
