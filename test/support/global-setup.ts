/**
 * Once per `vitest run`: before any test file, the fresh PGlite cluster's files (pglite.ts); after
 * the last, a check that the run left nothing in the server's default schema.
 *
 * Each file's schemas from testSchema() are dropped and checked by teardown.ts, but a test that
 * starts a server without a schema of its own migrates into the default one ("threadline", the
 * DATABASE_SCHEMA default), which no file owns and so nothing dropped: every suite run left it
 * behind once. It can only be seen across the whole run, so it is checked here. Rejected: dropping
 * it at the end, which would hide the test that wrote it and could drop a developer's own data.
 */
import pg from "pg";
import { makeFreshClusterFiles } from "./pglite.ts";

const DEFAULT_SCHEMA = "threadline";

async function schemaExists(url: string, name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query("select 1 from pg_namespace where nspname = $1::text", [name]);
    return rows.length > 0;
  } finally {
    await client.end();
  }
}

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  await makeFreshClusterFiles();
  const url = process.env.DATABASE_URL;
  if (!url) return undefined;
  // Already there (a developer's own server on this database): nothing this run does can be told apart.
  if (await schemaExists(url, DEFAULT_SCHEMA)) return undefined;
  return async () => {
    if (await schemaExists(url, DEFAULT_SCHEMA)) {
      // vitest prints an error thrown by a global teardown but still exits 0; the exit code is
      // what CI reads.
      process.exitCode = 1;
      throw new Error(
        `the test run created the default schema "${DEFAULT_SCHEMA}" on ${url} and left it: a test started a server or store without a schema of its own. Give it testSchema() (test/support/schemas.ts), then drop "${DEFAULT_SCHEMA}".`,
      );
    }
  };
}
