-- The compacted form of finished runs' streams (protocol/merged-deltas.ts): each stretch of
-- consecutive deltas of one message as one event, written in the commit of the run's end. A
-- catch-up reads a row in place of the log's events from_seq..seq, so a resume before a 10k-token
-- answer reads a few rows instead of 10k. The log stays the truth: a row only stands for events
-- the log still holds (retention deletes both), and a reader that cannot use it reads the log.
-- seq: the stretch's last event (the merged event's position); run_id: for retention.
--
-- Expand only: releases before it neither read nor write it, and the rows they leave out make
-- catch-ups read the log, which is correct, only slower.
create table :THREADLINE_SCHEMA.compacted_deltas (
  thread_id  text not null references :THREADLINE_SCHEMA.threads (thread_id) on delete cascade,
  seq        bigint not null,
  from_seq   bigint not null,
  run_id     text,
  type       text not null,
  data       jsonb not null,
  created_at timestamptz not null,
  primary key (thread_id, seq),
  check (from_seq < seq)
);
