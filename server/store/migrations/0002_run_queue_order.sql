-- Queued runs in arrival order. created_at (now(), the transaction's start) ties for runs
-- enqueued within one clock tick, which PGlite's clock makes common; an identity column orders
-- them as they were inserted.
alter table :THREADLINE_SCHEMA.runs add column queue_pos bigint generated always as identity;

drop index :THREADLINE_SCHEMA.runs_queued_idx;
create index runs_queued_idx on :THREADLINE_SCHEMA.runs (thread_id, queue_pos) where status = 'queued';
