/**
 * Start-up that says what to do: the standalone server (server/main.ts) started in a child
 * process with one misconfiguration each, and every one ends the same way: exit code 1, one log
 * line at error level whose message is one sentence naming the setting and the fix (no secret in
 * it), no stack unless LOG_LEVEL=debug, and no wait: at most START_BOUND_MS from the server's
 * first log line (module loading, which a loaded machine stretches, comes before it and is not
 * what this bounds). A happy start names each agent's model, and a second server on its port
 * exits before it opens anything. (That OPENAI_BASE_URL alone lets a bare MODEL start is
 * test/models/selection.test.ts's.)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LEVEL, spawnMain, type LogLine, type MainExit, type MainProcess } from "../support/main-process.ts";
import { pgbouncerMissing, startPgBouncer, type PgBouncer } from "../support/pgbouncer.ts";
import { STARTUP_CONNECT_TRIES } from "../../server/store/migration-bounds.ts";
import { testSchema } from "../support/schemas.ts";
import { startTcpProxy } from "../support/tcp-proxy.ts";
import { unusedPort } from "../support/ports.ts";

const DATABASE_URL = process.env.DATABASE_URL;
/** The bound the server keeps on every refusal: no retry of a refused connection, no hang. */
const START_BOUND_MS = 5_000;
/**
 * How long a test waits for the child at all: module loading on a busy machine included, and a
 * first start that makes its PGlite database on disk (31 s alone at load average 19 on 2 cores;
 * 60 s was not enough for "a start that works" in a loaded run).
 */
const EXIT_WAIT_MS = 120_000;
/** A test's own bound: the child's, and the test's work around it. */
const TEST_MS = EXIT_WAIT_MS + 30_000;

const tmp = mkdtempSync(join(tmpdir(), "threadline-startup-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Refusal {
  code: string;
  setting: string;
  sentence: RegExp;
  /** Text of the configuration that must not appear anywhere in the output (a password). */
  secret?: string;
  /** The bound on the exit from the first log line, when it is not START_BOUND_MS, and why. */
  boundMs?: number;
  /** The PORT given: /readyz is asked every 50 ms until the exit, and must never have said 200. */
  readyzPort?: number;
}

/** /readyz's answers from now until `exited`: a status, or 0 for no answer (not listening yet, a stalled loop). */
async function readyzAnswers(port: number, exited: Promise<unknown>): Promise<number[]> {
  const answers: number[] = [];
  let done = false;
  void exited.then(() => (done = true));
  while (!done) {
    answers.push(await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.status, () => 0));
    await new Promise((r) => setTimeout(r, 50));
  }
  return answers;
}

function waitExit(server: MainProcess): Promise<MainExit> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void server.kill("SIGKILL");
      reject(new Error(`the server did not exit within ${EXIT_WAIT_MS} ms:\n${server.output()}`));
    }, EXIT_WAIT_MS);
    void server.exited.then((exit) => {
      clearTimeout(timer);
      resolve(exit);
    });
  });
}

/** Starts main.ts with `env` and checks that it refuses to start as `expected` says. */
async function expectRefusal(env: Record<string, string | undefined>, expected: Refusal): Promise<MainProcess> {
  const server = spawnMain({ DATA_DIR: join(tmp, "default-data"), ...env, ...(expected.readyzPort && { PORT: String(expected.readyzPort) }) });
  const readyz = expected.readyzPort ? readyzAnswers(expected.readyzPort, server.exited) : undefined;
  const exit = await waitExit(server);
  const out = server.output();
  if (readyz) expect(await readyz, out).not.toContain(200);
  expect(exit.code, out).toBe(1);
  const errors = server.lines().filter((l) => l.level >= LEVEL.error);
  expect(errors, out).toHaveLength(1);
  const [line] = errors as [LogLine];
  expect(line, out).toMatchObject({ code: expected.code, setting: expected.setting });
  expect(line.msg, out).toMatch(expected.sentence);
  // One sentence: one line, one full stop at its end.
  expect(line.msg).toMatch(/^[^\n]+\.$/);
  expect(line.msg).not.toMatch(/\. [A-Z]/);
  // No stack, no error object, nothing on stderr at the default level.
  for (const l of server.lines()) expect(l, out).not.toHaveProperty("err");
  expect(out).not.toMatch(/\bat .*\.(ts|js):\d+/);
  expect(server.stderr()).toBe("");
  if (expected.secret) expect(out).not.toContain(expected.secret);
  expect(exit.firstLineToExitMs ?? 0, `exited ${exit.firstLineToExitMs} ms after its first log line:\n${out}`).toBeLessThan(expected.boundMs ?? START_BOUND_MS);
  return server;
}

describe("start-up misconfigurations: one sentence naming the setting and the fix, exit code 1", () => {
  it("DATABASE_URL at a closed port is refused at once, not after the retry bound", async () => {
    const port = await unusedPort();
    await expectRefusal(
      { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/test` },
      {
        code: "DATABASE_REFUSED",
        setting: "DATABASE_URL",
        sentence: new RegExp(`^DATABASE_URL points at 127\\.0\\.0\\.1:${port}, where nothing accepts connections \\(connection refused\\): start Postgres there, or fix the host and port in DATABASE_URL\\.$`),
      },
    );
  }, TEST_MS);

  it("DATABASE_URL at a server that never answers ends after STARTUP_CONNECT_TRIES tries of DB_CONNECT_TIMEOUT_MS", async () => {
    // Accepts the TCP connection and then says nothing: a black-holed database, bounded by the
    // connect timeout (here 1 s) of each of the start's STARTUP_CONNECT_TRIES tries (a database
    // only slow to accept, on a starved machine, is waited for that long) and their pauses.
    let tries = 0;
    const silent: Server = createServer(() => {});
    silent.on("connection", () => tries++);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as { port: number };
    try {
      await expectRefusal(
        { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/test`, DB_CONNECT_TIMEOUT_MS: "1000" },
        {
          code: "DATABASE_SILENT",
          setting: "DATABASE_URL",
          sentence: new RegExp(`^The database at 127\\.0\\.0\\.1:${port} did not answer within DB_CONNECT_TIMEOUT_MS \\(1000 ms\\): check that DATABASE_URL points at a running Postgres`),
          // Six tries of 1 s and five pauses of at most 1 s, with room for a starved process.
          boundMs: STARTUP_CONNECT_TRIES * 2_000 + 10_000,
        },
      );
      expect(tries).toBe(STARTUP_CONNECT_TRIES);
    } finally {
      silent.close();
    }
  }, TEST_MS);

  describe.runIf(!pgbouncerMissing())("behind a PgBouncer that checks passwords (md5)", () => {
    let bouncer: PgBouncer;
    beforeAll(async () => {
      bouncer = await startPgBouncer("session", DATABASE_URL, { password: "the-right-one" });
    }, 30_000);
    afterAll(async () => {
      await bouncer?.stop();
    });

    it("a wrong password names the user and DATABASE_URL, and never the password", async () => {
      const url = new URL(bouncer.url);
      url.password = "hunter2-wrong";
      await expectRefusal(
        { DATABASE_URL: url.toString() },
        {
          code: "DATABASE_AUTH_FAILED",
          setting: "DATABASE_URL",
          sentence: new RegExp(`^The database at 127\\.0\\.0\\.1:${url.port} refused user "postgres" \\(password authentication failed\\): fix the user or password in DATABASE_URL`),
          secret: "hunter2-wrong",
        },
      );
    }, TEST_MS);
  });

  describe.runIf(DATABASE_URL)("on the test Postgres", () => {
    it("a database that goes silent mid-start (a new connection, or an answer) is DATABASE_SILENT, and /readyz never said 200 before it", async () => {
      // A proxy in front of the test Postgres passes the first connection and swallows the
      // second's startup packet, and everything after it on every connection: the start gets
      // past its first statements, then either a new connection times out (pg's "timeout
      // expired" on a client of its own, which used to end the start as "Threadline could not
      // start: timeout expired") or a statement's answer does ("Query read timeout", which
      // ended it as "The database is unavailable").
      const target = new URL(DATABASE_URL!);
      const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
      let startups = 0;
      // A StartupMessage: length, then protocol 3.0 (0x00030000).
      void proxy.blackholeOn((chunk) => chunk.length >= 8 && chunk.readUInt32BE(4) === 0x00030000 && ++startups === 2);
      try {
        await expectRefusal(
          { DATABASE_URL: proxy.url(DATABASE_URL!), DATABASE_SCHEMA: testSchema("silent"), DB_CONNECT_TIMEOUT_MS: "1000", DB_STATEMENT_TIMEOUT_MS: "2000", DB_RETRY_MAX_MS: "5000" },
          {
            code: "DATABASE_SILENT",
            setting: "DATABASE_URL",
            // Whichever bound passes first: the new connection's, or an answer on the first one's.
            sentence: new RegExp(`^The database at 127\\.0\\.0\\.1:${proxy.port} (did not answer within DB_CONNECT_TIMEOUT_MS \\(1000 ms\\)|stopped answering during the start \\(a statement got no answer within DB_STATEMENT_TIMEOUT_MS and a second\\)): check that`),
            readyzPort: await unusedPort(),
            // A statement that gets no answer is retried within DB_RETRY_MAX_MS: each attempt is
            // bounded by DB_STATEMENT_TIMEOUT_MS and a second (3 s here), the retries by 5 s more.
            boundMs: 30_000,
          },
        );
      } finally {
        await proxy.close();
      }
    }, TEST_MS);

    it("a DATABASE_DIRECT_URL at a closed port is refused by name, not waited on", async () => {
      // DATABASE_URL is declared a transaction pooler, so the start probes the direct URL for its
      // LISTEN session; before, that probe was retried for ever and the start never ended.
      // The start migrates through DATABASE_URL before it opens that session, so the test gives
      // it a schema of its own, dropped with the file's others (the default one was left behind).
      const port = await unusedPort();
      await expectRefusal(
        { DATABASE_URL, DATABASE_SCHEMA: testSchema("refused"), DATABASE_POOL_MODE: "transaction", DATABASE_DIRECT_URL: `postgres://postgres@127.0.0.1:${port}/test` },
        {
          code: "DATABASE_REFUSED",
          setting: "DATABASE_DIRECT_URL",
          sentence: new RegExp(`^DATABASE_DIRECT_URL points at 127\\.0\\.0\\.1:${port}, where nothing accepts connections \\(connection refused\\): start Postgres there, or fix the host and port in DATABASE_DIRECT_URL\\.$`),
        },
      );
    }, TEST_MS);

    it("a missing database says how to create it", async () => {
      const url = new URL(DATABASE_URL!);
      const name = `threadline_missing_${process.pid}`;
      url.pathname = `/${name}`;
      await expectRefusal(
        { DATABASE_URL: url.toString() },
        {
          code: "DATABASE_MISSING",
          setting: "DATABASE_URL",
          sentence: new RegExp(`^The database "${name}" does not exist on ${url.hostname.replaceAll(".", "\\.")}:${url.port || 5432}: create it \\(createdb "${name}", or CREATE DATABASE "${name}"\\), or fix the database name in DATABASE_URL\\.$`),
        },
      );
    }, TEST_MS);

    it("a user who may not create the schema is told what to grant", async () => {
      const role = `threadline_noprivs_${process.pid}`;
      const admin = new pg.Client({ connectionString: DATABASE_URL });
      await admin.connect();
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      try {
        const url = new URL(DATABASE_URL!);
        url.username = role;
        await expectRefusal(
          { DATABASE_URL: url.toString(), DATABASE_SCHEMA: `${role}_schema` },
          {
            code: "DATABASE_PRIVILEGE",
            setting: "DATABASE_URL",
            sentence: new RegExp(`^User "${role}" lacks a privilege the migrations need \\(permission denied for database .+\\): grant it \\(for a new schema: GRANT CREATE ON DATABASE`),
          },
        );
      } finally {
        await admin.query(`DROP ROLE ${role}`);
        await admin.end();
      }
    }, TEST_MS);
  });

  it("a DATABASE_URL without a scheme says what it must start with, without echoing it", async () => {
    await expectRefusal(
      { DATABASE_URL: "postgres:hunter2@127.0.0.1:5432/test" },
      {
        code: "CONFIG_INVALID",
        setting: "DATABASE_URL",
        sentence: /^Invalid configuration \(DATABASE_URL: must be a Postgres URL starting with postgres:\/\/ or postgresql:\/\/, as in postgres:\/\/user:password@localhost:5432\/threadline\): fix or unset DATABASE_URL and start again\.$/,
        secret: "hunter2",
      },
    );
  }, TEST_MS);

  it("a DATA_DIR that cannot be made names its path", async () => {
    // Root writes anywhere a directory can be: below a file, none can.
    const file = join(tmp, "a-file");
    writeFileSync(file, "not a directory");
    const dataDir = join(file, "data");
    await expectRefusal(
      { DATA_DIR: dataDir },
      {
        code: "DATA_DIR_UNUSABLE",
        setting: "DATA_DIR",
        sentence: new RegExp(`^DATA_DIR ${dataDir} cannot hold the embedded database \\(stat ${dataDir}: ENOTDIR\\): set DATA_DIR to a directory this process can create and write, or give it access to this one\\.$`),
      },
    );
  }, TEST_MS);

  it("a DATA_DIR under /proc is refused, not waited on", async () => {
    // A recursive mkdir there never returns, and PGlite never opens: the bounded probe answers.
    const dataDir = `/proc/threadline-${process.pid}`;
    await expectRefusal(
      { DATA_DIR: dataDir },
      {
        code: "DATA_DIR_UNUSABLE",
        setting: "DATA_DIR",
        sentence: new RegExp(`^DATA_DIR ${dataDir} cannot hold the embedded database \\(mkdir ${dataDir}: ENOENT\\): set DATA_DIR to a directory`),
      },
    );
  }, TEST_MS);

  it("a MODEL whose provider key is missing is refused at start, naming the variable", async () => {
    await expectRefusal(
      { MODEL: "anthropic:claude-sonnet-4-5" },
      {
        code: "MODEL_UNAVAILABLE",
        setting: "ANTHROPIC_API_KEY",
        sentence: /^The model "anthropic:claude-sonnet-4-5" \(MODEL\) needs ANTHROPIC_API_KEY: set ANTHROPIC_API_KEY, or choose another model in MODEL\.$/,
      },
    );
  }, TEST_MS);

  it("a bare MODEL without an OpenAI key is refused, not answered by the demo", async () => {
    await expectRefusal(
      { MODEL: "gpt-4o-mini" },
      {
        code: "MODEL_UNAVAILABLE",
        setting: "OPENAI_API_KEY",
        sentence: /^MODEL "gpt-4o-mini" names an OpenAI model, and neither OPENAI_API_KEY nor OPENAI_BASE_URL is set: set OPENAI_API_KEY \(or OPENAI_BASE_URL for a compatible server\), or choose "demo" for the offline demo model\.$/,
      },
    );
  }, TEST_MS);

  it("LOG_LEVEL=debug adds the failure in full after the sentence", async () => {
    const port = await unusedPort();
    const server = spawnMain({ DATA_DIR: join(tmp, "debug-data"), DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/test`, LOG_LEVEL: "debug" });
    const exit = await waitExit(server);
    expect(exit.code, server.output()).toBe(1);
    const sentence = server.lines().find((l) => l.level === LEVEL.error);
    expect(sentence?.code).toBe("DATABASE_REFUSED");
    expect(sentence).not.toHaveProperty("err");
    const full = server.lines().find((l) => l.level === LEVEL.debug && l.err !== undefined) as (LogLine & { err: { stack: string; type: string } }) | undefined;
    expect(full?.err.type, server.output()).toBe("StartupError");
    expect(full?.err.stack).toMatch(/ECONNREFUSED/);
  }, TEST_MS);
});

describe("a start that works", () => {
  let first: MainProcess;
  let port: number;
  const dataDir = join(tmp, "first-data");

  beforeAll(async () => {
    first = spawnMain({ DATA_DIR: dataDir });
    const listening = await first.waitForLine((l) => /^Threadline listening/.test(l.msg), EXIT_WAIT_MS);
    port = listening.port as number;
  }, TEST_MS);
  afterAll(async () => {
    const exit = await first?.kill();
    expect(exit?.code).toBe(0);
  });

  it("names each agent's model in the start-up log", async () => {
    const line = first.lines().find((l) => /^agents' models: /.test(l.msg));
    expect(line, first.output()).toBeDefined();
    const res = await fetch(`http://127.0.0.1:${port}/api/agents`);
    const { agents } = (await res.json()) as { agents: { id: string }[] };
    expect(agents.length).toBeGreaterThan(1);
    for (const { id } of agents) {
      expect(line!.models, id).toHaveProperty(id, "demo");
      expect(line!.msg).toContain(`${id} → demo`);
    }
  });

  it("a second server on its port exits 1 before it opens the same DATA_DIR, and the first goes on", async () => {
    const second = await expectRefusal(
      { PORT: String(port), DATA_DIR: dataDir },
      { code: "PORT_IN_USE", setting: "PORT", sentence: new RegExp(`^PORT ${port} is in use by another process: stop it, or set PORT to a free port\\.$`) },
    );
    // It never reached the database (test/library/startup.test.ts shows its DATA_DIR is not even made).
    expect(second.lines().filter((l) => /event store|migrat|recover/i.test(l.msg)), second.output()).toEqual([]);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);
  }, TEST_MS);
});
