-- Run ids are the client's (AG-UI RunAgentInput.runId) and only unique within their thread: two
-- threads, or two tenants, may pick the same one. With run_id alone as the key, a run accepted on
-- one thread upserted the run row of another thread's run of the same id.
alter table :THREADLINE_SCHEMA.runs drop constraint runs_pkey;
alter table :THREADLINE_SCHEMA.runs add primary key (thread_id, run_id);
drop index :THREADLINE_SCHEMA.runs_thread_id_idx;
