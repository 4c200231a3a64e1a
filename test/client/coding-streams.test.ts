/**
 * The coding page's pure folds: terminal chunks grouped per tool call (and not doubled when a
 * connect replays the active run from its start), ANSI segments per stream, the bash/run result,
 * and the diff rows the edit card draws.
 */
import { describe, expect, it } from "vitest";
import { countChanges, rowsFromEdit, rowsFromUnified } from "../../client/src/coding/diff-rows.ts";
import { EMPTY_FOLD, foldCoding, parseExecResult, readContent, segments, type CodingEvent } from "../../client/src/coding/streams.ts";

const out = (toolCallId: string, data: string, stream = "stdout"): CodingEvent => ({ kind: "custom", name: "terminal", value: { toolCallId, stream, data } });
const fold = (events: CodingEvent[]) => events.reduce(foldCoding, EMPTY_FOLD);

describe("terminal chunks per tool call", () => {
  it("keeps each call's chunks in order, with their stream, and the run they came in", () => {
    const f = fold([
      { kind: "runStarted", runId: "r1" },
      out("a", "one\n"),
      out("b", "other\n"),
      out("a", "oops\n", "stderr"),
      out("a", "two\n"),
    ]);
    expect(f.terminals.a).toEqual({
      runId: "r1",
      chunks: [
        { stream: "stdout", data: "one\n" },
        { stream: "stderr", data: "oops\n" },
        { stream: "stdout", data: "two\n" },
      ],
    });
    expect(f.terminals.b!.chunks.map((c) => c.data)).toEqual(["other\n"]);
  });

  it("a replay of the active run from its start shows every line once", () => {
    const live = [{ kind: "runStarted", runId: "r2" } as const, out("a", "1\n"), out("a", "2\n")];
    // Re-attach: the snapshot run, then r2 again from its RUN_STARTED, then what comes next.
    const f = fold([
      { kind: "runStarted", runId: "r1" },
      out("old", "kept\n"),
      ...live,
      { kind: "runStarted", runId: "snapshot" },
      ...live,
      out("a", "3\n"),
    ]);
    expect(f.terminals.a!.chunks.map((c) => c.data).join("")).toBe("1\n2\n3\n");
    expect(f.terminals.old!.chunks.map((c) => c.data)).toEqual(["kept\n"]);
  });

  it("ignores malformed and other custom events; an unknown stream is stdout", () => {
    const f = fold([
      { kind: "custom", name: "terminal", value: { data: "no id" } },
      { kind: "custom", name: "terminal", value: "text" },
      { kind: "custom", name: "PredictState", value: [] },
      out("a", ""),
      out("a", "x", "tty"),
    ]);
    expect(f.terminals).toEqual({ a: { runId: null, chunks: [{ stream: "stdout", data: "x" }] } });
  });

  it("keeps the artifact per tool call and counts every one", () => {
    const f = fold([
      { kind: "custom", name: "artifact", value: { toolCallId: "w", path: "hello.py", action: "created", fileType: "py", size: 10 } },
      { kind: "custom", name: "artifact", value: { toolCallId: "e", path: "hello.py", action: "edited", fileType: "py", size: 12, diff: "@@", diffTruncated: true } },
      { kind: "custom", name: "artifact", value: { path: "no-call.py" } },
    ]);
    expect(f.artifactCount).toBe(2);
    expect(f.artifacts.w).toEqual({ toolCallId: "w", path: "hello.py", action: "created", fileType: "py", size: 10 });
    expect(f.artifacts.e).toMatchObject({ action: "edited", diff: "@@", diffTruncated: true });
  });

  it("segments join consecutive chunks of one stream, so a colour set in one chunk carries on", () => {
    expect(
      segments([
        { stream: "stdout", data: "\u001b[32mgre" },
        { stream: "stdout", data: "en\u001b[0m\n" },
        { stream: "stderr", data: "e1" },
        { stream: "stderr", data: "e2" },
        { stream: "stdout", data: "end" },
      ]),
    ).toEqual([
      { stream: "stdout", data: "\u001b[32mgreen\u001b[0m\n" },
      { stream: "stderr", data: "e1e2" },
      { stream: "stdout", data: "end" },
    ]);
  });
});

describe("tool results", () => {
  it("parses the bash/run contract and nothing else", () => {
    expect(parseExecResult('{"exitCode":0,"output":"hi\\n"}')).toEqual({ exitCode: 0, output: "hi\n", truncated: false, timedOut: false });
    expect(parseExecResult('{"exitCode":null,"output":"","timedOut":true,"truncated":true}')).toEqual({ exitCode: null, output: "", truncated: true, timedOut: true });
    expect(parseExecResult("Error: the command was rejected")).toBeNull();
    expect(parseExecResult('{"ok":true}')).toBeNull();
    expect(parseExecResult(undefined)).toBeNull();
  });

  it("reads a read result's content from JSON or plain text", () => {
    expect(readContent('{"content":"a\\nb","lines":2}')).toBe("a\nb");
    expect(readContent("plain text")).toBe("plain text");
    expect(readContent('"a json string"')).toBe("a json string");
  });
});

describe("diff rows", () => {
  it("numbers the lines of a unified diff", () => {
    const unified = ["--- a/hello.py", "+++ b/hello.py", "@@ -9,3 +9,3 @@", " ", '-print(greet("world"))', '+print(greet("Threadline"))', " for x in y:", ""].join("\n");
    const rows = rowsFromUnified(unified);
    expect(rows.map((r) => [r.kind, r.oldNo, r.newNo, r.text])).toEqual([
      ["hunk", null, null, "@@ -9,3 +9,3 @@"],
      ["ctx", 9, 9, ""],
      ["del", 10, null, 'print(greet("world"))'],
      ["add", null, 10, 'print(greet("Threadline"))'],
      ["ctx", 11, 11, "for x in y:"],
    ]);
    expect(countChanges(rows)).toEqual({ added: 1, removed: 1 });
  });

  it("diffs an edit's old_string against its new_string", () => {
    const rows = rowsFromEdit("hello.py", 'a\nprint(greet("world"))', 'a\nprint(greet("Threadline"))\nb');
    expect(rows.filter((r) => r.kind !== "ctx" && r.kind !== "hunk").map((r) => [r.kind, r.text])).toEqual([
      ["del", 'print(greet("world"))'],
      ["add", 'print(greet("Threadline"))'],
      ["add", "b"],
    ]);
  });

  it("gives no rows for text that is not a diff", () => {
    expect(rowsFromUnified("not a diff")).toEqual([]);
  });
});
