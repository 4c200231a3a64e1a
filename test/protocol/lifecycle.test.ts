/**
 * protocol/lifecycle.ts is the one owner of the lifecycle rules: the real flows' event sequences
 * are legal under its table, the cancel rule follows from the table, what each event does is
 * consistent, and no other source file restates a status list or the run-ending event types.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ACTIVE_STATUSES,
  activeRunAfter,
  assertLegalSequence,
  cancelApplies,
  canCancel,
  endsRun,
  IllegalTransitionError,
  isActive,
  RUN_ENDING_EVENT_TYPES,
  runStatusAfter,
  SETTLED_RUN_STATUSES,
  SETTLED_STATUSES,
  statusAfter,
  THREAD_STATUSES,
} from "../../protocol/lifecycle.ts";

const t = (type: string) => ({ type });
const created = t("thread.created");
const accepted = t("run.accepted");
const started = t("workflow.started");
const resumed = t("workflow.resumed");
const suspended = t("workflow.suspended");
const completed = t("workflow.completed");
const failed = t("workflow.failed");
const cancelling = t("workflow.cancelling");
const cancelled = t("workflow.cancelled");

describe("the real flows are legal sequences", () => {
  it.each([
    ["a new thread's first run", [created, accepted, started, suspended]],
    ["a follow-up run", [suspended, accepted, started, completed]],
    ["recovery by another instance", [started, resumed, resumed, suspended]],
    ["recovery of a run that never started", [accepted, started, failed]],
    ["a queued run after a terminal one", [failed, accepted, started, suspended]],
    ["a queued run after a cancelled one", [cancelled, accepted, started, completed]],
    ["a cancel answered by the run", [started, cancelling, cancelled]],
    ["a cancel of a run not yet started", [accepted, cancelling, cancelled]],
    ["a cancel crossed by the run's own end", [started, cancelling, completed]],
    ["a cancel after the run ended (ignored)", [started, completed, cancelling, cancelled]],
    ["a second cancel request (ignored)", [started, cancelling, cancelling, cancelled]],
    ["a cancel whose run failed to stop", [started, cancelling, failed]],
  ])("%s", (_name, events) => {
    expect(() => assertLegalSequence(events)).not.toThrow();
  });

  it.each([
    ["a run restarted after it completed, without being accepted", [completed, started]],
    ["a waiting thread resumed without a new run", [suspended, resumed]],
    ["a cancelled thread that keeps running", [cancelling, cancelled, started]],
  ])("refuses %s, naming both states", (_name, events) => {
    expect(() => assertLegalSequence(events, "th-1")).toThrow(IllegalTransitionError);
    try {
      assertLegalSequence(events, "th-1");
    } catch (err) {
      const e = err as IllegalTransitionError;
      expect(e.code).toBe("ILLEGAL_TRANSITION");
      expect(e.message).toContain(`from ${e.from} to ${e.to}`);
      expect(e.message).toContain("th-1");
    }
  });
});

describe("what events do", () => {
  it("every event that ends a run settles the thread, clears the active run and settles the run row", () => {
    expect([...RUN_ENDING_EVENT_TYPES].sort()).toEqual(
      ["workflow.cancelled", "workflow.completed", "workflow.failed", "workflow.suspended"],
    );
    for (const type of RUN_ENDING_EVENT_TYPES) {
      expect(SETTLED_STATUSES).toContain(statusAfter(t(type)));
      expect(activeRunAfter(t(type))).toBe("clear");
      expect(SETTLED_RUN_STATUSES).toContain(runStatusAfter(t(type)));
    }
  });

  it("every event that moves a thread to an active status keeps it or sets the active run, and ends nothing", () => {
    for (const type of ["run.accepted", "workflow.started", "workflow.resumed", "workflow.cancelling"]) {
      expect(isActive(statusAfter(t(type))!)).toBe(true);
      expect(endsRun(t(type))).toBe(false);
      expect(activeRunAfter(t(type))).not.toBe("clear");
    }
  });

  it("events outside the lifecycle, and inherited property names, do nothing", () => {
    for (const type of ["text.delta", "message.appended", "toString", "constructor", "__proto__"]) {
      expect(statusAfter(t(type))).toBeUndefined();
      expect(runStatusAfter(t(type))).toBeUndefined();
      expect(activeRunAfter(t(type))).toBeUndefined();
      expect(endsRun(t(type))).toBe(false);
    }
  });
});

describe("the cancel rule", () => {
  it("a cancel applies exactly while a run lives and the move is legal", () => {
    const table = Object.fromEntries(
      (["CANCELLING", "CANCELLED"] as const).map((c) => [c, THREAD_STATUSES.filter((s) => cancelApplies(c, s))]),
    );
    expect(table).toEqual({ CANCELLING: ["PENDING", "RUNNING"], CANCELLED: ["PENDING", "RUNNING", "CANCELLING"] });
    expect(THREAD_STATUSES.filter(canCancel)).toEqual(["PENDING", "RUNNING"]);
  });

  it("active and settled partition the statuses", () => {
    expect([...ACTIVE_STATUSES, ...SETTLED_STATUSES].sort()).toEqual([...THREAD_STATUSES].sort());
  });
});

/**
 * A restated copy is a line that names two or more thread statuses as string literals (a list,
 * a set, an `a === "X" || a === "Y"` chain), or two or more run-ending event types. Comments are
 * skipped; protocol/lifecycle.ts is the one file allowed to. Generated modules (`*.generated.ts`)
 * are skipped too: the migrations module is the .sql files' text, which this scan does not read
 * either (a migration's check constraint is SQL, not a TypeScript copy of the rule).
 */
describe("no restated copies", () => {
  const root = join(import.meta.dirname, "../..");
  const OWNER = "protocol/lifecycle.ts";
  const statusLiteral = new RegExp(`["'\`](${THREAD_STATUSES.join("|")})["'\`]`, "g");
  const endLiteral = new RegExp(`["'\`](${RUN_ENDING_EVENT_TYPES.join("|").replaceAll(".", "\\.")})["'\`]`, "g");

  function* sources(dir: string): Generator<string> {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (name !== "node_modules" && name !== "dist") yield* sources(path);
      } else if (/\.tsx?$/.test(name) && !name.endsWith(".generated.ts")) yield path;
    }
  }

  it("server/, protocol/ and client/src state no status list and no list of run-ending events", () => {
    const offenders: string[] = [];
    for (const dir of ["server", "protocol", "client/src"]) {
      for (const path of sources(join(root, dir))) {
        const rel = relative(root, path);
        if (rel === OWNER) continue;
        readFileSync(path, "utf8").split("\n").forEach((line, i) => {
          const code = line.replace(/\/\/.*$/, "");
          if (/^\s*(\*|\/\*)/.test(code)) return;
          const statuses = new Set(code.match(statusLiteral) ?? []);
          const ends = new Set(code.match(endLiteral) ?? []);
          if (statuses.size >= 2 || ends.size >= 2) offenders.push(`${rel}:${i + 1}: ${line.trim()}`);
        });
      }
    }
    expect(offenders, "import the rule from protocol/lifecycle.ts instead").toEqual([]);
  });
});
