-- Schedules (docs/schedules.md): a cron expression with a time zone, or an interval, that starts
-- a run with a stored input. next_at is the next tick; an instance fires a tick by moving next_at
-- on from exactly the value it read (sql/schedules.ts claimScheduleTick), in the statement that
-- records the tick in schedule_runs: across any number of instances, one of them wins each tick.
--
-- Per tenant, keyed (tenant_id, schedule_id): on Citus both tables are distributed by tenant_id
-- and co-located (docs/scaling.md), so a claim is a router statement on the tenant's shard.
--
-- Expand only: releases before it neither read nor write these tables.
create table :THREADLINE_SCHEMA.schedules (
  tenant_id    text not null,
  schedule_id  text not null,
  agent_id     text not null,
  -- null: a new thread for every tick
  thread_id    text,
  cron         text,
  timezone     text,
  every_ms     bigint check (every_ms is null or every_ms > 0),
  -- the RunAgentInput without threadId and runId
  input        jsonb not null,
  -- a tick missed while no instance ran: fired once on return ('once') or skipped ('skip')
  missed       text not null default 'once' check (missed in ('once', 'skip')),
  paused       boolean not null default false,
  next_at      timestamptz not null,
  created_at   timestamptz not null,
  updated_at   timestamptz not null,
  primary key (tenant_id, schedule_id),
  check ((cron is null) <> (every_ms is null))
);

-- The poll: active schedules by their next tick.
create index schedules_due_idx on :THREADLINE_SCHEMA.schedules (next_at) where not paused;

-- One row per tick fired: the run it started (its ids are the tick's, so starting it twice is
-- refused by the run's admission), when it started, or why it could not.
create table :THREADLINE_SCHEMA.schedule_runs (
  tenant_id    text not null,
  schedule_id  text not null,
  due_at       timestamptz not null,
  thread_id    text not null,
  run_id       text not null,
  claimed_at   timestamptz not null,
  started_at   timestamptz,
  error        jsonb,
  primary key (tenant_id, schedule_id, due_at)
);

-- Ticks claimed whose run has not started (the claimer died in between): picked up again.
create index schedule_runs_unstarted_idx on :THREADLINE_SCHEMA.schedule_runs (claimed_at) where started_at is null;
