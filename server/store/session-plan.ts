/**
 * Where the Postgres backend gets a session (a server connection of its own for as long as the
 * client keeps it), decided once, on first need: the main URL when it keeps sessions (a direct
 * server, a session-mode pooler), DATABASE_DIRECT_URL when the main URL is a transaction-mode
 * pooler and one is given, else none. Two things need one: the doorbell's LISTEN (without a
 * session it polls) and a migration that runs outside a transaction under a session advisory
 * lock (without one it is refused, saying why). Leases are rows, and the other migrations'
 * locks are transaction-scoped: they need no session.
 */
import type pg from "pg";
import { coerceError, DirectUrlError } from "./errors.ts";
import { connectionConfig, type DbTimeouts } from "./pg-connections.ts";
import { detectPoolMode, type PoolMode, type PoolModeSetting } from "./pool-mode.ts";
import type { ConnectionReport } from "./types.ts";

export interface SessionPlan {
  poolMode: PoolMode;
  poolModeFrom: "detected" | "declared";
  doorbell: ConnectionReport["doorbell"];
  /** the URL that keeps sessions; absent when there is none */
  sessionUrl?: string;
  /** why there is no session, in words for the operator (what to set) */
  noSession?: string;
  warning?: string;
}

export interface SessionPlanOptions {
  connectionString: string;
  directConnectionString?: string;
  poolMode?: PoolModeSetting;
  onError?: (err: Error) => void;
}

export interface SessionPlanner {
  get(): Promise<SessionPlan>;
  /**
   * One decision, not retried, which get() then answers with: what start-up asks, so that a
   * DATABASE_DIRECT_URL that refuses, does not resolve or rejects its user is a sentence and exit
   * code 1 (DirectUrlError) rather than a start that waits forever. Rejected: bounding get()'s
   * retries, which would also give up on a direct host that is briefly down after the start.
   */
  check(): Promise<void>;
  /**
   * The plan if it has been decided, without asking for it: what the prepared statements read
   * (postgres.ts keepsPrepared). Rejected: get() from there, whose retries began before
   * start-up's check() and made it wait on them for ever instead of failing on a
   * DATABASE_DIRECT_URL that refuses.
   */
  known(): SessionPlan | undefined;
  close(): void;
}

const NO_DIRECT_URL =
  "DATABASE_URL is a transaction-mode pooler, which keeps no session, with no DATABASE_DIRECT_URL: " +
  "set DATABASE_DIRECT_URL to the Postgres server (or a session-mode pooler).";
const DIRECT_URL_POOLED =
  "DATABASE_DIRECT_URL is itself a transaction-mode pooler, which keeps no session: point it at the Postgres server " +
  "(or a session-mode pooler).";

/**
 * A failed detection (the database not answering yet) is retried with backoff, as a LISTEN would
 * be, until the planner closes.
 */
export function sessionPlanner(opts: SessionPlanOptions, t: DbTimeouts, probeName: string): SessionPlanner {
  const setting = opts.poolMode ?? "auto";
  const probeConfig = (url: string): pg.ClientConfig => connectionConfig(url, probeName, t);
  async function decide(): Promise<SessionPlan> {
    const poolMode: PoolMode = setting === "auto" ? await detectPoolMode(probeConfig(opts.connectionString)) : setting === "transaction" ? "transaction" : "session";
    const poolModeFrom = setting === "auto" ? "detected" : "declared";
    if (poolMode === "session") return { poolMode, poolModeFrom, doorbell: "listen", sessionUrl: opts.connectionString };
    const direct = opts.directConnectionString;
    if (!direct) return { poolMode, poolModeFrom, doorbell: "polling", noSession: NO_DIRECT_URL };
    const directMode = await detectPoolMode(probeConfig(direct)).catch((err: unknown) => {
      throw new DirectUrlError(direct, err);
    });
    if (directMode === "transaction") {
      return {
        poolMode,
        poolModeFrom,
        doorbell: "polling",
        noSession: DIRECT_URL_POOLED,
        warning: `${DIRECT_URL_POOLED} Until then other instances' commits are polled for.`,
      };
    }
    return { poolMode, poolModeFrom, doorbell: "listen-direct", sessionUrl: direct };
  }
  let decided: Promise<SessionPlan> | undefined;
  let known: SessionPlan | undefined;
  const closing = new AbortController();
  return {
    get(): Promise<SessionPlan> {
      decided ??= (async () => {
        for (let attempt = 0; ; attempt++) {
          try {
            known = await decide();
            return known;
          } catch (err) {
            if (closing.signal.aborted) throw err;
            opts.onError?.(coerceError(err));
            const delay = Math.random() * Math.min(5000, 100 * 2 ** attempt);
            await new Promise((resolve) => setTimeout(resolve, delay).unref());
          }
        }
      })();
      return decided;
    },
    async check(): Promise<void> {
      if (decided) {
        await decided;
        return;
      }
      const plan = await decide();
      known ??= plan;
      decided ??= Promise.resolve(plan);
    },
    known: () => known,
    close: () => closing.abort(),
  };
}
