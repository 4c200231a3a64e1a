/**
 * Earlier releases of this repository, as a rolling upgrade meets them: for each migration, the
 * code from just before it was added, which goes on serving while the new release applies it.
 * That is the first parent of the commit that added the migration's file on the first-parent
 * line of HEAD (a migration that came with a merge counts from the merge, so its release is the
 * main line before it, not a commit of the side branch).
 *
 * A release is extracted with `git archive` into a temp dir: the same tree as a worktree, without
 * registering one in the repository (a test killed midway would leave registrations behind, and
 * several checkouts share one .git), and node_modules is a link to this checkout's: the
 * releases so far all start with today's dependencies.
 */
import { execFileSync, execSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { migrationFile, type Migration } from "../../server/store/migration-plan.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface Release {
  /** the migration this release came before */
  before: number;
  commit: string;
  /** the commit's subject, for messages */
  subject: string;
  /** its newest migration: it runs on that schema and, by expand/contract, on later ones */
  knows: number;
}

function git(...args: string[]): string {
  return execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();
}

/** Why the releases cannot be read here (not a git checkout, or a shallow clone), or undefined. */
export function historyMissing(): string | undefined {
  try {
    if (git("rev-parse", "--is-shallow-repository") === "true") return "the clone is shallow (fetch the whole history: git fetch --unshallow)";
  } catch (err) {
    return `this is not a git checkout with its history (${(err as Error).message.split("\n")[0]})`;
  }
  return undefined;
}

/**
 * The release before each migration after the first. A migration not committed yet is being
 * added on top of HEAD, which is then its release.
 */
export function releasesBefore(migrations: readonly Migration[]): Release[] {
  return migrations
    .filter((m) => m.id > 1)
    .map((m) => {
      const added = git("log", "--first-parent", "--diff-filter=A", "--format=%H", "--", `server/store/migrations/${migrationFile(m)}`)
        .split("\n")
        .filter(Boolean)
        .at(-1);
      const commit = added ? git("rev-parse", `${added}^1`) : git("rev-parse", "HEAD");
      return { before: m.id, commit, subject: git("log", "-1", "--format=%s", commit), knows: newestMigrationAt(commit) };
    });
}

/** The release's tree in a new temp dir, with this checkout's node_modules; remove it with removeRelease. */
export function extractRelease(commit: string): string {
  if (!/^[0-9a-f]{40}$/.test(commit)) throw new Error(`not a commit id: ${commit}`);
  const dir = mkdtempSync(join(tmpdir(), `threadline-release-${commit.slice(0, 8)}-`));
  execSync(`git archive --format=tar ${commit} | tar -x -C '${dir}'`, { cwd: ROOT });
  symlinkSync(realpathSync(join(ROOT, "node_modules")), join(dir, "node_modules"), "dir");
  return dir;
}

export function removeRelease(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

function newestMigrationAt(commit: string): number {
  const files = git("ls-tree", "--name-only", commit, "--", "server/store/migrations/").split("\n");
  return Math.max(0, ...files.flatMap((f) => /\/(\d{4})_[a-z0-9_]+\.sql$/.exec(f)?.[1] ?? []).map(Number));
}
