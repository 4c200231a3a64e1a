-- Tenants: a thread belongs to the tenant whose API key created it (server/tenant.ts).
-- Threads from before tenants belong to the default tenant, as every caller did then.
alter table :THREADLINE_SCHEMA.threads add column tenant_id text not null default 'default';
-- No default from here on: an insert that forgets its tenant fails loudly rather than handing
-- the thread to the default tenant.
alter table :THREADLINE_SCHEMA.threads alter column tenant_id drop default;

-- listThreads is always scoped to the caller's tenant: the unscoped indexes give way to scoped
-- ones (every append updates updated_at, so each index on it costs every batch a write).
drop index :THREADLINE_SCHEMA.threads_updated_at_idx;
drop index :THREADLINE_SCHEMA.threads_agent_updated_at_idx;
create index threads_tenant_updated_at_idx on :THREADLINE_SCHEMA.threads (tenant_id, updated_at, thread_id);
create index threads_tenant_agent_updated_at_idx on :THREADLINE_SCHEMA.threads (tenant_id, agent_id, updated_at, thread_id);
