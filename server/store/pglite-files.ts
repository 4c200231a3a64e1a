/**
 * The embedded database's files are the server's alone: its directory 0700 (0711 when the
 * sandbox's user must pass through it to a workspace root inside), every directory of Postgres
 * in it 0700 and every file 0600, as Postgres itself keeps a data directory.
 *
 * PGlite does not: the cluster it makes on first open is written through Emscripten's NODEFS with
 * an explicit chmod to 0666 (measured: 968 of its 971 files 0666 under umask 022, postgresql.conf
 * and pg_hba.conf among them; its directories 0755). Files Postgres creates later (new relations,
 * WAL segments) are 0600 already. So the directory is made private before PGlite opens it, and one
 * pass after it opened makes Postgres's entries private.
 *
 * Rejected: a process umask of 077 while PGlite initialises. It would not help (PGlite's chmod
 * to 0666 ignores the umask; only its directories would come out 0700), and a umask is the whole
 * process's: an application's own files created during those seconds, in any module, would come
 * out private too. Rejected as well: patching Emscripten's file system inside PGlite, an internal
 * of the package.
 *
 * The pass walks only Postgres's own names (`base`, `global`, `PG_VERSION`, `pg_*`,
 * `postgresql.*`, `postmaster.*`): anything else in the directory (the default workspace root,
 * `<DATA_DIR>/workspaces`, and its own rules) is left as it is. It chmods by path, one call per
 * entry, which is safe here because nobody else can write these directories (they are 0755 at
 * worst and the server's), so no entry can be swapped for a link between the listing and the
 * chmod; links found are not followed.
 */
import type { Dirent } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";

/** Modes of what Postgres keeps in its directory. */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** The names Postgres uses at the top of a data directory. */
export function isPostgresEntry(name: string): boolean {
  return name === "base" || name === "global" || name === "PG_VERSION" || /^(pg_|postgresql\.|postmaster\.)/.test(name) || name === "current_logfiles";
}

/** Makes Postgres's directories 0700 and its files 0600 under `dataDir`. */
export async function makePostgresFilesPrivate(dataDir: string): Promise<void> {
  const walk = async (dir: string, entries: Dirent[]): Promise<void> => {
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        await fs.chmod(p, PRIVATE_DIR_MODE);
        await walk(p, await fs.readdir(p, { withFileTypes: true }));
      } else if (e.isFile()) {
        await fs.chmod(p, PRIVATE_FILE_MODE);
      }
    }
  };
  const top = await fs.readdir(dataDir, { withFileTypes: true });
  await walk(
    dataDir,
    top.filter((e) => isPostgresEntry(e.name)),
  );
}
