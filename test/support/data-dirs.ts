/**
 * The data directories of test servers (server.ts) not removed yet: close() removes its own, a
 * start that fails removes its own, and when the file ends (teardown.ts) those of servers that a
 * failed or timed-out test never closed are removed. Under load both were left in /tmp: a start
 * that threw (a migration that failed) and tests that timed out before their finally.
 * Rejected: a sweep of every threadline-test-* directory, which would take those of other runs.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const open = new Set<string>();

/** A fresh directory the sandbox's user can reach (tests run as root), remembered until removed. */
export function testDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "threadline-test-"));
  chmodSync(dir, 0o711);
  open.add(dir);
  return dir;
}

export function removeTestDataDir(dir: string): void {
  open.delete(dir);
  rmSync(dir, { recursive: true, force: true });
}

/** Removes every directory testDataDir() handed out in this process and not removed since. */
export function removeTestDataDirs(): void {
  for (const dir of [...open]) removeTestDataDir(dir);
}
