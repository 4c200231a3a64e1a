-- Memory across threads (docs/memory.md): per tenant, namespaced keys to JSON values, searched by
-- key prefix (the key's "C" collation makes `key like 'prefix%'` an index range) and by text
-- (Postgres full-text search over the key and the value's strings and numbers, 'simple'
-- configuration: no stemming, so every language is treated alike).
--
-- Per tenant, keyed (tenant_id, ...): on Citus both tables are distributed by tenant_id and
-- co-located (docs/scaling.md), so every statement is a router statement on the tenant's shard.
--
-- Expand only: releases before it neither read nor write these tables.
create table :THREADLINE_SCHEMA.memory_entries (
  tenant_id   text not null,
  namespace   text not null collate "C",
  key         text not null collate "C",
  value       jsonb not null,
  -- the value's size as JSON text, counted against the tenant's bound
  bytes       int not null,
  search      tsvector generated always as (
                to_tsvector('simple', key) || jsonb_to_tsvector('simple', value, '["string", "numeric"]')
              ) stored,
  created_at  timestamptz not null,
  updated_at  timestamptz not null,
  primary key (tenant_id, namespace, key)
);

create index memory_entries_search_idx on :THREADLINE_SCHEMA.memory_entries using gin (search);

-- Each tenant's totals, kept in the transaction of every write: the row lock serialises one
-- tenant's writes, so its bounds hold exactly under concurrency.
create table :THREADLINE_SCHEMA.memory_usage (
  tenant_id  text primary key,
  entries    int not null default 0,
  bytes      bigint not null default 0
);
