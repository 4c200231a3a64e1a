/**
 * `npm start` rebuilds the server only when a source changed (scripts/build-stamp.ts): current
 * after the stamp, stale once a source is edited, added or deleted, or with no stamp at all.
 * On a directory of its own (the repository's dist/ is served by other tests meanwhile).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { isStale, writeStamp } from "../../scripts/build-stamp.ts";

const root = mkdtempSync(path.join(tmpdir(), "threadline-stamp-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Sets a path's mtime a minute back, so the stamp written now is newer without a sleep (mtimes are coarse). */
const age = (p: string) => utimesSync(p, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
/** Every file and directory under the root aged, then the stamp: a build that ran after the edits. */
const restamp = (stamp: string) => {
  for (const p of readdirSync(root, { recursive: true, encoding: "utf8" })) age(path.join(root, p));
  writeStamp(stamp);
};

it("is stale with no stamp, current after it, and stale again when a source is edited, added or deleted", () => {
  const src = path.join(root, "server");
  mkdirSync(path.join(src, "store"), { recursive: true });
  for (const f of ["main.ts", "store/events.ts"]) writeFileSync(path.join(src, f), "export {};\n");
  const config = path.join(root, "tsconfig.json");
  writeFileSync(config, "{}\n");
  const stamp = path.join(root, ".server-built");
  const sources = [src, config];

  expect(isStale(stamp, sources)).toBe(true);
  restamp(stamp);
  expect(isStale(stamp, sources)).toBe(false);

  writeFileSync(path.join(src, "store/events.ts"), "export const edited = 1;\n");
  expect(isStale(stamp, sources)).toBe(true);
  restamp(stamp);
  expect(isStale(stamp, sources)).toBe(false);

  rmSync(path.join(src, "main.ts"));
  expect(isStale(stamp, sources)).toBe(true);
  restamp(stamp);
  expect(isStale(stamp, sources)).toBe(false);

  writeFileSync(path.join(src, "store", "added.ts"), "export {};\n");
  expect(isStale(stamp, sources)).toBe(true);
  restamp(stamp);
  writeFileSync(config, '{"compilerOptions":{}}\n');
  expect(isStale(stamp, sources)).toBe(true);
});
