-- Threadline event store, first schema. :THREADLINE_SCHEMA is replaced by the quoted schema name.
-- Append-only: a change is a new numbered file, never an edit of this one.

-- One row per conversation. last_seq is the sequence allocator of the thread's event log: the
-- writer bumps it under the row lock in the transaction that inserts the events, which keeps the
-- sequence gapless per thread with any number of writer processes.
create table :THREADLINE_SCHEMA.threads (
  thread_id        text primary key,
  agent_id         text not null,
  status           text not null default 'PENDING'
    check (status in ('PENDING', 'RUNNING', 'WAITING', 'CANCELLING', 'COMPLETED', 'FAILED', 'CANCELLED')),
  last_seq         bigint not null default 0,
  active_run_id    text,
  lease_owner      text,
  lease_expires_at timestamptz,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now()
);

-- listThreads: newest-updated first, keyset-paginated on (updated_at, thread_id).
create index threads_updated_at_idx on :THREADLINE_SCHEMA.threads (updated_at, thread_id);
create index threads_agent_updated_at_idx on :THREADLINE_SCHEMA.threads (agent_id, updated_at, thread_id);
-- claimExpired: only active threads are candidates for recovery.
create index threads_active_lease_idx on :THREADLINE_SCHEMA.threads (lease_expires_at)
  where status in ('PENDING', 'RUNNING', 'CANCELLING');

create table :THREADLINE_SCHEMA.runs (
  run_id     text primary key,
  thread_id  text not null references :THREADLINE_SCHEMA.threads (thread_id) on delete cascade,
  status     text not null
    check (status in ('queued', 'running', 'waiting', 'completed', 'failed', 'cancelled')),
  input      jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create index runs_thread_id_idx on :THREADLINE_SCHEMA.runs (thread_id);
-- nextQueuedRun: the oldest queued run of a thread.
create index runs_queued_idx on :THREADLINE_SCHEMA.runs (thread_id, created_at) where status = 'queued';
-- compact: runs that ended, by age.
create index runs_settled_updated_at_idx on :THREADLINE_SCHEMA.runs (updated_at)
  where status in ('waiting', 'completed', 'failed', 'cancelled');

-- The log. created_at is the commit time of the batch (now() of its transaction).
create table :THREADLINE_SCHEMA.workflow_events (
  thread_id  text not null references :THREADLINE_SCHEMA.threads (thread_id) on delete cascade,
  seq        bigint not null,
  run_id     text,
  type       text not null,
  data       jsonb not null,
  created_at timestamptz not null default now(),
  primary key (thread_id, seq)
);

create index workflow_events_run_id_idx on :THREADLINE_SCHEMA.workflow_events (run_id);
