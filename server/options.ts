/**
 * The options of createThreadline, camelCase, each with its default from the environment
 * (server/config.ts): an option given wins over the variable, a missing one falls back to it.
 * They are folded into one Config here, so that the rest of the server reads one value.
 */
import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";
import type { Logger } from "pino";
import type { AgentDefinition } from "./agents/define.ts";
import { DEFAULT_DRAIN_TIMEOUT_MS, loadConfig, postgresUrlProblem, type Config } from "./config.ts";
import type { Model, ModelFactory } from "./models/model.ts";
import type { AuthHook } from "./http/auth.ts";
import type { EventStore } from "./store/types.ts";
import { ApiKeysError, parseApiKeys, type ApiKey } from "./tenant.ts";
import type { WorkspaceHost } from "./workspace/tools.ts";

/** Where the event log lives: a Postgres URL, the application's pg.Pool, or a PGlite instance. */
export type DatabaseOption = string | pg.Pool | PGlite;

/** Bounds on what a request may carry (README "Limits and failure modes"); defaults from the environment. */
export interface ThreadlineLimits {
  /** Bytes of a request body (MAX_BODY_BYTES, 4 MB). */
  maxBodyBytes?: number;
  /** Nesting of objects and arrays in a body (MAX_JSON_DEPTH, 64). */
  maxJsonDepth?: number;
  /** UTF-8 bytes of one string (MAX_STRING_BYTES, 1 MB). */
  maxStringBytes?: number;
  /** Elements of one array (MAX_ARRAY_LENGTH, 10 000). */
  maxArrayLength?: number;
  /** Keys of one object (MAX_OBJECT_KEYS, 1 000). */
  maxObjectKeys?: number;
}

export interface ThreadlineOptions {
  /**
   * The database: a Postgres URL, a pg.Pool of yours (the store takes its connections from it
   * and close() leaves it open), or a PGlite instance (left open too). Default: DATABASE_URL,
   * else the embedded PGlite under `dataDir`. Undefined counts as absent (an option given from an
   * environment variable that may not be set: `database: process.env.DATABASE_URL`).
   */
  database?: DatabaseOption | undefined;
  /** Postgres schema of the store's tables (DATABASE_SCHEMA, "threadline"). */
  schema?: string | undefined;
  /** Directory of the embedded PGlite database and the workspaces (DATA_DIR, "./data"). */
  dataDir?: string | undefined;
  /** Default: the built-in `default` agent and the feature demo agents (agents/demos). */
  agents?: AgentDefinition[];
  /**
   * The model of every agent that names none of its own: a Model, a ModelFactory (deciding for
   * every agent), or a "provider:name" spec such as "anthropic:claude-sonnet-4-5". Default: MODEL,
   * else OPENAI_* , else the offline demo model.
   */
  model?: Model | ModelFactory | string | undefined;
  /**
   * Your own authentication: answer `{ tenantId }` for a request you accept, null for 401.
   * When given, it decides every request's tenant and API keys are not used.
   */
  auth?: AuthHook;
  /** Bearer keys, `tenant:key` strings as in API_KEYS or parsed entries (API_KEYS). */
  apiKeys?: string | readonly ApiKey[];
  limits?: ThreadlineLimits;
  /** Browser origins besides the server's own that may send state-changing requests (ALLOWED_ORIGINS). */
  allowedOrigins?: string[];
  /** How long a lease lives without a heartbeat: the bound on recovery after a crash (LEASE_TTL_MS, 15 s). */
  leaseTtlMs?: number;
  /**
   * How long close() lets the steps in flight here finish (a model answer, a tool) before it
   * cuts them and hands their runs to another instance (DRAIN_TIMEOUT_MS, 10 s). Runs stop before
   * their next step meanwhile, and are handed over there.
   */
  drainTimeoutMs?: number;
  logger?: Logger;
  /** This process's name in lease rows; random per process by default. */
  leaseOwner?: string;
  /** Where the threads' workspaces are and how commands run; defaults to the configuration's. */
  workspace?: WorkspaceHost;
  /** Everything not given above; default: loadConfig() of the environment. */
  config?: Config;
  /** An event store built by hand (tests, instrumentation); `database` and `schema` are then unused. */
  store?: EventStore;
}

export { DEFAULT_DRAIN_TIMEOUT_MS };

export class ThreadlineOptionsError extends Error {
  override readonly name = "ThreadlineOptionsError";
}

/** The configuration with the options folded in; throws ThreadlineOptionsError naming a bad option. */
export function resolveConfig(opts: ThreadlineOptions): Config {
  const base = opts.config ?? loadConfig();
  const l = opts.limits ?? {};
  const config: Config = {
    ...base,
    ...(opts.schema !== undefined && { DATABASE_SCHEMA: opts.schema }),
    ...(opts.dataDir !== undefined && { DATA_DIR: opts.dataDir }),
    ...(typeof opts.database === "string" && { DATABASE_URL: opts.database }),
    ...(opts.apiKeys !== undefined && { API_KEYS: apiKeysOf(opts.apiKeys) }),
    ...(opts.allowedOrigins !== undefined && { ALLOWED_ORIGINS: opts.allowedOrigins }),
    ...(opts.leaseTtlMs !== undefined && { LEASE_TTL_MS: positive("leaseTtlMs", opts.leaseTtlMs) }),
    ...(opts.drainTimeoutMs !== undefined && { DRAIN_TIMEOUT_MS: nonNegative("drainTimeoutMs", opts.drainTimeoutMs) }),
    ...(l.maxBodyBytes !== undefined && { MAX_BODY_BYTES: positive("limits.maxBodyBytes", l.maxBodyBytes) }),
    ...(l.maxJsonDepth !== undefined && { MAX_JSON_DEPTH: positive("limits.maxJsonDepth", l.maxJsonDepth) }),
    ...(l.maxStringBytes !== undefined && { MAX_STRING_BYTES: positive("limits.maxStringBytes", l.maxStringBytes) }),
    ...(l.maxArrayLength !== undefined && { MAX_ARRAY_LENGTH: positive("limits.maxArrayLength", l.maxArrayLength) }),
    ...(l.maxObjectKeys !== undefined && { MAX_OBJECT_KEYS: positive("limits.maxObjectKeys", l.maxObjectKeys) }),
  };
  const urlProblem = typeof opts.database === "string" ? postgresUrlProblem(opts.database) : undefined;
  if (urlProblem) {
    throw new ThreadlineOptionsError(
      `database: a string ${urlProblem}. For the embedded database leave \`database\` out (it lives under \`dataDir\`), or pass a PGlite instance.`,
    );
  }
  if (opts.auth !== undefined && typeof opts.auth !== "function") throw new ThreadlineOptionsError("auth must be a function (req) => { tenantId } | null.");
  if (opts.auth && opts.apiKeys !== undefined && config.API_KEYS.length > 0) {
    throw new ThreadlineOptionsError("Give either `auth` or `apiKeys`: with an auth hook, the hook decides every request's tenant (check your keys inside it if you need both).");
  }
  return config;
}

function apiKeysOf(keys: string | readonly ApiKey[]): ApiKey[] {
  try {
    return typeof keys === "string" ? parseApiKeys(keys) : parseApiKeys(keys.map((k) => `${k.tenant}:${k.key}`).join(","));
  } catch (err) {
    if (err instanceof ApiKeysError) throw new ThreadlineOptionsError(`apiKeys: ${err.message}.`, { cause: err });
    throw err;
  }
}

function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) throw new ThreadlineOptionsError(`${name} must be a positive integer, got ${String(value)}.`);
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) throw new ThreadlineOptionsError(`${name} must be a non-negative integer (milliseconds), got ${String(value)}.`);
  return value;
}
