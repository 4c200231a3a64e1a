/**
 * The internal unified diff: the same text as GNU `diff -u` on small cases, and, on random
 * edits (fast-check), a patch that applied to the old text gives the new one.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { unifiedDiff } from "../../server/workspace/diff.ts";

/** Applies a unified diff (the subset unifiedDiff writes) to `text`. */
function applyPatch(text: string, patch: string): string {
  if (patch === "") return text;
  const lines = text === "" ? [] : text.split("\n");
  const hadEol = text.endsWith("\n");
  if (hadEol) lines.pop();
  const out: string[] = [];
  let at = 0;
  let eol = hadEol;
  const pl = patch.split("\n").slice(2);
  for (let i = 0; i < pl.length; i++) {
    const l = pl[i]!;
    const h = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@$/.exec(l);
    if (h) {
      const start = Number(h[1]) - (h[2] === "0" ? 0 : 1);
      while (at < start) out.push(lines[at++]!);
      continue;
    }
    const noEol = pl[i + 1] === "\\ No newline at end of file";
    if (l.startsWith(" ")) {
      out.push(lines[at++]!);
      eol = !noEol;
    } else if (l.startsWith("-")) at++;
    else if (l.startsWith("+")) {
      out.push(l.slice(1));
      eol = !noEol;
    }
  }
  if (at < lines.length) eol = hadEol;
  while (at < lines.length) out.push(lines[at++]!);
  if (out.length === 0) return "";
  return out.join("\n") + (eol ? "\n" : "");
}

describe("unifiedDiff", () => {
  it("writes what GNU diff -u writes", () => {
    const dir = mkdtempSync(join(tmpdir(), "diff-"));
    try {
      const cases: [string, string][] = [
        ["a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n", "a\nB\nc\nd\ne\nf\ng\nh\ni\nJ\nk\nl"],
        ["one\ntwo\nthree\n", "one\n2\nthree\n"],
        ["x\n", "x\ny\n"],
        ["x\ny\nz\n", "z\n"],
        ["same\nno eol", "same\nno eol\n"],
      ];
      for (const [a, b] of cases) {
        writeFileSync(join(dir, "a"), a);
        writeFileSync(join(dir, "b"), b);
        let gnu = "";
        try {
          execFileSync("diff", ["-u", join(dir, "a"), join(dir, "b")], { encoding: "utf8" });
        } catch (err) {
          gnu = (err as { stdout: string }).stdout;
        }
        const ours = unifiedDiff(a, b, "f.txt");
        expect(ours.split("\n").slice(2).join("\n")).toBe(gnu.split("\n").slice(2).join("\n"));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is empty for equal texts, and labels a/ and b/", () => {
    expect(unifiedDiff("same\n", "same\n", "x")).toBe("");
    expect(unifiedDiff("", "new\n", "n.py")).toBe("--- a/n.py\n+++ b/n.py\n@@ -0,0 +1 @@\n+new\n");
  });

  it("fast-check: applying the diff to the old text gives the new one", () => {
    const text = fc.array(fc.constantFrom("a", "b", "c", "d", "", "x y"), { maxLength: 30 }).chain((ls) =>
      fc.boolean().map((eol) => (ls.length === 0 ? "" : ls.join("\n") + (eol ? "\n" : ""))),
    );
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(applyPatch(a, unifiedDiff(a, b, "f"))).toBe(b);
      }),
      { numRuns: 3000 },
    );
  });
});
