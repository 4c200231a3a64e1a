-- Thread titles and archiving. Expand only: both columns are nullable with no default, so code
-- from before them, which neither reads nor writes them, runs unchanged against this schema.
-- title: the name a person gave the thread (null: the list shows its first user message);
-- archived_at: when it was archived (null: not archived; the list leaves archived threads out
-- unless asked).
alter table :THREADLINE_SCHEMA.threads add column title text;
alter table :THREADLINE_SCHEMA.threads add column archived_at timestamptz;
