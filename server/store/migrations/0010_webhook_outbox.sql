-- The webhook outbox (docs/webhooks.md): one row per run end to be posted to a URL, inserted in
-- the very commit that writes the run's terminal event (sql/webhook-outbox.ts, run from the
-- writer's flush), so a crash between the end and its delivery loses nothing: whichever instance
-- polls next finds the row due. Delivered at least once: a delivery claims its row (a short
-- claim that the next attempt time stands for), posts, then records the outcome.
--
-- Per run, keyed (thread_id, run_id): on Citus it is distributed by thread_id and co-located with
-- threads and runs (docs/scaling.md), so the insert at a run's end and every claim of one row are
-- router statements on the thread's shard. No foreign key to threads: an end that happened is
-- posted even when its thread is deleted afterwards.
--
-- Expand only: releases before it neither read nor write it.
create table :THREADLINE_SCHEMA.webhook_outbox (
  thread_id    text not null,
  run_id       text not null,
  tenant_id    text not null,
  url          text not null,
  -- the run's end as the receiver is told it (protocol/run-wire-status.ts: finished, waiting, failed, cancelled)
  status       text not null,
  -- workflow.failed's error ({ code, message }), null otherwise
  error        jsonb,
  ended_at     timestamptz not null,
  attempts     int not null default 0,
  -- when the row is due (again): the end, a retry's backoff, or a claim's expiry
  next_at      timestamptz not null,
  delivered_at timestamptz,
  gave_up_at   timestamptz,
  last_status  int,
  last_error   text,
  primary key (thread_id, run_id)
);

-- The poll: rows still to deliver, by when they are due.
create index webhook_outbox_due_idx on :THREADLINE_SCHEMA.webhook_outbox (next_at)
  where delivered_at is null and gave_up_at is null;
