/**
 * Configuration, read once from the environment at the edge and passed down as a value.
 * Every variable is optional: with none set, the server runs on embedded PGlite under ./data
 * and answers with the built-in demo model, offline.
 */
import { z } from "zod";
import { DEFAULT_DB_TIMEOUTS, type DbTimeouts } from "./store/postgres.ts";
import { DEFAULT_RETRY_MAX_MS } from "./store/retry.ts";
import { DEFAULT_KEEP_ALIVE_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS } from "./http/server-timeouts.ts";
import { ModelSpecError, parseModelSpec } from "./models/spec.ts";
import { DEFAULT_FOREIGN_BOUNDS } from "./engine/foreign/bounds.ts";
import { StartupError } from "./startup-errors.ts";
import { ApiKeysError, parseApiKeys, type ApiKey } from "./tenant.ts";
import { parseTenantValues, TenantValuesError } from "./webhooks/tenant-values.ts";

/** The default of DRAIN_TIMEOUT_MS and of the library's `drainTimeoutMs`. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

const intWithDefault = (fallback: number) =>
  z.coerce.number().int().nonnegative().optional().transform((v) => v ?? fallback);

const positiveIntWithDefault = (fallback: number) =>
  z.coerce.number().int().positive().optional().transform((v) => v ?? fallback);

/** Comma-separated origins, each `scheme://host[:port]`. */
const originList = optionalString.pipe(
  z
    .string()
    .optional()
    .transform((v) => (v === undefined ? [] : v.split(",").map((o) => o.trim()).filter(Boolean)))
    .refine((list) => list.every((o) => /^https?:\/\/[^/\s]+\/?$/i.test(o)), {
      message: "each entry must be an origin such as https://app.example.com or http://localhost:5173",
    }),
);

/** What a Postgres URL starts with; anything else is refused before a connection is tried. */
const POSTGRES_URL_SCHEME = /^postgres(ql)?:\/\//i;

/** Why `url` is not a Postgres URL, or undefined when it is one (a shape check, no parsing). */
export function postgresUrlProblem(url: string): string | undefined {
  if (POSTGRES_URL_SCHEME.test(url)) return undefined;
  return "must be a Postgres URL starting with postgres:// or postgresql://, as in postgres://user:password@localhost:5432/threadline";
}

/** A URL variable that is a Postgres URL when set; its value never appears in the message. */
const postgresUrl = optionalString.superRefine((v, ctx) => {
  const problem = v === undefined ? undefined : postgresUrlProblem(v);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

/** The shortest webhook secret taken: an HMAC key guessable in fewer tries is no signature. */
const WEBHOOK_SECRET_MIN = 16;

/** Why a webhook URL set in the configuration cannot be one (its shape; hosts are judged at delivery). */
function webhookUrlShapeProblem(url: string): string | undefined {
  try {
    const { protocol } = new URL(url);
    return protocol === "https:" || protocol === "http:" ? undefined : "must be an http or https URL";
  } catch {
    return "must be an absolute URL such as https://example.com/hooks/threadline";
  }
}

/** A `tenant:value` list (webhooks/tenant-values.ts), each value checked by `problem`. */
function tenantValues(what: string, problem: (value: string) => string | undefined) {
  return optionalString.transform((v, ctx): Map<string, string> => {
    try {
      const map = parseTenantValues(v, what);
      for (const [tenant, value] of map) {
        const wrong = problem(value);
        if (wrong) ctx.addIssue({ code: "custom", message: `the ${what} of tenant "${tenant}" ${wrong}` });
      }
      return map;
    } catch (err) {
      if (!(err instanceof TenantValuesError)) throw err;
      ctx.addIssue({ code: "custom", message: err.message });
      return z.NEVER;
    }
  });
}

export const ConfigSchema = z.object({
  PORT: intWithDefault(3000),
  HOST: optionalString.transform((v) => v ?? "0.0.0.0"),
  /**
   * How long the standalone server keeps an idle kept-alive connection open (Node's
   * keepAliveTimeout; headersTimeout is 1 s more). Set it above the idle timeout of the load
   * balancer in front (README "Deploying"), so that the balancer closes first and never sends a
   * request on a connection the server is closing (http/server-timeouts.ts).
   */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: positiveIntWithDefault(DEFAULT_KEEP_ALIVE_TIMEOUT_MS),
  /** How long receiving one whole request may take (Node's requestTimeout; 0: no bound). Responses, SSE streams included, are not under it. */
  HTTP_REQUEST_TIMEOUT_MS: intWithDefault(DEFAULT_REQUEST_TIMEOUT_MS),
  DATABASE_URL: postgresUrl,
  /**
   * A URL that keeps sessions (the Postgres server, or a session-mode pooler), for the LISTEN of
   * the doorbell when DATABASE_URL is a transaction-mode pooler (README "Poolers").
   */
  DATABASE_DIRECT_URL: postgresUrl,
  /** What DATABASE_URL is: auto (detected at start), transaction, session or direct. */
  DATABASE_POOL_MODE: z.enum(["auto", "transaction", "session", "direct"]).default("auto"),
  DATA_DIR: optionalString.transform((v) => v ?? "./data"),
  /** Postgres schema for the store's tables: several deployments (or tests) can share a database. */
  DATABASE_SCHEMA: optionalString.transform((v) => v ?? "threadline"),
  /**
   * On a database with the Citus extension: "auto" distributes the tables at start, per thread and
   * per tenant (docs/scaling.md); "off" keeps them local to the node DATABASE_URL names.
   */
  DATABASE_DISTRIBUTE: z.enum(["auto", "off"]).default("auto"),
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: optionalString,
  /** The model name on OpenAI when MODEL is unset (models/from-config.ts: DEFAULT_OPENAI_MODEL when unset too). */
  OPENAI_MODEL: optionalString,
  /**
   * The default model as "provider:name" (server/models/spec.ts): openai:gpt-4o-mini,
   * anthropic:claude-sonnet-4-5, google:gemini-2.5-flash, openrouter:<vendor>/<model>,
   * ollama:<tag>, demo. Unset: OPENAI_MODEL on OpenAI when it is configured, else the demo.
   */
  MODEL: optionalString.superRefine((v, ctx) => {
    if (v === undefined) return;
    try {
      parseModelSpec(v);
    } catch (err) {
      if (!(err instanceof ModelSpecError)) throw err;
      ctx.addIssue({ code: "custom", message: err.message });
    }
  }),
  ANTHROPIC_API_KEY: optionalString,
  ANTHROPIC_BASE_URL: optionalString,
  OPENROUTER_API_KEY: optionalString,
  GOOGLE_GENERATIVE_AI_API_KEY: optionalString,
  /** Ollama's OpenAI-compatible /v1 URL, for ollama:<tag> models. */
  OLLAMA_BASE_URL: optionalString,
  /**
   * Comma-separated bearer tokens, each optionally `tenant:key`; when set, every /api request
   * needs one, and the key decides the caller's tenant (server/tenant.ts has the rules).
   */
  API_KEYS: optionalString.transform((v, ctx): ApiKey[] => {
    try {
      return parseApiKeys(v);
    } catch (err) {
      if (!(err instanceof ApiKeysError)) throw err;
      ctx.addIssue({ code: "custom", message: err.message });
      return z.NEVER;
    }
  }),
  /** Input limits (server/http/limits.ts): checked before anything else on every /api route. */
  MAX_BODY_BYTES: positiveIntWithDefault(4 * 1024 * 1024),
  MAX_JSON_DEPTH: positiveIntWithDefault(64),
  MAX_STRING_BYTES: positiveIntWithDefault(1024 * 1024),
  MAX_ARRAY_LENGTH: positiveIntWithDefault(10_000),
  MAX_OBJECT_KEYS: positiveIntWithDefault(1_000),
  /**
   * What a foreign agent's run (remoteAgent, agentRunner) may write (server/engine/foreign/bounds.ts):
   * one message, tool call's arguments, tool result, state snapshot or delta; the whole run.
   */
  FOREIGN_MESSAGE_MAX_BYTES: positiveIntWithDefault(DEFAULT_FOREIGN_BOUNDS.messageBytes),
  FOREIGN_RUN_MAX_BYTES: positiveIntWithDefault(DEFAULT_FOREIGN_BOUNDS.runBytes),
  /** Browser origins besides the server's own that may send state-changing /api requests. */
  ALLOWED_ORIGINS: originList,
  /** Bearer token for GET /metrics; when unset and API_KEYS is set, any API key. */
  METRICS_TOKEN: optionalString,
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** How long a lease lives without a heartbeat: the bound on recovery after a crash. */
  LEASE_TTL_MS: intWithDefault(15_000),
  /**
   * How long a shutdown (SIGTERM, close()) lets the steps in flight finish before it cuts them
   * and hands their runs over (server/engine/handoff.ts). Longer than the model's longest answer,
   * no answer is asked twice in a rolling upgrade; the orchestrator's grace period (Kubernetes'
   * terminationGracePeriodSeconds) must exceed it by a few seconds.
   */
  DRAIN_TIMEOUT_MS: intWithDefault(DEFAULT_DRAIN_TIMEOUT_MS),
  /** Stream-level events of finished runs are compacted after this long. */
  RETENTION_HOURS: intWithDefault(24),
  /** Postgres bounds (docs/failure-modes.md "Database bounds"); PGlite, in this process, needs none. */
  DB_CONNECT_TIMEOUT_MS: intWithDefault(DEFAULT_DB_TIMEOUTS.connectMs),
  DB_STATEMENT_TIMEOUT_MS: intWithDefault(DEFAULT_DB_TIMEOUTS.statementMs),
  DB_LOCK_TIMEOUT_MS: intWithDefault(DEFAULT_DB_TIMEOUTS.lockMs),
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: intWithDefault(DEFAULT_DB_TIMEOUTS.idleInTransactionMs),
  DB_TCP_TIMEOUT_MS: intWithDefault(DEFAULT_DB_TIMEOUTS.tcpMs),
  /** How long transient database errors are retried before the operation fails. */
  DB_RETRY_MAX_MS: intWithDefault(DEFAULT_RETRY_MAX_MS),
  /**
   * The coding agent's workspaces (README "Coding agent and workspace"): default a directory per
   * thread under `<DATA_DIR>/workspaces`. Set, runs may also choose a workingDirectory under it.
   * With several instances it must be storage they all share.
   */
  WORKSPACE_ROOT: optionalString,
  /** Runs bash and run on the host, without bubblewrap: only for a machine that is itself a sandbox. */
  UNSAFE_RUN_COMMANDS_WITHOUT_SANDBOX: z
    .enum(["true", "false", ""])
    .optional()
    .transform((v) => v === "true"),
  /**
   * Sandbox limits per command: memory (MB) and processes of its whole process tree (a cgroup
   * per command; RLIMIT_DATA and RLIMIT_NPROC per process where none can be made), largest file
   * written (MB), CPU cores at once.
   */
  SANDBOX_MEMORY_MB: positiveIntWithDefault(512),
  SANDBOX_MAX_PROCESSES: positiveIntWithDefault(64),
  SANDBOX_MAX_FILE_MB: positiveIntWithDefault(256),
  SANDBOX_CPUS: positiveIntWithDefault(1),
  /** uid (and gid) commands run as when the server runs as root. */
  SANDBOX_UID: positiveIntWithDefault(65534),
  /** Comma-separated host paths mounted read-only in the sandbox besides /usr and /etc (e.g. a toolchain under /opt). */
  SANDBOX_READONLY_PATHS: optionalString.transform((v) => (v === undefined ? [] : v.split(",").map((p) => p.trim()).filter(Boolean))),
  LLM_CONNECT_TIMEOUT_MS: intWithDefault(30_000),
  LLM_READ_TIMEOUT_MS: intWithDefault(60_000),
  /** Retries of a model request that failed before its first byte (429, 5xx, unreachable). */
  LLM_MAX_RETRIES: intWithDefault(2),
  /** Webhooks (docs/webhooks.md): the key that signs every delivery, unless the tenant has its own. */
  WEBHOOK_SECRET: optionalString.refine((v) => v === undefined || v.length >= WEBHOOK_SECRET_MIN, {
    message: `must be at least ${WEBHOOK_SECRET_MIN} characters (a random string: openssl rand -hex 32)`,
  }),
  /** `tenant:secret` pairs, comma-separated: the key that signs that tenant's deliveries. */
  WEBHOOK_TENANT_SECRETS: tenantValues("secret", (v) => (v.length >= WEBHOOK_SECRET_MIN ? undefined : `must be at least ${WEBHOOK_SECRET_MIN} characters`)),
  /** Where every run's end is posted when neither the run nor its tenant names a URL. */
  WEBHOOK_URL: optionalString.superRefine((v, ctx) => {
    const problem = v === undefined ? undefined : webhookUrlShapeProblem(v);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  }),
  /** `tenant:url` pairs, comma-separated: where that tenant's run ends are posted when the run names no URL. */
  WEBHOOK_TENANT_URLS: tenantValues("url", webhookUrlShapeProblem),
  /** Hosts (names or addresses) webhooks may reach although loopback or private, comma-separated (e.g. 127.0.0.1). */
  WEBHOOK_ALLOWED_HOSTS: optionalString.transform((v) => (v === undefined ? [] : v.split(",").map((h) => h.trim()).filter(Boolean))),
  /** One delivery attempt, connection included: past it the attempt failed. */
  WEBHOOK_TIMEOUT_MS: positiveIntWithDefault(10_000),
  /** Attempts of one delivery before it is given up (recorded in the run's record and the metrics). */
  WEBHOOK_MAX_ATTEMPTS: positiveIntWithDefault(12),
  /** The wait before the first retry; it doubles with each one, up to an hour. */
  WEBHOOK_RETRY_BASE_MS: positiveIntWithDefault(1_000),
  /** Schedules (docs/schedules.md): how often each instance looks for due ticks. */
  SCHEDULE_POLL_MS: positiveIntWithDefault(1_000),
  /** The shortest interval (everyMs) a schedule may have. */
  SCHEDULE_MIN_INTERVAL_MS: positiveIntWithDefault(1_000),
  /** Memory (docs/memory.md): entries one tenant may keep. */
  MEMORY_MAX_ENTRIES: positiveIntWithDefault(10_000),
  /** Bytes (values as JSON) one tenant may keep. */
  MEMORY_MAX_BYTES: positiveIntWithDefault(10 * 1024 * 1024),
  /** The largest value (as JSON) one entry may hold. */
  MEMORY_MAX_VALUE_BYTES: positiveIntWithDefault(64 * 1024),
});

export type Config = z.infer<typeof ConfigSchema>;

/** Variables that do not parse: `settings` names them, the message says what each must be. */
export class ConfigError extends StartupError {
  override readonly name = "ConfigError";
  constructor(
    readonly settings: readonly string[],
    message: string,
  ) {
    super("CONFIG_INVALID", settings.join(", "), message);
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const settings = [...new Set(parsed.error.issues.map((i) => i.path.join(".")))];
    const reasons = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new ConfigError(settings, `Invalid configuration (${reasons}): fix or unset ${settings.join(", ")} and start again.`);
  }
  return parsed.data;
}

export function dbTimeouts(config: Config): Partial<DbTimeouts> {
  return {
    connectMs: config.DB_CONNECT_TIMEOUT_MS,
    statementMs: config.DB_STATEMENT_TIMEOUT_MS,
    lockMs: config.DB_LOCK_TIMEOUT_MS,
    idleInTransactionMs: config.DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    tcpMs: config.DB_TCP_TIMEOUT_MS,
  };
}
