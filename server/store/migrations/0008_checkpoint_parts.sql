-- A thread's checkpoint as a full fold and patches on it (protocol/checkpoint-patch.ts): a run's
-- end writes what it changed, not the whole conversation again, so the bytes a thread's
-- checkpoints take grow with its conversation, not with runs x conversation. A full fold is
-- written again once the patches since the last one outweigh it, and that write deletes the
-- parts before it (autovacuum then reclaims them).
-- base_seq: the part this one patches (its seq); null for a full fold.
--
-- Expand only: releases before it keep reading and writing the checkpoints table, whose row this
-- release reads too (the newer of the two wins) and deletes when it writes a full fold, so that an
-- older release then folds that thread from its log, which is correct, only slower.
create table :THREADLINE_SCHEMA.checkpoint_parts (
  thread_id  text not null references :THREADLINE_SCHEMA.threads (thread_id) on delete cascade,
  seq        bigint not null,
  base_seq   bigint,
  part       jsonb not null,
  bytes      integer not null,
  created_at timestamptz not null default now(),
  primary key (thread_id, seq)
);
