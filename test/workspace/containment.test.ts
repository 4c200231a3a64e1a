/**
 * Containment: every path the tools are given is opened beneath the workspace's descriptor, or
 * refused with a sentence (PathRefused, never another exception). A corpus of escapes (relative,
 * absolute, symlinks out, symlinked parents, /proc/self/root, device files, long and NUL paths),
 * then fast-check: random paths built from "..", ".", names, links and odd characters never open
 * anything outside (the kernel's own name for the open descriptor says where it is), and
 * whatever is refused says why.
 */
import { readlinkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTrustedDir, PathRefused } from "../../server/workspace/beneath.ts";
import { locateForWrite, NAME_MAX_BYTES, openInWorkspace, PATH_MAX_BYTES } from "../../server/workspace/paths.ts";

type Outcome = { ok: true; rel: string; real: string } | { ok: false; error: string; missing?: boolean };

/**
 * Opens `p` beneath `root` (kind "write": where a write would land), and reports where the
 * kernel says the descriptor it got is; the descriptor is closed again.
 */
async function resolve(root: FileHandle, p: string, kind: "file" | "dir" | "any" | "write" = "any"): Promise<Outcome> {
  try {
    if (kind === "write") {
      const loc = await locateForWrite(root, p);
      const real = readlinkSync(`/proc/self/fd/${loc.dir.fd}`);
      await loc.close();
      return { ok: true, rel: loc.rel, real };
    }
    const opened = await openInWorkspace(root, p, kind);
    const real = readlinkSync(`/proc/self/fd/${opened.handle.fd}`);
    await opened.handle.close();
    return { ok: true, rel: opened.rel, real };
  } catch (err) {
    if (err instanceof PathRefused) return { ok: false, error: err.message, ...(err.missing && { missing: true }) };
    throw err;
  }
}

let base: string;
let ws: string;
let outside: string;
let root: FileHandle;

beforeAll(async () => {
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
  symlinkSync("/workspace/src/a.ts", join(ws, "abs-in"));
  root = await openTrustedDir(ws);
});

afterAll(async () => {
  await root.close();
  rmSync(base, { recursive: true, force: true });
});

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
  ["out-dir/new/deeper.txt", /symbolic link .* points out/],
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
    // A write to a name that is a link replaces the link (it is not followed), so a link as the
    // last name is no escape for a write: only its parents are checked there.
    const kinds = /points out|looping/.test(String(reason)) && !p.includes("/") ? (["any"] as const) : (["any", "write"] as const);
    for (const kind of kinds) {
      const r = await resolve(root, p, kind);
      expect(r.ok, `${kind} ${JSON.stringify(p)}`).toBe(false);
      if (!r.ok) {
        expect(r.error).toMatch(reason);
        expect(r.error).toMatch(/Paths are relative to the workspace/);
      }
    }
  });

  it("a write to a name that is a link lands on the link's own name, inside the workspace", async () => {
    for (const p of ["out-dir", "out-file", "passwd", "zero", "loop-a"]) {
      expect(await resolve(root, p, "write")).toEqual({ ok: true, rel: p, real: ws });
    }
  });

  it("accepts paths inside, through links that stay inside (relative, or absolute under /workspace), and at the name bound", async () => {
    for (const [p, rel] of [
      [".", "."],
      ["", "."],
      ["src/a.ts", "src/a.ts"],
      ["./src//deep/../a.ts", "src/a.ts"],
      ["in-dir/a.ts", "src/a.ts"],
      ["in-file", "src/a.ts"],
      ["abs-in", "src/a.ts"],
    ] as const) {
      const r = await resolve(root, p);
      expect(r, p).toMatchObject({ ok: true, rel });
      if (r.ok) expect(r.real === ws || r.real.startsWith(ws + sep)).toBe(true);
    }
    for (const [p, rel] of [
      ["src/new/dir/file.py", "src/new/dir/file.py"],
      ["x".repeat(NAME_MAX_BYTES), "x".repeat(NAME_MAX_BYTES)],
      ["in-dir/b.ts", "src/b.ts"],
    ] as const) {
      expect(await resolve(root, p, "write"), p).toMatchObject({ ok: true, rel });
    }
  });

  it("refuses device files and wrong kinds; a missing file is `missing`, not refused", async () => {
    const devRoot = await openTrustedDir("/dev");
    expect(await resolve(devRoot, "null", "file")).toMatchObject({ ok: false, error: expect.stringMatching(/device, FIFO or socket/) });
    await devRoot.close();
    expect(await resolve(root, "src", "file")).toMatchObject({ ok: false, error: expect.stringMatching(/is a directory/) });
    expect(await resolve(root, "src/a.ts", "dir")).toMatchObject({ ok: false, error: expect.stringMatching(/is a file/) });
    expect(await resolve(root, "nope.txt", "file")).toMatchObject({ ok: false, missing: true });
    expect(await resolve(root, "dangling", "file")).toMatchObject({ ok: false, missing: true });
    expect(await resolve(root, "src", "write")).toMatchObject({ ok: false, error: expect.stringMatching(/is a directory/) });
  });

  it("fast-check: no generated path opens anything outside the workspace; refusals are sentences", async () => {
    const part = fc.oneof(
      fc.constantFrom("..", ".", "", "src", "deep", "out-dir", "in-dir", "proc-root", "rel-out", "loop-a", "passwd", "abs-in", "a.ts", "~", "\0", "..."),
      fc.string({ maxLength: 6 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(part, { maxLength: 8 }), fc.constantFrom("any", "write") as fc.Arbitrary<"any" | "write">, async (absolute, parts, kind) => {
        const p = (absolute ? "/" : "") + parts.join("/");
        let r: Outcome;
        try {
          r = await resolve(root, p, kind);
        } catch (err) {
          throw new Error(`resolve threw for ${JSON.stringify(p)}: ${String(err)}`);
        }
        if (r.ok) {
          expect(r.real === ws || r.real.startsWith(ws + sep), `${JSON.stringify(p)} → ${r.real}`).toBe(true);
          expect(realpathSync(base) === base).toBe(true);
        } else {
          expect(r.error.length).toBeGreaterThan(10);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
