/**
 * `npx threadline <command>` (server/cli.ts, the package's `threadline` bin), run from source as
 * a child process configured only by its environment: usage, `migrate` on Postgres and on a
 * PGlite directory (and its failure as a start-up sentence), `conformance` handing its arguments
 * to the kit, and `start` serving until SIGTERM.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../server/store/migrations.generated.ts";
import { spawnMain } from "../support/main-process.ts";
import { boundUrl, expectServesThenStops, START_BOUND_MS } from "../support/readiness-probe.ts";
import { testSchema } from "../support/schemas.ts";
import { childEnv } from "../support/server-process.ts";
import { unusedPort } from "../support/ports.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const CLI = path.join(ROOT, "server/cli.ts");
const DATABASE_URL = process.env.DATABASE_URL;
const newest = MIGRATIONS.at(-1)!;
const scratch = mkdtempSync(path.join(tmpdir(), "threadline-cli-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<Ran> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ["--import", "tsx", CLI, ...args], { cwd: ROOT, env: childEnv({ DATA_DIR: path.join(scratch, "unused"), ...env }), timeout: START_BOUND_MS });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

/** The log lines of a run (pino JSON: not a terminal), by message. */
const messages = (stdout: string) => stdout.split("\n").filter(Boolean).map((l) => (JSON.parse(l) as { msg: string }).msg);

describe("threadline <command>", () => {
  it("without a command: exit 2, saying so, with the usage; help: exit 0", async () => {
    const none = await cli([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^Give a command\.\n\nUsage: threadline <command>/);
    const wrong = await cli(["serve"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^"serve" is not a command of threadline\./);
    const help = await cli(["help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/start .*\n.*migrate .*\n.*conformance /);
  }, START_BOUND_MS);

  it.skipIf(!DATABASE_URL)("migrate applies every migration to DATABASE_URL's schema and exits 0; again, it finds them applied", async () => {
    const schema = testSchema("cli");
    for (let round = 0; round < 2; round++) {
      const ran = await cli(["migrate"], { DATABASE_URL, DATABASE_SCHEMA: schema });
      expect(ran.code, ran.stdout + ran.stderr).toBe(0);
      expect(messages(ran.stdout)).toContain(`migrated: schema ${schema} of DATABASE_URL is at migration ${newest.id} (${newest.name})`);
    }
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(`select count(*)::int as n from "${schema}".migrations`);
      expect(rows[0]!.n).toBe(MIGRATIONS.length);
    } finally {
      await client.end();
    }
  }, 2 * START_BOUND_MS);

  it("migrate on the embedded database: DATA_DIR is created and migrated", async () => {
    const dataDir = path.join(scratch, "pglite");
    const ran = await cli(["migrate"], { DATA_DIR: dataDir, DATABASE_URL: undefined });
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    expect(messages(ran.stdout)).toContain(`migrated: the embedded database under ${dataDir} is at migration ${newest.id} (${newest.name})`);
  }, START_BOUND_MS);

  it("migrate against a database that is not there: exit 1 with the start-up sentence naming DATABASE_URL", async () => {
    const port = await unusedPort();
    const ran = await cli(["migrate"], { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/x` });
    expect(ran.code).toBe(1);
    expect(messages(ran.stdout)).toContain(
      `DATABASE_URL points at 127.0.0.1:${port}, where nothing accepts connections (connection refused): start Postgres there, or fix the host and port in DATABASE_URL.`,
    );
  }, START_BOUND_MS);

  it("conformance hands its arguments to the kit", async () => {
    const help = await cli(["conformance", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: threadline-conformance <url>/);
    const bad = await cli(["conformance", "not a url"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^"not a url" is not a URL\./);
  }, START_BOUND_MS);

  it("start serves (a run is accepted) until SIGTERM, then exits 0", async () => {
    const child = spawnMain({ DATA_DIR: path.join(scratch, "start") }, ["--import", "tsx", CLI, "start"]);
    try {
      const url = await boundUrl(child);
      await child.waitForLine((l) => /^Threadline listening on /.test(l.msg), START_BOUND_MS);
      await expectServesThenStops(child, url);
    } finally {
      await child.kill("SIGKILL");
    }
  }, START_BOUND_MS + 60_000);
});
