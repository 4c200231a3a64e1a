/**
 * A thread's reconstruction fold as of now: its checkpoint (the fold at the end of its last run),
 * then the events after it, a page at a time. Rejected: folding the whole log on every run's
 * admission and every recovery, which made a run's start cost the thread's length.
 */
import type { Checkpoint } from "../../protocol/checkpoint.ts";
import type { StoredEvent } from "../../protocol/events.ts";
import { Reconstructor } from "../../protocol/reconstruct.ts";
import { backlogPages, type PageCounter } from "../store/pages.ts";
import type { EventStore } from "../store/types.ts";

const NEVER = new AbortController().signal;

export interface FoldOptions {
  /** sees every event read after the checkpoint, in order */
  onEvent?: (e: StoredEvent) => void;
  signal?: AbortSignal;
  metrics?: PageCounter;
  /** The checkpoint, when the caller read it already (EventStore.admissionView); null: none. */
  checkpoint?: Checkpoint | null;
  /**
   * The thread row's last seq, when the caller read the row: the fold is as of the row, and a
   * checkpoint at that seq is the whole of it (no read of the log at all).
   */
  lastSeq?: number;
}

export async function foldThread(store: EventStore, threadId: string, opts: FoldOptions = {}): Promise<Reconstructor> {
  const checkpoint = opts.checkpoint !== undefined ? opts.checkpoint : await store.readCheckpoint(threadId);
  const fold = checkpoint ? Reconstructor.from(checkpoint) : new Reconstructor();
  if (opts.lastSeq !== undefined && fold.lastSeq >= opts.lastSeq) return fold;
  for await (const page of backlogPages(store, threadId, checkpoint?.seq ?? 0, opts.signal ?? NEVER, opts.metrics)) {
    for (const e of page) {
      fold.push(e);
      opts.onEvent?.(e);
    }
  }
  return fold;
}
