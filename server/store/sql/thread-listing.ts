/**
 * The thread list, keyset-paginated, and what it shows besides the row: a title and whether the thread waits for a person.
 * - title: the one a person gave it (threads.title), else the start of its first user message,
 *   read from the log (the first message.appended of role user: an index walk from seq 1 that
 *   stops at the first match, a few events into the thread). Rejected: writing the derived title
 *   into the row at the first run's admission, an extra statement on the run path for every new
 *   thread, and a value that old instances (rolling upgrade) would leave unset anyway.
 * - waiting: a WAITING thread whose last run suspended for an approval, a question or a
 *   frontend tool's result: the person has to answer, not just may write (reason "input").
 *   WAITING is only reached by workflow.suspended, so the last one is the thread's.
 * Both are correlated lookups per listed row (at most a page of them), by the log's primary key.
 */
import { toMsOrNull } from "../db.ts";
import type { ThreadListing } from "../types.ts";
import type { ThreadStatus } from "../../../protocol/status.ts";
import type { Queryable } from "../db.ts";
import { THREAD_COLUMNS, threadFromRow, type ThreadDbRow, type ThreadKey } from "./threads.ts";

/** The longest title the list derives from a message (characters). */
export const DERIVED_TITLE_MAX = 80;

export interface ListingDbColumns {
  title: string | null;
  first_text: string | null;
  archived_at: unknown;
  suspended_for: string | null;
}

export const LISTING_COLUMNS = `t.title, first_user.text as first_text, t.archived_at, suspension.reason as suspended_for`;

/**
 * The lateral lookups LISTING_COLUMNS reads; `t` is the threads row. `thread`: the one thread
 * listed (an SQL expression), named on the log as well so that Citus prunes the lookups to its shard.
 */
export const LISTING_JOINS = (s: string, thread?: string) => `
     left join lateral (
       select case jsonb_typeof(e.data->'message'->'content')
                when 'string' then e.data->'message'->>'content'
                else (select p->>'text' from jsonb_array_elements(e.data->'message'->'content') p
                      where p->>'type' = 'text' limit 1)
              end as text
       from ${s}.workflow_events e
       where e.thread_id = t.thread_id${thread ? ` and e.thread_id = ${thread}` : ""} and e.type = 'message.appended' and e.data->'message'->>'role' = 'user'
       order by e.seq
       limit 1
     ) first_user on true
     left join lateral (
       select e.data->>'reason' as reason
       from ${s}.workflow_events e
       where t.status = 'WAITING' and e.thread_id = t.thread_id${thread ? ` and e.thread_id = ${thread}` : ""} and e.type = 'workflow.suspended'
       order by e.seq desc
       limit 1
     ) suspension on true`;

/** One line, at most DERIVED_TITLE_MAX characters, an ellipsis where it was cut. */
export function derivedTitle(text: string | null): string | null {
  if (text === null) return null;
  const line = text.replace(/\s+/g, " ").trim();
  if (line === "") return null;
  return line.length <= DERIVED_TITLE_MAX ? line : `${line.slice(0, DERIVED_TITLE_MAX - 1).trimEnd()}…`;
}

export function listingFromRow(row: ThreadDbRow & ListingDbColumns): ThreadListing {
  const reason = row.suspended_for;
  return {
    ...threadFromRow(row),
    title: row.title ?? derivedTitle(row.first_text),
    titleSet: row.title !== null,
    archivedAt: toMsOrNull(row.archived_at),
    waitingForYou: reason === "approval" || reason === "interrupt" || reason === "frontend_tool",
  };
}

export interface ThreadListQuery {
  /** null: every tenant's threads (no index serves that order; operators and tests only) */
  tenantId: string | null;
  agentId: string | null;
  status: ThreadStatus | null;
  before: ThreadKey | null;
  limit: number;
  /** false: not archived; true: archived only; null: both */
  archived: boolean | null;
  /** only threads whose title holds this text (case-insensitive); null: any */
  titleHas: string | null;
}

type ListedDbRow = ThreadDbRow & { updated_at_us: string } & ListingDbColumns;

/**
 * One page, newest-updated first. The key keeps updated_at to the microsecond (a JS Date would
 * round it to the millisecond and the next page could skip or repeat a thread). Each row comes
 * with its title and whether it waits for a person (LISTING_COLUMNS).
 */
export async function selectThreadPage(
  db: Queryable,
  s: string,
  q: ThreadListQuery,
): Promise<{ threads: ThreadListing[]; keys: ThreadKey[] }> {
  const { rows } = await db.query<ListedDbRow>(
    `select ${THREAD_COLUMNS}, ${LISTING_COLUMNS},
            ((extract(epoch from updated_at) * 1000000)::bigint)::text as updated_at_us
     from ${s}.threads t
     ${LISTING_JOINS(s)}
     where ($6::text is null or tenant_id = $6::text)
       and ($1::text is null or agent_id = $1::text)
       and ($2::text is null or status = $2::text)
       and ($3::bigint is null
            or (updated_at, thread_id) < (timestamptz 'epoch' + $3::bigint * interval '1 microsecond', $4::text))
       and ($7::boolean is null or (archived_at is not null) = $7::boolean)
       and ($8::text is null or strpos(lower(coalesce(t.title, first_user.text, '')), lower($8::text)) > 0)
     order by updated_at desc, thread_id desc
     limit $5::int`,
    [q.agentId, q.status, q.before?.updatedAtUs ?? null, q.before?.threadId ?? null, q.limit, q.tenantId, q.archived, q.titleHas],
  );
  return {
    threads: rows.map(listingFromRow),
    keys: rows.map((r) => ({ updatedAtUs: r.updated_at_us, threadId: r.thread_id })),
  };
}


export interface ThreadMetaChange {
  /** a new title; null: back to the one derived from the first message; absent: unchanged */
  title?: string | null;
  /** absent: unchanged */
  archived?: boolean;
}

/**
 * Renames and/or archives a thread, and returns it as the list shows it; null when there is no
 * such thread (for this tenant). The update, then the thread as listed, two statements: on
 * Citus, the listing's lookups in the log cannot join the rows an update returns (a CTE), only
 * the table. A change committed between the two shows, as it would on the next read. updated_at stays: it orders the list by
 * activity, and a rename is not activity. The archive time is the caller's clock (`now`, ms):
 * Citus refuses now() inside the CASE of a distributed update, and the time is only shown.
 */
export async function updateThreadMeta(
  db: Queryable,
  s: string,
  threadId: string,
  tenantId: string | null,
  change: ThreadMetaChange,
  now: number = Date.now(),
): Promise<ThreadListing | null> {
  const { rowCount } = await db.query(
    `update ${s}.threads u
     set title = case when $3::boolean then $4::text else u.title end,
         archived_at = case when $5::boolean is null then u.archived_at
                            when $5::boolean then coalesce(u.archived_at, to_timestamp($6::float8 / 1000))
                            else null end
     where u.thread_id = $1::text and ($2::text is null or u.tenant_id = $2::text)`,
    [threadId, tenantId, change.title !== undefined, change.title ?? null, change.archived ?? null, now],
  );
  if (rowCount === 0) return null;
  return selectThreadListing(db, s, threadId, null);
}

/** One thread as the list shows it (its title, archive and waiting marks); null: none (for this tenant). */
export async function selectThreadListing(db: Queryable, s: string, threadId: string, tenantId: string | null): Promise<ThreadListing | null> {
  const { rows } = await db.query<ThreadDbRow & ListingDbColumns>(
    `select ${THREAD_COLUMNS}, ${LISTING_COLUMNS}
     from ${s}.threads t
     ${LISTING_JOINS(s, "$1::text")}
     where t.thread_id = $1::text and ($2::text is null or t.tenant_id = $2::text)`,
    [threadId, tenantId],
  );
  return rows[0] ? listingFromRow(rows[0]) : null;
}
