/**
 * The conversation as an earlier run of the thread left it: what a run that names that run in
 * AG-UI's `parentRunId` branches from (protocol/branches.ts planParentFork). Read from the log,
 * folded from its start up to that run's end, so it is exact for a run of any branch, also one
 * left behind, whose messages the thread's current fold no longer holds.
 *
 * Only a run that names an earlier run pays this read: the run that ended last is the head of
 * the current branch (no read), and an id the thread's runs table does not have costs one
 * lookup. The read stops at the first run that ends after the parent's last admission: a run is
 * admitted again only while it is the one that ended last (admission.ts resumedRunId), so no
 * later admission of it can follow. Rejected: keeping every run's end position in the fold and
 * its checkpoint, which grows each checkpoint with the thread's runs for a rare request, and
 * still could not rebuild a branch left behind without this read.
 */
import type { Message } from "@ag-ui/core";
import { endsRun } from "../../protocol/lifecycle.ts";
import { Reconstructor } from "../../protocol/reconstruct.ts";
import { wireRunId } from "../../protocol/run-ids.ts";
import { backlogPages } from "../store/pages.ts";
import type { EventStore } from "../store/types.ts";

const NEVER = new AbortController().signal;

/**
 * The messages as `parentRunId` (a client's run id) left them when it ended last, reading the log
 * up to `uptoSeq`; null when the thread has no such run, or it has not ended.
 */
export async function conversationAtRun(store: EventStore, threadId: string, parentRunId: string, uptoSeq: number): Promise<Message[] | null> {
  if (!(await store.getRun(threadId, parentRunId))) return null;
  const fold = new Reconstructor();
  let atEnd: Message[] | null = null;
  for await (const page of backlogPages(store, threadId, 0, NEVER)) {
    for (const e of page) {
      if (e.seq > uptoSeq) return atEnd;
      fold.push(e);
      if (!endsRun(e)) continue;
      if (wireRunId((e.data as { runId: string }).runId) === parentRunId) atEnd = fold.snapshot().messages;
      else if (atEnd) return atEnd;
    }
  }
  return atEnd;
}
