/**
 * Every time bound of the server, in one table: the settings (config.ts's *_MS) and the constants
 * (every exported *_MS, and the timers that have none), each with its reason and what a starved
 * CPU does to it. A busy machine is the normal case (a pod under a CPU limit, a shared node):
 * `starved` says either that the bound holds when this process gets a tenth of a core (each is a
 * wait on something outside, and ten times this process's own work fits in it), or why it must
 * not be stretched (it is a promise to someone else: a takeover time, a probe's answer).
 *
 * test/server/bounds.test.ts checks that every *_MS setting and every exported *_MS constant of
 * server/ is here once. The values live where they are used; this table owns their reasons.
 * Rejected: moving every value here (each module would import its bounds from a file about
 * everything), and reasons kept only next to each value (nobody could review them together).
 */

export interface Bound {
  /** The setting or constant, as spelled in the code. */
  name: string;
  /** Where it is defined: config.ts for a setting, else the module. */
  where: string;
  /** Its default, in ms (or what it is derived from). */
  value: number | string;
  /** Why it exists and why this value. */
  reason: string;
  /**
   * "holds": ten times this process's own work fits inside it (the wait is on the network, the
   * database, a person, a child process). Otherwise, why it must not grow on a busy machine.
   */
  starved: "holds" | { mustNotGrow: string };
}

const HOLDS = "holds" as const;

export const BOUNDS: readonly Bound[] = [
  // Settings (config.ts): an operator may change each.
  {
    name: "LEASE_TTL_MS",
    where: "config.ts",
    value: 15_000,
    reason: "How long a run's lease lives without a heartbeat (three beats per TTL): a crashed instance's runs are taken over within TTL + one sweep.",
    starved: { mustNotGrow: "it is the takeover time promised for a crashed instance; a starved holder that misses two beats loses the lease, and the fence refuses its writes, so correctness does not depend on it" },
  },
  { name: "DRAIN_TIMEOUT_MS", where: "config.ts", value: 10_000, reason: "At shutdown, how long runs may finish their step in flight before they are cut and handed over.", starved: { mustNotGrow: "an orchestrator's grace period (Kubernetes: 30 s) bounds the whole shutdown; a cut step is redone by the next instance" } },
  { name: "DB_CONNECT_TIMEOUT_MS", where: "config.ts", value: 5_000, reason: "Opening a connection or waiting for a free one in the pool: a black-holed database ends here, not in a hang.", starved: HOLDS },
  { name: "DB_STATEMENT_TIMEOUT_MS", where: "config.ts", value: 15_000, reason: "statement_timeout of request transactions: a statement the database cannot finish is cancelled by it; the client waits a second more.", starved: HOLDS },
  { name: "DB_LOCK_TIMEOUT_MS", where: "config.ts", value: 5_000, reason: "lock_timeout of request transactions: a row held by a stuck transaction fails the request (503) rather than queueing it.", starved: HOLDS },
  {
    name: "DB_IDLE_IN_TRANSACTION_TIMEOUT_MS",
    where: "config.ts",
    value: 5_000,
    reason: "idle_in_transaction_session_timeout of request transactions: a process that died or froze mid-transaction releases its locks.",
    starved: { mustNotGrow: "it frees the rows a frozen process holds; request transactions are a few statements sent back to back, and a migration has its own session bounds (issue 29)" },
  },
  { name: "DB_TCP_TIMEOUT_MS", where: "config.ts", value: 10_000, reason: "tcp_user_timeout on both sides: a peer that stopped acknowledging is dropped by the kernel.", starved: HOLDS },
  { name: "DB_RETRY_MAX_MS", where: "config.ts", value: 10_000, reason: "How long a statement that failed transiently (reset, failover) is retried before the request gets 503.", starved: HOLDS },
  { name: "LLM_CONNECT_TIMEOUT_MS", where: "config.ts", value: 30_000, reason: "A model's response headers: a provider that accepts and never answers ends the step.", starved: HOLDS },
  { name: "LLM_READ_TIMEOUT_MS", where: "config.ts", value: 60_000, reason: "Silence between two chunks of a model's stream.", starved: HOLDS },
  { name: "WEBHOOK_TIMEOUT_MS", where: "config.ts", value: 10_000, reason: "One webhook delivery: a receiver that does not answer is retried later.", starved: HOLDS },
  { name: "WEBHOOK_RETRY_BASE_MS", where: "config.ts", value: 1_000, reason: "The first retry delay of a failed delivery (doubling, with jitter).", starved: HOLDS },
  { name: "SCHEDULE_POLL_MS", where: "config.ts", value: 1_000, reason: "How often due schedules are looked for: a schedule fires at most this late.", starved: HOLDS },
  { name: "SCHEDULE_MIN_INTERVAL_MS", where: "config.ts", value: 1_000, reason: "The shortest interval a schedule may have: none fires faster than the poll.", starved: HOLDS },

  {
    name: "HTTP_KEEP_ALIVE_TIMEOUT_MS",
    where: "config.ts",
    value: 65_000,
    reason: "How long an idle kept-alive HTTP connection stays open: above the load balancer's idle timeout (60 s is common), so the balancer always closes first and never sends a request on a socket the server is closing.",
    starved: HOLDS,
  },
  { name: "HTTP_REQUEST_TIMEOUT_MS", where: "config.ts", value: 300_000, reason: "Receiving a whole request (headers and body): a slow link and a starved client fit, a trickling client (slowloris) is dropped. Responses, SSE streams included, are not under it.", starved: HOLDS },

  // Constants.
  { name: "DEFAULT_DRAIN_TIMEOUT_MS", where: "config.ts", value: 10_000, reason: "DRAIN_TIMEOUT_MS's default, and the library's drainTimeoutMs.", starved: { mustNotGrow: "as DRAIN_TIMEOUT_MS" } },
  { name: "DEFAULT_RETRY_MAX_MS", where: "store/retry.ts", value: 10_000, reason: "DB_RETRY_MAX_MS's default.", starved: HOLDS },
  { name: "QUERY_TIMEOUT_MARGIN_MS", where: "store/pg-connections.ts", value: 1_000, reason: "The client waits this much past statement_timeout, so the server's own error wins when it can come.", starved: HOLDS },
  {
    name: "DATA_DIR_LOCK_TIMEOUT_MS",
    where: "store/data-dir-lock.ts",
    value: 10_000,
    reason: "flock(1) taking DATA_DIR's lock: one fork and exec; what it catches is a hung mount.",
    starved: HOLDS,
  },
  { name: "DIR_PROBE_TIMEOUT_MS", where: "make-dirs.ts", value: 2_000, reason: "A directory made, a file written and removed: a hung mount is named at start instead of waited on.", starved: HOLDS },
  { name: "POLL_DOORBELL_INTERVAL_MS", where: "store/poll-doorbell.ts", value: 200, reason: "Without LISTEN (a transaction pooler, no direct URL), how often followers look for new events: the latency it adds.", starved: HOLDS },
  { name: "READY_TIMEOUT_MS", where: "http/routes/health.ts", value: 2_000, reason: "/readyz's ping of the store.", starved: { mustNotGrow: "readiness is a promise to a balancer: a process that cannot answer a ping in 2 s is not serving, and should get no traffic" } },
  { name: "SHUTDOWN_GRACE_MS", where: "engine/engine.ts", value: 2_000, reason: "After the drain, how long cut steps get to record their hand-over before the store closes.", starved: { mustNotGrow: "part of the shutdown an orchestrator bounds; a hand-over not recorded is recovered by lease expiry" } },
  { name: "KEEP_ALIVE_MS", where: "http/sse-response.ts", value: 15_000, reason: "An SSE comment on an idle stream: proxies with a 30–60 s idle timeout keep it open.", starved: HOLDS },
  { name: "SSE_DRAIN_TIMEOUT_MS", where: "http/sse-response.ts", value: 60_000, reason: "A client that reads nothing while its socket buffer is full is dropped.", starved: HOLDS },
  { name: "RUN_WAIT_MAX_MS", where: "http/run-wait.ts", value: 30_000, reason: "The longest a client may ask a request to wait for a run to end (?wait=).", starved: HOLDS },
  { name: "QUEUED_RUNS_WAIT_MS", where: "metrics/runs.ts", value: 1_000, reason: "/metrics waits this long for the count of queued runs, then reports the last one.", starved: HOLDS },
  { name: "PREDICT_STATE_INTERVAL_MS", where: "engine/predicted-state.ts", value: 100, reason: "How often predictive state is emitted while a tool's arguments stream: a rate, not a deadline.", starved: HOLDS },
  { name: "REMOTE_CONNECT_TIMEOUT_MS", where: "agents/remote-endpoint.ts", value: 30_000, reason: "A remote agent's response headers.", starved: HOLDS },
  { name: "REMOTE_READ_TIMEOUT_MS", where: "agents/remote-endpoint.ts", value: 120_000, reason: "Silence between two events of a remote agent.", starved: HOLDS },
  { name: "REMOTE_TIMEOUT_MAX_MS", where: "agents/remote-endpoint.ts", value: 3_600_000, reason: "The most an agent definition may set either remote bound to.", starved: HOLDS },
  { name: "MAX_INTERRUPT_EXPIRY_MS", where: "agents/define.ts", value: 2_592_000_000, reason: "The longest an interrupt may wait for a person (30 days).", starved: HOLDS },
  { name: "GREP_TIMEOUT_MS", where: "workspace/limits.ts", value: 30_000, reason: "The coding tools' search of a workspace.", starved: HOLDS },
  { name: "FILE_WRITE_TIMEOUT_MS", where: "workspace/file-writer.ts", value: 30_000, reason: "A file written through the sandbox's helper process: a hung mount kills it.", starved: HOLDS },
  { name: "TERMINAL_FLUSH_MS", where: "workspace/terminal.ts", value: 50, reason: "Terminal output gathered into one event: a rate, not a deadline.", starved: HOLDS },
  { name: "REMOVE_PAUSE_MS", where: "workspace/command-cgroup.ts", value: 25, reason: "Pause between tries to remove a command's cgroup while its processes exit: retried, not a deadline.", starved: HOLDS },
  { name: "WEBHOOK_POLL_MS", where: "webhooks/worker.ts", value: 1_000, reason: "How often the webhook outbox is looked at when no commit woke it.", starved: HOLDS },
  { name: "WEBHOOK_RETRY_MAX_MS", where: "webhooks/settings.ts", value: 3_600_000, reason: "The longest delay between two tries of a delivery.", starved: HOLDS },
  { name: "SCHEDULE_MAX_INTERVAL_MS", where: "schedules/schedule-input.ts", value: 31_622_400_000, reason: "The longest interval a schedule may have (366 days).", starved: HOLDS },
  { name: "MISSED_AFTER_MS", where: "schedules/timing.ts", value: 10_000, reason: "A tick this late is recorded as missed rather than fired.", starved: { mustNotGrow: "a schedule's promise is its time: a tick 10 s late on a stalled process is reported, not fired late" } },
  { name: "UNSTARTED_TICK_MS", where: "schedules/scheduler.ts", value: 30_000, reason: "A tick claimed by an instance that died before starting its run is claimed again after this.", starved: HOLDS },
  { name: "DEMO_DEFAULT_LATENCY_MS", where: "models/demo/demo-model.ts", value: 15, reason: "The offline demo model's pause between tokens: a pace, not a deadline.", starved: HOLDS },
  { name: "DEFAULT_KEEP_ALIVE_TIMEOUT_MS", where: "http/server-timeouts.ts", value: 65_000, reason: "HTTP_KEEP_ALIVE_TIMEOUT_MS's default.", starved: HOLDS },
  { name: "HEADERS_TIMEOUT_MARGIN_MS", where: "http/server-timeouts.ts", value: 1_000, reason: "headersTimeout is keepAliveTimeout plus this: headers that arrive at the very end of the keep-alive window are still read.", starved: HOLDS },
  { name: "DEFAULT_REQUEST_TIMEOUT_MS", where: "http/server-timeouts.ts", value: 300_000, reason: "HTTP_REQUEST_TIMEOUT_MS's default (Node's own).", starved: HOLDS },
  { name: "MIGRATION_IDLE_IN_TRANSACTION_MS", where: "store/migration-bounds.ts", value: 60_000, reason: "idle_in_transaction_session_timeout of a migration: eight times the longest start-up stall measured at load ~14; a hung migrator still releases its locks.", starved: HOLDS },
  { name: "MIGRATION_STATEMENT_MS", where: "store/migration-bounds.ts", value: 300_000, reason: "statement_timeout of a migration that keeps one: a migration's statement may rewrite or scan a table.", starved: HOLDS },
  { name: "MIGRATION_LOCK_MS", where: "store/migration-bounds.ts", value: 10_000, reason: "lock_timeout of a migration: DDL waiting for a lock queues the table's traffic behind it, so it gives up and retries rather than stall instances still serving.", starved: HOLDS },
  { name: "MIGRATION_RETRY_MAX_MS", where: "store/migration-bounds.ts", value: 300_000, reason: "How long one migration is tried again after a transient loss: a loser waits through the winner's whole migration on a starved CPU, and a failover pauses the start.", starved: HOLDS },
  { name: "STARTUP_CONNECT_TRIES", where: "store/migration-bounds.ts", value: "6 × DB_CONNECT_TIMEOUT_MS", reason: "How many times a start opens its first connection while each try runs out of DB_CONNECT_TIMEOUT_MS: a database slow to accept on a starved machine is waited for, a refusal fails at once.", starved: HOLDS },
  { name: "FOREIGN_SLICE_MS", where: "engine/foreign/bounds.ts", value: 10, reason: "A foreign agent's events are ingested for at most this long between two yields: no remote can stall the event loop (and the leases' heartbeats) for longer than one slice and one bounded event.", starved: HOLDS },
];
