/**
 * Containment: every path the tools are given resolves inside the workspace by real path, or is
 * refused with a sentence (never an exception). A corpus of escapes (relative, absolute,
 * symlinks out, symlinked parents, /proc/self/root, device files, long and NUL paths), then
 * fast-check: random paths built from "..", ".", names, links and odd characters never resolve
 * outside, and whatever is refused says why.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NAME_MAX_BYTES, PATH_MAX_BYTES, resolveInside } from "../../server/workspace/paths.ts";

let base: string;
let ws: string;
let outside: string;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "containment-")));
  ws = join(base, "ws");
  outside = join(base, "outside");
  mkdirSync(join(ws, "src", "deep"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "secret");
  writeFileSync(join(ws, "src", "a.ts"), "export {}\n");
  symlinkSync(outside, join(ws, "out-dir"));
  symlinkSync(join(outside, "secret.txt"), join(ws, "out-file"));
  symlinkSync("../outside/secret.txt", join(ws, "rel-out"));
  symlinkSync("/proc/self/root", join(ws, "proc-root"));
  symlinkSync("/etc/passwd", join(ws, "passwd"));
  symlinkSync("/dev/zero", join(ws, "zero"));
  symlinkSync(join(ws, "src"), join(ws, "in-dir"));
  symlinkSync("src/a.ts", join(ws, "in-file"));
  symlinkSync("loop-b", join(ws, "loop-a"));
  symlinkSync("loop-a", join(ws, "loop-b"));
  symlinkSync("nowhere", join(ws, "dangling"));
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

const escapes: [string, RegExp][] = [
  ["..", /out of the workspace/],
  ["../outside/secret.txt", /out of the workspace/],
  ["src/../../outside/secret.txt", /out of the workspace/],
  ["src/deep/../../../outside", /out of the workspace/],
  ["/etc/passwd", /absolute/],
  ["/", /absolute/],
  ["~/x", /absolute/],
  ["out-dir/secret.txt", /symbolic link .* points out/],
  ["out-dir", /symbolic link .* points out/],
  ["out-file", /symbolic link .* points out/],
  ["rel-out", /symbolic link .* points out/],
  ["out-dir/new-file.txt", /symbolic link .* points out/],
  ["proc-root/etc/passwd", /symbolic link .* points out/],
  ["proc-root", /symbolic link .* points out/],
  ["passwd", /symbolic link .* points out/],
  ["zero", /symbolic link .* points out/],
  ["loop-a", /looping/],
  ["a\0b", /NUL/],
  ["src/\0", /NUL/],
  ["src/a\u0007.ts", /control characters/],
  ["a/".repeat(PATH_MAX_BYTES / 2 + 1), new RegExp(`longer than ${PATH_MAX_BYTES}`)],
  ["x".repeat(NAME_MAX_BYTES + 1), new RegExp(`longer than ${NAME_MAX_BYTES}`)],
  ["src/a.ts/child", /is not a directory/],
];

describe("containment corpus", () => {
  it.each(escapes)("refuses %j with a readable reason", async (p, reason) => {
    const r = await resolveInside(ws, p, { mayBeMissing: true });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toMatch(reason);
      expect(r.error).toMatch(/Paths are relative to the workspace/);
    }
  });

  it("accepts paths inside, through links that stay inside, and at the name bound", async () => {
    for (const [p, rel] of [
      [".", "."],
      ["", "."],
      ["src/a.ts", "src/a.ts"],
      ["./src//deep/../a.ts", "src/a.ts"],
      ["in-dir/a.ts", "src/a.ts"],
      ["in-file", "src/a.ts"],
      ["src/new/dir/file.py", "src/new/dir/file.py"],
      ["x".repeat(NAME_MAX_BYTES), "x".repeat(NAME_MAX_BYTES)],
    ] as const) {
      const r = await resolveInside(ws, p, { mayBeMissing: true });
      expect(r, p).toMatchObject({ ok: true, rel });
    }
  });

  it("refuses device files and wrong kinds; a missing file is `missing`, not refused", async () => {
    const dev = await resolveInside("/dev", "null", { kind: "file" });
    expect(dev).toMatchObject({ ok: false, error: expect.stringMatching(/device, FIFO or socket/) });
    expect(await resolveInside(ws, "src", { kind: "file" })).toMatchObject({ ok: false, error: expect.stringMatching(/is a directory/) });
    expect(await resolveInside(ws, "src/a.ts", { kind: "dir" })).toMatchObject({ ok: false, error: expect.stringMatching(/is a file/) });
    expect(await resolveInside(ws, "nope.txt", { kind: "file" })).toMatchObject({ ok: false, missing: true });
    expect(await resolveInside(ws, "dangling", { mayBeMissing: true })).toMatchObject({ ok: false, error: expect.stringMatching(/broken or looping/) });
  });

  it("fast-check: no generated path resolves outside the workspace; refusals are sentences", async () => {
    const part = fc.oneof(
      fc.constantFrom("..", ".", "", "src", "deep", "out-dir", "in-dir", "proc-root", "rel-out", "loop-a", "passwd", "a.ts", "~", "\0", "..."),
      fc.string({ maxLength: 6 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(part, { maxLength: 8 }), async (absolute, parts) => {
        const p = (absolute ? "/" : "") + parts.join("/");
        let r: Awaited<ReturnType<typeof resolveInside>>;
        try {
          r = await resolveInside(ws, p, { mayBeMissing: true });
        } catch (err) {
          throw new Error(`resolveInside threw for ${JSON.stringify(p)}: ${String(err)}`);
        }
        if (r.ok) {
          expect(r.abs === ws || r.abs.startsWith(ws + sep), `${JSON.stringify(p)} → ${r.abs}`).toBe(true);
          expect(realpathSync(base) === base).toBe(true);
        } else {
          expect(r.error.length).toBeGreaterThan(10);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
