/**
 * The shared rig of the multi-process durability tests: one fresh Postgres schema, a scripted
 * upstream LLM, server processes spawned on both (server-process.ts), a store in the test
 * process that watches the log (store.follow: the same NOTIFY doorbell the servers use), and a
 * file the test agent's tool appends each execution to.
 */
import { randomUUID } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { StoredEvent } from "../../protocol/events.ts";
import { compareFrameIds } from "../../protocol/frames.ts";
import { createPostgresStore } from "../../server/store/postgres.ts";
import type { EventStore } from "../../server/store/types.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "./scripted-upstream.ts";
import { TEST_READ_TIMEOUT_MS } from "./test-bounds.ts";
import { spawnServer, type ServerProcess, type ToolLogLine } from "./server-process.ts";
import { sweepIntervalMs } from "../../server/engine/engine.ts";
import { postSse, type SseFrame, type SseStream } from "./sse-client.ts";

export const DATABASE_URL = process.env.DATABASE_URL;

/**
 * Short on purpose (recovery after a crash is bounded by TTL + sweep interval), but not shorter
 * than the gaps a loaded machine puts between a live server's beats: at 1.5 s, on 2 cores with
 * a run queue of 20, a server streaming an answer went 3.4 s and more without a beat, another
 * instance took its run over, and the hand-off and takeover tests saw a recovery they had not
 * caused. Three beats per TTL: a lease survives four seconds without one.
 */
export const LEASE_TTL_MS = 6_000;
export const SWEEP_INTERVAL_MS = sweepIntervalMs(LEASE_TTL_MS);
export const HEARTBEAT_MS = Math.max(50, Math.floor(LEASE_TTL_MS / 3));
/**
 * The bound on one event a test awaits from a live server process (a token on a stream, a line
 * of its log): it only says the test waited long enough. At 5 s, on 2 cores with a run queue of
 * 20, "the 3rd token on A's stream" and "the first words on B" were missed by processes that were
 * only slow.
 */
export const EVENT_BOUND_MS = 20_000;

/** Prints, once per file, why the suite did not run. */
export function noticeSkip(suite: string): void {
  if (!DATABASE_URL) {
    console.warn(`[${suite}] SKIPPED: DATABASE_URL is not set; these tests need a real Postgres shared by several processes.`);
  }
}

export interface LoggedEvent {
  event: StoredEvent;
  /** When the test process saw it (Date.now()). */
  seenAt: number;
}

/** Follows one thread's log from the start, remembering when each event was seen. */
export class LogWatch {
  readonly seen: LoggedEvent[] = [];
  readonly #stop = new AbortController();
  readonly #waiters: { match: (e: StoredEvent) => boolean; resolve: (e: LoggedEvent) => void }[] = [];
  readonly done: Promise<void>;

  constructor(store: EventStore, readonly threadId: string) {
    this.done = (async () => {
      try {
        for await (const batch of store.follow(threadId, 0, this.#stop.signal)) {
          const seenAt = Date.now();
          for (const event of batch) {
            const logged = { event, seenAt };
            this.seen.push(logged);
            for (const w of [...this.#waiters]) {
              if (w.match(event)) {
                this.#waiters.splice(this.#waiters.indexOf(w), 1);
                w.resolve(logged);
              }
            }
          }
        }
      } catch {
        // stopped
      }
    })();
  }

  /** The first event (already seen or to come) that matches, or a descriptive failure. */
  waitFor(match: (e: StoredEvent) => boolean, timeoutMs: number, what: string): Promise<LoggedEvent> {
    const hit = this.seen.find((l) => match(l.event));
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        reject(new Error(`${what}: not in the log of ${this.threadId} after ${timeoutMs} ms; seen: ${this.types().join(", ")}`));
      }, timeoutMs);
      const waiter = {
        match,
        resolve: (l: LoggedEvent) => {
          clearTimeout(timer);
          resolve(l);
        },
      };
      this.#waiters.push(waiter);
    });
  }

  waitForType(type: StoredEvent["type"], timeoutMs: number): Promise<LoggedEvent> {
    return this.waitFor((e) => e.type === type, timeoutMs, type);
  }

  types(): string[] {
    return this.seen.map((l) => l.event.type);
  }

  /** One line per event seen: seq, type, delta if any. */
  describe(): string {
    return this.seen
      .map(({ event: e }) => `${e.seq} ${e.type}${"delta" in e.data && typeof e.data.delta === "string" ? ` ${JSON.stringify(e.data.delta)}` : ""}`)
      .join("\n");
  }

  stop(): void {
    this.#stop.abort();
  }
}

export interface Cluster {
  schema: string;
  upstream: ScriptedUpstream;
  /** Watches the log; never executes anything. */
  store: EventStore;
  toolLog: string;
  servers: ServerProcess[];
  spawn(name: string, env?: Record<string, string | undefined>): Promise<ServerProcess>;
  watch(threadId: string): LogWatch;
  toolRuns(): ToolLogLine[];
  /** Every server's output, for a failing test's message. */
  output(): string;
  close(): Promise<void>;
}

/** `url`: the database the processes share (default DATABASE_URL; the Citus suite gives CITUS_URL). */
export async function startCluster(url: string = DATABASE_URL!): Promise<Cluster> {
  const schema = `mp_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const upstream = await startScriptedUpstream();
  const toolLog = join(tmpdir(), `threadline-tool-runs-${schema}.jsonl`);
  const servers: ServerProcess[] = [];
  const watches: LogWatch[] = [];
  let store: EventStore | undefined;

  const cluster: Cluster = {
    schema,
    upstream,
    get store() {
      if (!store) throw new Error("no server has migrated the schema yet: spawn one first");
      return store;
    },
    toolLog,
    servers,
    async spawn(name, env = {}) {
      const server = await spawnServer({
        name,
        env: {
          DATABASE_URL: url,
          DATABASE_SCHEMA: schema,
          OPENAI_BASE_URL: upstream.url,
          OPENAI_API_KEY: "test",
          LEASE_TTL_MS: String(LEASE_TTL_MS),
          LLM_READ_TIMEOUT_MS: String(TEST_READ_TIMEOUT_MS),
          CHILD_AGENTS: "default,slowtool,strict",
          CHILD_INSTANCE_ID: name,
          CHILD_TOOL_LOG: toolLog,
          CHILD_TOOL_MS: "150",
          ...env,
        },
      });
      servers.push(server);
      // The schema exists once a server is up (it migrated): the watcher store may open now.
      store ??= createPostgresStore({ connectionString: url, schema });
      return server;
    },
    watch(threadId) {
      const w = new LogWatch(cluster.store, threadId);
      watches.push(w);
      return w;
    },
    toolRuns() {
      let text = "";
      try {
        text = readFileSync(toolLog, "utf8");
      } catch {
        return [];
      }
      return text.split("\n").filter(Boolean).map((l) => JSON.parse(l) as ToolLogLine);
    },
    output() {
      return servers.map((s) => `----- ${s.name} (pid ${s.pid}) -----\n${s.output()}`).join("\n");
    },
    async close() {
      for (const w of watches) w.stop();
      await Promise.all(servers.map((s) => s.kill("SIGKILL")));
      await store?.close();
      await upstream.close();
      rmSync(toolLog, { force: true });
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`drop schema if exists ${schema} cascade`);
      } finally {
        await client.end();
      }
    },
  };
  return cluster;
}

/** POST /api/agents/:agent/run with a minimal RunAgentInput. */
export function postRun(server: ServerProcess, agent: string, input: { threadId: string; runId: string; text: string }): Promise<SseStream> {
  return postSse(`${server.url}/api/agents/${agent}/run`, {
    threadId: input.threadId,
    runId: input.runId,
    messages: [{ id: `${input.runId}-u`, role: "user", content: input.text }],
    tools: [],
    context: [],
    state: {},
    forwardedProps: {},
  });
}

/** POST /api/agents/:agent/connect, with a cursor when given. */
export function connect(server: ServerProcess, agent: string, threadId: string, lastSeenEventId?: string): Promise<SseStream> {
  return postSse(`${server.url}/api/agents/${agent}/connect`, {
    threadId,
    ...(lastSeenEventId !== undefined && { lastSeenEventId }),
  });
}

/** One line per frame: id, type, delta if any. */
export function describeFrames(frames: SseFrame[]): string {
  return frames.map((f) => `${f.id} ${f.event.type}${typeof f.event.delta === "string" ? ` ${JSON.stringify(f.event.delta)}` : ""}`).join("\n");
}

export const isContent = (f: SseFrame) => f.event.type === "TEXT_MESSAGE_CONTENT";
export const isTerminal = (f: SseFrame) => f.event.type === "RUN_FINISHED" || f.event.type === "RUN_ERROR";

/** Throws unless every frame has an id and the ids strictly increase (no duplicate, no reorder). */
export function assertStrictlyIncreasing(frames: SseFrame[]): void {
  for (const [i, f] of frames.entries()) {
    if (f.id === undefined) throw new Error(`frame ${i} (${f.event.type}) has no id`);
    if (i > 0 && compareFrameIds(frames[i - 1]!.id!, f.id) >= 0) {
      throw new Error(`frame ids do not increase at ${i}: ${frames[i - 1]!.id} then ${f.id}`);
    }
  }
}

/** Rejects with `what` (and the `context`, computed then) when the promise is not settled within `ms`. */
export function within<T>(ms: number, promise: Promise<T>, what: string, context?: () => string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms${context ? `\n${context()}` : ""}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export async function getThread(server: ServerProcess, threadId: string): Promise<{
  status: string;
  messages: { id: string; role: string; content?: unknown; toolCallId?: string }[];
}> {
  const res = await fetch(`${server.url}/api/threads/${threadId}`);
  if (!res.ok) throw new Error(`GET thread ${threadId} on ${server.name}: ${res.status} ${await res.text()}`);
  return (await res.json()) as never;
}

/** Text pieces for the scripted model: `count` words, each its own chunk. */
export function pieces(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${i === 0 ? "" : " "}${prefix}${i + 1}`);
}
