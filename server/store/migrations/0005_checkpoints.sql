-- One checkpoint per thread: the reconstruction fold (protocol/checkpoint.ts) as of `seq`,
-- written in the commit of a run's terminal event. Readers fold only the events after it.
create table :THREADLINE_SCHEMA.checkpoints (
  thread_id  text primary key references :THREADLINE_SCHEMA.threads (thread_id) on delete cascade,
  seq        bigint not null,
  fold       jsonb not null,
  created_at timestamptz not null default now()
);
