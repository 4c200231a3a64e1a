/**
 * The real server for tests: createThreadline on a fresh store (in-memory PGlite, or a fresh
 * schema of the Postgres at DATABASE_URL), the default model on OpenAI's protocol pointed at an
 * aimock upstream (or the model given), listening on a loopback port.
 */
import { type Logger, pino } from "pino";
import type { AgentDefinition } from "../../server/agents/define.ts";
import { defaultAgent } from "../../server/agents/default-agent.ts";
import { loadConfig, type Config } from "../../server/config.ts";
import type { WorkspaceHost } from "../../server/workspace/tools.ts";
import type { Model, ModelFactory } from "../../server/models/model.ts";
import { createPgliteStore } from "../../server/store/pglite.ts";
import { createPostgresStore } from "../../server/store/postgres.ts";
import type { CommonStoreOptions } from "../../server/store/store.ts";
import type { EventStore } from "../../server/store/types.ts";
import type { DatabaseOption } from "../../server/options.ts";
import { createThreadline, type Threadline } from "../../server/threadline.ts";
import { removeTestDataDir, testDataDir } from "./data-dirs.ts";
import { freshClusterFiles } from "./pglite.ts";
import { testSchema } from "./schemas.ts";
import { TEST_READ_TIMEOUT_MS } from "./test-bounds.ts";

export type BackendName = "pglite" | "postgres";

/**
 * The backends a suite runs on: PGlite always, Postgres when DATABASE_URL is set. TEST_BACKENDS=postgres
 * leaves PGlite out: .ci/run's second pass with DATABASE_URL at the Citus coordinator, whose PGlite
 * half the first pass ran already.
 */
export function backends(): BackendName[] {
  if (!process.env.DATABASE_URL) return ["pglite"];
  return process.env.TEST_BACKENDS === "postgres" ? ["postgres"] : ["pglite", "postgres"];
}

export { testSchema } from "./schemas.ts";

export function openStore(backend: BackendName, schema = testSchema(), opts: CommonStoreOptions = {}): EventStore {
  if (backend === "postgres") {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error("DATABASE_URL is not set");
    return createPostgresStore({ ...opts, connectionString: url, schema });
  }
  return createPgliteStore({ ...opts, schema, loadDataDir: freshClusterFiles() });
}

export interface TestServer {
  url: string;
  threadline: Threadline;
  store: EventStore;
  close(): Promise<void>;
}

export interface TestServerOptions {
  backend: BackendName;
  /** OpenAI-compatible base URL (…/v1) of the upstream, usually an aimock in the test; absent: the built-in offline demo model answers. */
  llmUrl?: string;
  /** Default: the built-in agent; a function gets the server's config (the coding agent needs its workspaces). */
  agents?: AgentDefinition[] | ((config: Config) => AgentDefinition[]);
  /** Share a store between instances (two servers on one database). */
  store?: EventStore;
  env?: Record<string, string>;
  readTimeoutMs?: number;
  /** The server's default model instead of OpenAI at llmUrl (agents' own `model` still wins). */
  model?: Model | ModelFactory | string;
  leaseOwner?: string;
  /** The threads' workspaces and the command sandbox (default: from the config, DATA_DIR a temp dir). */
  workspace?: (config: Config) => WorkspaceHost;
  /**
   * The store's database instead of a store built here (`store` is then unused): the server opens
   * its own store on it, wired to its metrics (commit latency, pool waits), as an application's does.
   */
  database?: { option: DatabaseOption; schema?: string };
  /** Default: pino at TEST_LOG_LEVEL (silent). */
  logger?: Logger;
  drainTimeoutMs?: number;
}

export async function startTestServer(opts: TestServerOptions): Promise<TestServer> {
  // Workspaces (the coding agent's) go to a directory of this server's own, removed on close,
  // when its start fails, or when the file ends (data-dirs.ts).
  const dataDir = testDataDir();
  try {
    return await startIn(dataDir, opts);
  } catch (err) {
    removeTestDataDir(dataDir);
    throw err;
  }
}

async function startIn(dataDir: string, opts: TestServerOptions): Promise<TestServer> {
  const store = opts.database ? undefined : (opts.store ?? openStore(opts.backend));
  const config = loadConfig({
    LOG_LEVEL: "silent",
    ...(opts.llmUrl !== undefined && { OPENAI_BASE_URL: opts.llmUrl, OPENAI_API_KEY: "test", OPENAI_MODEL: "gpt-4o-mini" }),
    DATA_DIR: dataDir,
    // No retries: a test that stages a failure sees it. Generous connect timeout: a loaded CI
    // machine can take seconds to accept a loopback connection; the tests about timeouts set their own.
    LLM_MAX_RETRIES: "0",
    LLM_CONNECT_TIMEOUT_MS: "30000",
    LLM_READ_TIMEOUT_MS: String(opts.readTimeoutMs ?? TEST_READ_TIMEOUT_MS),
    ...opts.env,
  });
  let threadline: Threadline | undefined;
  let port: number;
  try {
    threadline = await createThreadline({
      config,
      ...(opts.database ? { database: opts.database.option, ...(opts.database.schema !== undefined && { schema: opts.database.schema }) } : { store }),
      logger: opts.logger ?? pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
      ...(opts.drainTimeoutMs !== undefined && { drainTimeoutMs: opts.drainTimeoutMs }),
      agents: typeof opts.agents === "function" ? opts.agents(config) : (opts.agents ?? [defaultAgent({ planStepDelayMs: 20 })]),
      ...(opts.model !== undefined && { model: opts.model }),
      leaseOwner: opts.leaseOwner,
      ...(opts.workspace && { workspace: opts.workspace(config) }),
    });
    port = await threadline.listen(0, "127.0.0.1");
  } catch (err) {
    // A start that failed (its migration, its database) still opened what it got to.
    await threadline?.close().catch(() => undefined);
    if (store && !opts.store) await store.close().catch(() => undefined);
    throw err;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    threadline,
    store: threadline.store,
    async close() {
      await threadline.close();
      if (store && !opts.store) await store.close();
      removeTestDataDir(dataDir);
    },
  };
}

/** One of the server's own numbers, from GET /metrics. */
export async function serverMetric(server: { url: string }, name: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`metric ${name} not exported`);
  return Number(line.slice(name.length + 1));
}
