/**
 * A real PgBouncer (Debian's package) in front of the test Postgres, for the pooler tests: its
 * own config in a temp dir, default settings apart from where it listens, the pool mode, and
 * trust auth, or md5 with a password of its own when one is given (so that a wrong password is
 * really refused, which the trust-auth test Postgres never does). PgBouncer refuses to run as
 * root, so it runs as the `postgres` user.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

export const PGBOUNCER_BIN = "/usr/sbin/pgbouncer";

/** How long PgBouncer may take to answer its first connection. */
const READY_TIMEOUT_MS = 10_000;

export interface PgBouncer {
  /** DATABASE_URL through the pooler */
  url: string;
  mode: "transaction" | "session";
  output(): string;
  stop(): Promise<void>;
}

/** Why the pooler tests cannot run here, or undefined when they can. */
export function pgbouncerMissing(): string | undefined {
  if (!process.env.DATABASE_URL) return "DATABASE_URL is not set";
  if (!existsSync(PGBOUNCER_BIN)) return `${PGBOUNCER_BIN} is absent (apt-get install pgbouncer)`;
  try {
    execFileSync("id", ["-u", "postgres"]);
  } catch {
    return "there is no postgres user to run PgBouncer as";
  }
  return undefined;
}

export interface PgBouncerOptions {
  /** The password PgBouncer requires of the user (md5 auth); `url` carries it. Default: trust. */
  password?: string;
}

export async function startPgBouncer(mode: "transaction" | "session", databaseUrl = process.env.DATABASE_URL!, opts: PgBouncerOptions = {}): Promise<PgBouncer> {
  const target = new URL(databaseUrl);
  const dbname = target.pathname.slice(1) || "postgres";
  const user = decodeURIComponent(target.username || "postgres");
  const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
  const dir = mkdtempSync(join(tmpdir(), "threadline-pgbouncer-"));
  const port = await freePort();
  writeFileSync(join(dir, "users.txt"), `"${user}" "${opts.password ?? ""}"\n`);
  writeFileSync(
    join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `${dbname} = host=${target.hostname} port=${target.port || 5432} dbname=${dbname}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      `unix_socket_dir = ${dir}`,
      `auth_type = ${opts.password === undefined ? "trust" : "md5"}`,
      `auth_file = ${join(dir, "users.txt")}`,
      `pool_mode = ${mode}`,
      "",
    ].join("\n"),
  );
  for (const f of ["", "users.txt", "pgbouncer.ini"]) chownSync(join(dir, f), uid, gid);

  const child: ChildProcess = spawn(PGBOUNCER_BIN, [join(dir, "pgbouncer.ini")], { uid, gid, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const credentials = opts.password === undefined ? encodeURIComponent(user) : `${encodeURIComponent(user)}:${encodeURIComponent(opts.password)}`;
  const url = `postgres://${credentials}@127.0.0.1:${port}/${dbname}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await untilAnswers(url, () => child.exitCode !== null, () => output);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, mode, output: () => output, stop };
}

async function untilAnswers(url: string, exited: () => boolean, output: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    client.on("error", () => {}); // the connect's rejection reports it
    try {
      await client.connect();
      await client.query("select 1");
      await client.end();
      return;
    } catch (err) {
      await client.end().catch(() => {}); // best-effort: it never connected
      if (exited() || Date.now() > deadline) throw new Error(`PgBouncer did not answer at ${url}: ${(err as Error).message}\n${output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
