/**
 * Why a server could not start, as one sentence that names the setting and the fix. start(),
 * listen() and createThreadline() reject with a StartupError for every misconfiguration they
 * recognise (the underlying error kept as `cause`), so that an application gets the sentence
 * the standalone server prints; anything else passes through as it was thrown.
 *
 * Secrets never reach a sentence: a database is named by user, host, port and database name,
 * never by its URL, and the server's own words (which never carry the password) are quoted.
 */
import { DataDirError, DataDirInUseError, DirectUrlError, holderText } from "./store/errors.ts";
import { QUERY_TIMEOUT_MESSAGE } from "./store/retry.ts";
import type { Config } from "./config.ts";
import type { Logger } from "./logger.ts";
import type { ThreadlineOptions } from "./options.ts";

export type StartupErrorCode =
  | "CONFIG_INVALID"
  | "PORT_IN_USE"
  | "PORT_NOT_PERMITTED"
  | "HOST_NOT_AVAILABLE"
  | "DATABASE_REFUSED"
  | "DATABASE_HOST_UNKNOWN"
  | "DATABASE_UNREACHABLE"
  | "DATABASE_SILENT"
  | "DATABASE_AUTH_FAILED"
  | "DATABASE_MISSING"
  | "DATABASE_PRIVILEGE"
  | "DATA_DIR_UNUSABLE"
  | "DATA_DIR_IN_USE"
  | "MODEL_UNAVAILABLE";

export class StartupError extends Error {
  override readonly name: string = "StartupError";
  constructor(
    readonly code: StartupErrorCode,
    /** The variable (or option) to change: DATABASE_URL, DATA_DIR, PORT, ANTHROPIC_API_KEY... */
    readonly setting: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** What the sentences name: where the server tried, as the operator configured it. */
export interface StartupContext {
  /** The Postgres URL the store opened, and the name of its setting (DATABASE_URL, or the `database` option). */
  database?: { url: string | undefined; setting: string };
  /** The directory of the embedded database, and its setting (DATA_DIR, or the `dataDir` option). */
  dataDir?: { setting: string };
  /** DB_CONNECT_TIMEOUT_MS in effect. */
  connectTimeoutMs?: number;
}

/** A failure of listen(): the port or the address. */
export function listenErrorOf(err: unknown, port: number, host: string): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === "EADDRINUSE") return new StartupError("PORT_IN_USE", "PORT", `PORT ${port} is in use by another process: stop it, or set PORT to a free port.`, { cause: err });
  if (code === "EACCES") {
    return new StartupError("PORT_NOT_PERMITTED", "PORT", `PORT ${port} needs privileges this process lacks: set PORT to 1024 or above, or grant it CAP_NET_BIND_SERVICE.`, { cause: err });
  }
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EAI_AGAIN") {
    return new StartupError("HOST_NOT_AVAILABLE", "HOST", `HOST ${host} is not an address of this machine (${code}): set HOST to one of its addresses, or to 0.0.0.0 for all of them.`, { cause: err });
  }
  return err;
}

/** A failure of start(): opening the database or its directory, running the migrations. */
export function startErrorOf(err: unknown, ctx: StartupContext): unknown {
  if (err instanceof StartupError) return err;
  const inUse = findInChain(err, (e): e is DataDirInUseError => e instanceof DataDirInUseError);
  if (inUse && ctx.dataDir) return dataDirInUseError(inUse, ctx.dataDir.setting);
  const dirError = findInChain(err, (e): e is DataDirError => e instanceof DataDirError);
  if (dirError && ctx.dataDir) return dataDirError(dirError, ctx.dataDir.setting);
  const direct = findInChain(err, (e): e is DirectUrlError => e instanceof DirectUrlError);
  if (direct) return databaseError(direct.cause, { url: direct.url, setting: "DATABASE_DIRECT_URL" }, ctx.connectTimeoutMs) ?? err;
  if (ctx.database) return databaseError(err, ctx.database, ctx.connectTimeoutMs) ?? err;
  return err;
}

function dataDirError(err: DataDirError, setting: string): StartupError {
  const cause = err.cause as { code?: unknown; path?: unknown; syscall?: unknown; message?: unknown; errno?: unknown } | undefined;
  const code = typeof cause?.code === "string" ? cause.code : undefined;
  const call = [cause?.syscall, cause?.path].filter((p) => typeof p === "string").join(" ");
  const make = (why: string, fix: string) =>
    new StartupError("DATA_DIR_UNUSABLE", setting, `${setting} ${err.dataDir} cannot hold the embedded database (${why}): ${fix}.`, { cause: err });
  if (code === "ETIMEDOUT") return make("it did not answer in time: a hung mount?", `set ${setting} to a directory on a local disk`);
  if (cause?.syscall === "spawn flock") return make("flock(1), which locks it to this process, is not installed", "install util-linux (or BusyBox), which provides it");
  if (code) return make(call ? `${call}: ${code}` : code, `set ${setting} to a directory this process can create and write, or give it access to this one`);
  // The directory is writable, and PGlite still could not open what is in it. Its file-system
  // errors are Emscripten's (`ErrnoError { errno }`, no message).
  const said = typeof cause?.message === "string" && cause.message !== "" ? cause.message : cause?.errno !== undefined ? `errno ${String(cause.errno)}` : String(cause);
  return make(`PGlite could not open it: ${said}`, `set ${setting} to an empty directory, or to one an earlier Threadline wrote`);
}

/** Another process has the embedded database open: two writers on one directory lose data. */
function dataDirInUseError(err: DataDirInUseError, setting: string): StartupError {
  const S = setting.charAt(0).toUpperCase() + setting.slice(1);
  return new StartupError(
    "DATA_DIR_IN_USE",
    setting,
    `${S} ${err.dataDir} is in use by ${holderText(err.holder)}: stop that process first, or set ${setting} to a directory of this server's own (servers that share their data share a Postgres, through DATABASE_URL).`,
    { cause: err },
  );
}

/** The database the URL names, without its password: `user "u" at host:port, database "d"`. */
interface Target {
  user: string;
  at: string;
  database: string;
}

function targetOf(url: string | undefined): Target | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    const host = u.hostname || "localhost";
    return {
      user: decodeURIComponent(u.username) || "(the default user)",
      at: `${host}:${u.port || "5432"}`,
      database: decodeURIComponent(u.pathname.slice(1)) || decodeURIComponent(u.username) || "postgres",
    };
  } catch {
    return undefined;
  }
}

function databaseError(err: unknown, db: { url: string | undefined; setting: string }, connectTimeoutMs: number | undefined): StartupError | undefined {
  const cause = findInChain(err, (e): e is { code?: unknown; message?: unknown } => hasCode(e) || hasMessage(e, KNOWN_MESSAGES));
  if (!cause) return undefined;
  const code = typeof cause.code === "string" ? cause.code : "";
  const said = typeof cause.message === "string" ? cause.message : "";
  const t = targetOf(db.url);
  const where = t ? `The database at ${t.at}` : "The database";
  const s = db.setting;
  const S = s.charAt(0).toUpperCase() + s.slice(1); // at the start of a sentence
  const make = (c: StartupErrorCode, sentence: string) => new StartupError(c, s, sentence, { cause: err });

  if (code === "ECONNREFUSED") return make("DATABASE_REFUSED", `${S} points at ${t?.at ?? "a server"}, where nothing accepts connections (connection refused): start Postgres there, or fix the host and port in ${s}.`);
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return make("DATABASE_HOST_UNKNOWN", `${S} names a host that does not resolve (${code}${t ? ` for ${t.at}` : ""}): fix the host in ${s}.`);
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH") return make("DATABASE_UNREACHABLE", `${where} cannot be reached (${code}): check the host in ${s} and the network between this machine and it.`);
  if (code === "28P01" || code === "28000" || AUTH_MESSAGE.test(said)) {
    const who = t ? `user "${t.user}"` : "the user";
    return make("DATABASE_AUTH_FAILED", `${where} refused ${who} (${said}): fix the user or password in ${s}, or let that user in on the server (pg_hba.conf).`);
  }
  if (code === "3D000") {
    if (!t) return make("DATABASE_MISSING", `The database does not exist (${said}): create it with createdb or CREATE DATABASE, or fix the database name in ${s}.`);
    const name = t.database;
    return make("DATABASE_MISSING", `The database "${name}" does not exist on ${t.at}: create it (createdb "${name}", or CREATE DATABASE "${name}"), or fix the database name in ${s}.`);
  }
  if (code === "42501") {
    const grant = t ? ` (for a new schema: GRANT CREATE ON DATABASE "${t.database}" TO "${t.user}")` : "";
    return make("DATABASE_PRIVILEGE", `${t ? `User "${t.user}"` : "The user"} lacks a privilege the migrations need (${said}): grant it${grant}, or use a ${s} whose user owns DATABASE_SCHEMA.`);
  }
  if (code === "ETIMEDOUT" || CONNECT_TIMEOUT_MESSAGES.some((re) => re.test(said))) {
    const bound = connectTimeoutMs === undefined ? "" : ` within DB_CONNECT_TIMEOUT_MS (${connectTimeoutMs} ms)`;
    const raise = connectTimeoutMs === undefined ? "the pool's connectionTimeoutMillis" : "DB_CONNECT_TIMEOUT_MS";
    return make("DATABASE_SILENT", `${where} did not answer${bound}: check that ${s} points at a running Postgres the network lets through, or raise ${raise}.`);
  }
  if (QUERY_TIMEOUT_MESSAGE.test(said)) {
    // Connected, then silent: pg's own bound on an answer (query_timeout) passed mid-start.
    return make("DATABASE_SILENT", `${where} stopped answering during the start (a statement got no answer within DB_STATEMENT_TIMEOUT_MS and a second): check that the Postgres ${s} points at is up and the network between lets its answers through, or raise DB_STATEMENT_TIMEOUT_MS.`);
  }
  return undefined;
}

const KNOWN_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "ETIMEDOUT", "28P01", "28000", "3D000", "42501"]);
/** A failed authentication in the server's words: PgBouncer sends them with 08P01, not 28P01. */
const AUTH_MESSAGE = /password authentication failed/i;
/**
 * pg's words when DB_CONNECT_TIMEOUT_MS passed: the pool's acquire, the pool's connect, and a
 * client of its own (the migration session, the pool-mode probes, the LISTEN session), whose
 * connectionTimeoutMillis says only "timeout expired".
 */
const CONNECT_TIMEOUT_MESSAGES = [/timeout exceeded when trying to connect/i, /Connection terminated due to connection timeout/i, /^timeout expired$/i];
const KNOWN_MESSAGES = [AUTH_MESSAGE, ...CONNECT_TIMEOUT_MESSAGES, QUERY_TIMEOUT_MESSAGE];

function hasCode(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" && KNOWN_CODES.has(code);
}

function hasMessage(e: unknown, patterns: readonly RegExp[]): boolean {
  const message = (e as { message?: unknown } | null)?.message;
  return typeof message === "string" && patterns.some((p) => p.test(message));
}

/** The error or one of its causes (wrapped errors: DatabaseUnavailableError, a failed migration). */
function findInChain<T>(err: unknown, test: (e: unknown) => e is T): T | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    if (test(e)) return e;
  }
  return undefined;
}

/** What a failed start names: the database setting it opened, or the data directory. */
export function startupContext(opts: ThreadlineOptions, config: Config): StartupContext {
  if (opts.store) return {};
  if (opts.database !== undefined && typeof opts.database !== "string") return { database: { url: undefined, setting: "the `database` option" } };
  if (config.DATABASE_URL) {
    const setting = typeof opts.database === "string" ? "the `database` option" : "DATABASE_URL";
    return { database: { url: config.DATABASE_URL, setting }, connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS };
  }
  return { dataDir: { setting: opts.dataDir !== undefined ? "the `dataDir` option" : "DATA_DIR" } };
}

/**
 * How a failed start is told: a StartupError is its sentence at error level (the stack and the
 * underlying error at debug), anything else is unexpected and logged whole.
 */
export function logStartFailure(logger: Logger, err: unknown): void {
  if (err instanceof StartupError) {
    logger.error({ code: err.code, setting: err.setting }, err.message);
    logger.debug({ err }, "the start-up failure in full");
  } else {
    logger.error({ err }, `Threadline could not start: ${err instanceof Error ? err.message : String(err)}`);
  }
}
