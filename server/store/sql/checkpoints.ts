/**
 * SQL of a thread's checkpoint outside the append path (which writes it, sql/events.ts): the
 * parts (a full fold and patches on it, migration 0008) and the single row releases before them
 * wrote (table checkpoints, 0005); the newer of the two is the checkpoint.
 */
import type { Checkpoint, FoldState } from "../../../protocol/checkpoint.ts";
import { applyFoldPatch, type FoldPatch } from "../../../protocol/checkpoint-patch.ts";
import { toMs, toNum, type Queryable } from "../db.ts";
import { yieldToLoop } from "../pages.ts";

/** A stored part as the reads list it: where it stands in the chain, and its size. */
interface PartHead {
  seq: number;
  base: number | null;
  bytes: number;
}

/** A stored part with its content (json: numbers are numbers, the time in ms). */
interface PartJson extends PartHead {
  part: FoldState | FoldPatch;
  at: number;
}

export interface CheckpointColumns {
  checkpoint_parts: PartJson[] | null;
  checkpoint_seq: unknown;
  checkpoint_fold: FoldState | null;
  checkpoint_at: unknown;
  /** true: the checkpoint is larger than the statement's bound and is not in the columns (null parts and fold) */
  checkpoint_large: boolean;
}

/**
 * The columns of CheckpointColumns for the thread `threadId` (an SQL expression), to select
 * beside the thread row (an admission's view, many threads in one statement). The parts come as
 * one json array in seq order: one row per thread whatever the number of patches; but only when
 * they add up to at most `inlineBytes` (an SQL expression, a cast parameter), and so does the older
 * release's row. A larger checkpoint is left out and `checkpoint_large` says so: its reader reads it
 * with selectCheckpoint, in parts. Measured on a thread of 30 MB of input (docs/internals.md,
 * "Reading a large thread"): the json_agg of its parts was ~400 ms of Postgres and one parse of
 * 29 MB on the event loop at every run's start. Rejected: never inlining it, a second round
 * trip before every run's RUN_STARTED, which small threads (nearly all) need not pay.
 */
export function checkpointColumnsSql(s: string, threadId: string, inlineBytes: string, within?: string): string {
  // `within`: an array of the statement's threads, named on the parts as well, for Citus's pruning (shards.ts)
  const pruned = within ? ` and p.thread_id = any(${within})` : "";
  const partBytes = `(select coalesce(sum(p.bytes), 0) from ${s}.checkpoint_parts p where p.thread_id = ${threadId}${pruned})`;
  // pg_column_size: the stored size of the older row's fold, without reading it out.
  const large = `(${partBytes} > ${inlineBytes} or coalesce(pg_column_size(k.fold), 0) > ${inlineBytes})`;
  return `case when not ${large} then
            (select json_agg(json_build_object('seq', p.seq, 'base', p.base_seq, 'part', p.part, 'bytes', p.bytes,
                                               'at', floor(extract(epoch from p.created_at) * 1000)) order by p.seq)
               from ${s}.checkpoint_parts p where p.thread_id = ${threadId}${pruned}) end as checkpoint_parts,
          k.seq as checkpoint_seq, case when not ${large} then k.fold end as checkpoint_fold, k.created_at as checkpoint_at,
          ${large} as checkpoint_large`;
}

/**
 * The parts a checkpoint is folded from: the last full fold, then the patches that follow it
 * link by link. A patch whose base is not the part before it is passed over (it was diffed
 * against a fold that is not the chain's), which leaves an older checkpoint, still correct.
 */
export function chainOf<P extends PartHead>(parts: readonly P[]): P[] {
  let chain: P[] = [];
  for (const p of parts) {
    if (p.base === null) chain = [p];
    else if (chain.length > 0 && chain[chain.length - 1]!.seq === p.base) chain.push(p);
  }
  return chain;
}

/** The checkpoint a chain's parts (chainOf, with their content) stand for. */
function checkpointOfChain(chain: readonly PartJson[]): Checkpoint {
  let fold = chain[0]!.part as FoldState;
  for (const p of chain.slice(1)) fold = applyFoldPatch(fold, p.part as FoldPatch);
  const last = chain[chain.length - 1]!;
  return {
    ...checkpointFromRow(last.seq, fold, last.at),
    parts: { fullBytes: chain[0]!.bytes, patchBytes: chain.slice(1).reduce((n, p) => n + p.bytes, 0) },
  };
}

/**
 * The checkpoint the columns stand for: the parts' chain or the older release's row, whichever is
 * newer; undefined when it was too large to be in them (checkpoint_large): read it with selectCheckpoint.
 */
export function checkpointFromColumns(row: CheckpointColumns): Checkpoint | null | undefined {
  if (row.checkpoint_large) return undefined;
  const chain = chainOf(row.checkpoint_parts ?? []);
  const legacy = row.checkpoint_fold === null ? null : checkpointFromRow(row.checkpoint_seq, row.checkpoint_fold, row.checkpoint_at);
  if (chain.length === 0) return legacy;
  if (legacy && legacy.seq > chain[chain.length - 1]!.seq) return legacy;
  return checkpointOfChain(chain);
}

/** A checkpoint row as read. The fold was built before its commit: its position and time are the row's. */
export function checkpointFromRow(seqCol: unknown, fold: FoldState, createdAt: unknown): Checkpoint {
  const seq = toNum(seqCol);
  return { seq, fold: { ...fold, lastSeq: seq, lastAt: toMs(createdAt) } };
}

/** Where a thread's checkpoint stands, without its content: the chain's parts and the older row's seq. */
interface CheckpointHead {
  chain: PartHead[];
  legacySeq: number | null;
}

async function selectHead(db: Queryable, s: string, threadId: string): Promise<CheckpointHead> {
  const { rows } = await db.query<{ parts: { seq: number; base: number | null; bytes: number }[] | null; legacy_seq: unknown }>(
    `select (select json_agg(json_build_object('seq', p.seq, 'base', p.base_seq, 'bytes', p.bytes) order by p.seq)
               from ${s}.checkpoint_parts p where p.thread_id = $1::text) as parts,
            k.seq as legacy_seq
       from (select 1) one
       left join ${s}.checkpoints k on k.thread_id = $1::text`,
    [threadId],
  );
  const row = rows[0]!;
  return { chain: chainOf(row.parts ?? []), legacySeq: row.legacy_seq === null ? null : toNum(row.legacy_seq) };
}

/** The seq the head's checkpoint stands at, or null: the newer of the chain's end and the older row. */
function seqOfHead(head: CheckpointHead): number | null {
  const chainSeq = head.chain.length === 0 ? null : head.chain[head.chain.length - 1]!.seq;
  if (head.legacySeq !== null && (chainSeq === null || head.legacySeq > chainSeq)) return head.legacySeq;
  return chainSeq;
}

/**
 * The position of the thread's checkpoint, or null when it has none: what a replay from a cursor
 * before it needs to know of it (a few bytes per part), rather than the fold (the whole
 * conversation), which it does not use.
 */
export async function selectCheckpointSeq(db: Queryable, s: string, threadId: string): Promise<number | null> {
  return seqOfHead(await selectHead(db, s, threadId));
}

/** How a checkpoint read runs each of its statements (the store's read retry and wait) and bounds their answers. */
export interface CheckpointReadOptions {
  /** each statement goes through it on its own: a long read is many bounded waits, not one */
  each: <T>(statement: () => Promise<T>) => Promise<T>;
  /** what one statement of parts answers at most, besides its first part (LOG_PAGE_BYTES) */
  maxBytes: number;
}

/**
 * How many times a read starts again when a part it listed is gone: a run's end wrote a new full
 * fold meanwhile, which deletes the parts before it. That happens when the conversation has
 * doubled since the last full fold, so a second miss in a row is already unlikely; after these,
 * the thread reads as having no checkpoint (its readers fold the log: slower, and the same answer).
 */
const CHECKPOINT_READ_ATTEMPTS = 3;

/**
 * The thread's checkpoint, or null. Rows are trusted: only the writer puts them there.
 *
 * The parts' list first, then their content a few MiB per statement (each statement's answer is
 * bounded by `maxBytes` or one part), the patches applied as they come, with a turn of the event
 * loop between statements. Measured on a thread of 30 MB of input (docs/internals.md, "Reading a
 * large thread"): one statement aggregating every part (json_agg) cost Postgres 420 ms where the
 * rows cost it 140 ms, and on PGlite, whose statements run on the event loop, was one block the
 * size of the checkpoint. Rejected: one statement of every part's rows, which bounds nothing on
 * PGlite; and a repeatable-read transaction around the statements, which on PGlite holds its
 * only session (every commit of every run) for the whole read. Parts are written once and only
 * deleted, so a part that answers is the part listed, and a missing one is noticed and read again.
 */
export async function selectCheckpoint(db: Queryable, s: string, threadId: string, opts: CheckpointReadOptions): Promise<Checkpoint | null> {
  for (let attempt = 0; attempt < CHECKPOINT_READ_ATTEMPTS; attempt++) {
    const head = await opts.each(() => selectHead(db, s, threadId));
    const seq = seqOfHead(head);
    if (seq === null) return null;
    const read = seq === head.legacySeq ? await opts.each(() => selectLegacy(db, s, threadId, seq)) : await readChain(db, s, threadId, head.chain, opts);
    if (read) return read;
  }
  return null;
}

/** The older release's row, if it is still the one listed. */
async function selectLegacy(db: Queryable, s: string, threadId: string, seq: number): Promise<Checkpoint | null> {
  const { rows } = await db.query<{ seq: unknown; fold: FoldState; created_at: unknown }>(
    `select k.seq, k.fold, k.created_at from ${s}.checkpoints k where k.thread_id = $1::text and k.seq = $2::bigint`,
    [threadId, seq],
  );
  const row = rows[0];
  return row ? checkpointFromRow(row.seq, row.fold, row.created_at) : null;
}

/** The chain's parts, a group of at most maxBytes (or one part) per statement; null when one is gone. */
async function readChain(db: Queryable, s: string, threadId: string, chain: readonly PartHead[], opts: CheckpointReadOptions): Promise<Checkpoint | null> {
  const parts: PartJson[] = [];
  for (const group of groupsOf(chain, opts.maxBytes)) {
    if (parts.length > 0) await yieldToLoop();
    const { rows } = await opts.each(() =>
      db.query<{ part: FoldState | FoldPatch; at: unknown }>(
        `select p.part, floor(extract(epoch from p.created_at) * 1000) as at
           from ${s}.checkpoint_parts p
          where p.thread_id = $1::text and p.seq = any($2::bigint[])
          order by p.seq`,
        [threadId, group.map((p) => p.seq)],
      ),
    );
    // Rows are the listed parts in seq order, unless one was deleted meanwhile.
    if (rows.length !== group.length) return null;
    for (const [i, row] of rows.entries()) parts.push({ ...group[i]!, part: row.part, at: toNum(row.at) });
  }
  return checkpointOfChain(parts);
}

/** Consecutive parts whose bytes add up to at most `maxBytes`; a part larger than that is a group alone. */
function groupsOf(chain: readonly PartHead[], maxBytes: number): PartHead[][] {
  const groups: PartHead[][] = [];
  let bytes = 0;
  for (const p of chain) {
    const open = groups[groups.length - 1];
    if (open && bytes + p.bytes <= maxBytes) {
      open.push(p);
      bytes += p.bytes;
    } else {
      groups.push([p]);
      bytes = p.bytes;
    }
  }
  return groups;
}
