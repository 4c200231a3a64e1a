/**
 * A connect's AG-UI frames, as every door that reconnects to a thread serves them: the connect
 * route (SSE) and the CopilotKit runner. Replay of the thread (or of what follows a cursor), then
 * the live tail of the active run until its terminal frame; then the end, because CopilotKit
 * shows a thread as running for as long as its connect stream is open.
 */
import type { FrameId, Frame } from "../../protocol/frames.ts";
import { Replay } from "../../protocol/replay.ts";
import { isActive } from "../../protocol/status.ts";
import type { Metrics } from "../metrics.ts";
import type { EventStore, ThreadRow } from "../store/types.ts";
import { backlogPages, livePages } from "./thread-frames.ts";

export interface ConnectStreamDeps {
  store: EventStore;
  metrics?: Metrics;
}

/**
 * The frames of `thread` (a row the caller read for its tenant: the log read afterwards holds at
 * least what the row says). With a cursor: exactly the frames after it, as a client that never
 * left received them; without one: the conversation as a snapshot, then the active run from its
 * start. Pull-driven, one page of the log at a time.
 */
export async function* connectFrames(
  { store, metrics }: ConnectStreamDeps,
  thread: ThreadRow,
  cursor: FrameId | undefined,
  signal: AbortSignal,
): AsyncGenerator<Frame, void, undefined> {
  const { threadId } = thread;
  if (signal.aborted) return;
  // Retention deleted stream events after the cursor: the frames the client missed can no
  // longer be reproduced one for one, so it gets the snapshot (a resync) instead.
  const exact = cursor === undefined || (await contiguousAfter(store, threadId, cursor.seq));
  // The replay starts from the checkpoint where that makes the same frames (Replay decides):
  // a reload then reads the events after the last run's end, not the thread's whole log.
  const checkpoint = await store.readCheckpoint(threadId);
  const fold = new Replay({ threadId, activeRunId: isActive(thread.status) ? thread.activeRunId : null, cursor: exact ? cursor : undefined, checkpoint, now: Date.now() });
  let lastSeq = fold.startsAt;
  for await (const page of backlogPages(store, threadId, fold.startsAt, signal, metrics)) {
    for (const e of page) {
      yield* fold.push(e);
      if (signal.aborted) return;
    }
    lastSeq = page[page.length - 1]!.seq;
  }
  yield* fold.endOfBacklog();
  if (fold.activeEnded || signal.aborted) return;

  for await (const page of livePages(store, threadId, lastSeq, signal, metrics)) {
    for (const e of page) {
      yield* fold.push(e);
      if (fold.activeEnded || signal.aborted) return;
    }
  }
}

/**
 * True when no event after `seq` was compacted away (the log's seqs are gapless until then).
 * A count, not a read: the answer costs one index range scan whatever the backlog's size.
 */
async function contiguousAfter(store: EventStore, threadId: string, seq: number): Promise<boolean> {
  const { count, lastSeq } = await store.countAfter(threadId, seq);
  return count === lastSeq - seq;
}
