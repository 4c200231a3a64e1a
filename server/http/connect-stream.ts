/**
 * A connect's AG-UI frames, as every door that reconnects to a thread serves them: the connect
 * route (SSE) and the CopilotKit runner. Replay of the thread (or of what follows a cursor), then
 * the live tail of the active run until its terminal frame; then the end, because CopilotKit
 * shows a thread as running for as long as its connect stream is open.
 */
import type { FrameId, Frame } from "../../protocol/frames.ts";
import type { MergedDelta } from "../../protocol/merged-deltas.ts";
import { Replay } from "../../protocol/replay.ts";
import { type Encoding, encodeFrames, framesPieces, type WireFormat } from "../../protocol/sse.ts";
import { isActive } from "../../protocol/status.ts";
import type { ProtocolLevel } from "../../protocol/versions.ts";
import type { Metrics } from "../metrics.ts";
import type { EventStore, ThreadRow } from "../store/types.ts";
import type { EncodedFrames, SnapshotCache, SnapshotLease } from "./snapshot-cache.ts";
import { encodeInSlices } from "./json-slices.ts";
import { streamLag } from "./stream-lag.ts";
import { catchUpPages } from "../store/pages.ts";
import { backlogPages, livePages } from "./thread-frames.ts";

/**
 * How a connect replays finished runs: "compacted" (the default) merges each stretch of
 * consecutive deltas of one message into one frame; "exact" sends the log's frames one for one.
 */
export const REPLAY_FORMS = ["compacted", "exact"] as const;
export type ReplayForm = (typeof REPLAY_FORMS)[number];

export interface ConnectStreamDeps {
  store: EventStore;
  metrics?: Metrics;
  /**
   * Told once the backlog is read and its frames yielded, before the live tail: a stream that
   * opens late (the connect route opens with its first bytes) opens here at the latest, so a
   * client caught up with a live run gets its headers now, not at the run's next event.
   */
  onCaughtUp?: () => void;
}

/**
 * A reload (no cursor) of a thread where nothing runs: what it sends is the snapshot run alone,
 * the same bytes for every client that reloads the thread at the same position, which
 * sharedReload() builds once. With a run active the snapshot is followed by that run's frames,
 * live: connectFrames serves those.
 */
export function isSnapshotReload(thread: ThreadRow, cursor: FrameId | undefined): boolean {
  return cursor === undefined && !isActive(thread.status);
}

/**
 * The encoded snapshot of a thread where nothing runs, as of the position its row says, from
 * the cache: one build, one copy, for every reload of that thread at that position and encoding.
 * Release the lease when the stream is done with it.
 */
function sharedReload(deps: ConnectStreamDeps & { snapshots: SnapshotCache }, thread: ThreadRow, encoding: Encoding, reader: ProtocolLevel): Promise<SnapshotLease> {
  // The reader's level is part of the key: a 1.0 reader's snapshot has 1.0's forms.
  const key = `${thread.threadId}\n${thread.createdAt}\n${thread.lastSeq}\n${encoding}\n${reader}`;
  return deps.snapshots.acquire(key, async () => {
    const frames = await reloadSnapshot(deps, thread, reader);
    // SSE in slices, the loop turning between them (json-slices.ts); protobuf's encoder takes a
    // whole message, so a snapshot sent as protobuf is still encoded in one go.
    const bytes = encoding === "proto" ? encodeFrames(frames, encoding) : await encodeInSlices(framesPieces(frames, encoding));
    return { bytes, frames: frames.length };
  });
}

/**
 * Sends the shared snapshot of a reload (isSnapshotReload) to one stream, holding the bytes only
 * while it writes them: the connect route's and CopilotKit's connect both serve it so.
 */
export async function sendSharedReload(
  deps: ConnectStreamDeps & { snapshots: SnapshotCache },
  thread: ThreadRow,
  stream: { readonly format: WireFormat; writeEncoded(encoded: EncodedFrames): Promise<void> },
  encoding: Encoding = stream.format,
  reader: ProtocolLevel = "legacy",
): Promise<void> {
  const lease = await sharedReload(deps, thread, encoding, reader);
  try {
    await stream.writeEncoded(lease.snapshot);
  } finally {
    lease.release();
  }
}

/**
 * The snapshot run of a thread where nothing runs, as of its row's position: the frames
 * connectFrames sends for it, from the checkpoint and the events after it up to that position.
 * Later events (a run accepted since the row was read) are left to the next connect: the row is
 * what the caller was shown. A checkpoint past the row (a run ended meanwhile) is used as it is:
 * the snapshot is then as of that newer end. Not cancelled by one client's leaving: other reloads
 * may be waiting for the same build.
 */
export async function reloadSnapshot({ store, metrics }: ConnectStreamDeps, thread: ThreadRow, reader: ProtocolLevel = "legacy"): Promise<Frame[]> {
  const { threadId } = thread;
  const checkpoint = await store.readCheckpoint(threadId);
  const horizon = Math.max(thread.lastSeq, checkpoint?.seq ?? 0);
  // `now`: an interrupt past its expiry shows as expired; the entry is shared only by reloads
  // made while it is being sent, so the clock it was built at is theirs too.
  const fold = new Replay({ threadId, activeRunId: null, checkpoint, reader, now: Date.now() });
  const forAll = new AbortController().signal;
  pages: for await (const page of backlogPages(store, threadId, fold.startsAt, forAll, metrics)) {
    for (const e of page) {
      if (e.seq > horizon) break pages;
      fold.push(e); // nothing to send before the end: the whole backlog is before the cut
    }
  }
  return fold.endOfBacklog();
}

/**
 * The frames of `thread` (a row the caller read for its tenant: the log read afterwards holds at
 * least what the row says). With a cursor: the frames after it, as a client that never left
 * received them, except that (unless `replay` is "exact") each stretch of consecutive deltas of
 * one message in a finished run that lies wholly after the cursor comes as one delta, under the
 * id of the stretch's last (protocol/merged-deltas.ts: any id sent is a cursor into the log, and a
 * client holds after it what the exact replay's client held). Without one: the conversation as a
 * snapshot, then the active run from its start. Pull-driven, one page of the log at a time.
 * `reader`: what the connecting client declared, so each run's frames take the forms its live
 * stream had (protocol/versions.ts).
 */
export async function* connectFrames(
  { store, metrics, onCaughtUp }: ConnectStreamDeps,
  thread: ThreadRow,
  cursor: FrameId | undefined,
  signal: AbortSignal,
  reader: ProtocolLevel = "legacy",
  replay: ReplayForm = "compacted",
): AsyncGenerator<Frame, void, undefined> {
  const { threadId } = thread;
  if (signal.aborted) return;
  // Retention deleted stream events after the cursor: the frames the client missed can no
  // longer be reproduced one for one, so it gets the snapshot (a resync) instead.
  const intact = cursor === undefined || (await contiguousAfter(store, threadId, cursor.seq));
  const from = intact ? cursor : undefined;
  // The replay starts from the checkpoint where that makes the same frames (Replay decides):
  // a reload then reads the events after the last run's end, not the thread's whole log. A
  // cursor before the checkpoint replays from seq 1 whatever it holds: its position is all this
  // needs then, not its fold (the whole conversation; 400 ms of a 30 MB thread's replay).
  const checkpointAt = from === undefined ? undefined : await store.checkpointSeq(threadId);
  const unused = checkpointAt === null || (checkpointAt !== undefined && from!.seq < checkpointAt);
  const checkpoint = unused ? null : await store.readCheckpoint(threadId);
  const fold = new Replay({ threadId, activeRunId: isActive(thread.status) ? thread.activeRunId : null, cursor: from, checkpoint, reader, now: Date.now() });
  let lastSeq = fold.startsAt;
  // A stretch the cursor falls inside would send the client text it has: read from the log.
  const usable = (m: MergedDelta) => from === undefined || from.seq < m.fromSeq || from.seq >= m.event.seq;
  // Stretches are written at runs' ends, each of which writes a checkpoint too: a replay that
  // starts at the checkpoint (a reload, a resume past the last end) has none to read.
  const lastEnd = checkpoint?.seq ?? checkpointAt ?? null;
  const compactable = replay === "compacted" && lastEnd !== null && fold.startsAt < lastEnd;
  const backlog =
    !compactable ? backlogPages(store, threadId, fold.startsAt, signal, metrics) : catchUpPages(store, threadId, fold.startsAt, usable, signal, metrics);
  for await (const page of backlog) {
    for (const e of page) {
      yield* fold.push(e);
      if (signal.aborted) return;
    }
    lastSeq = page[page.length - 1]!.seq;
  }
  yield* fold.endOfBacklog();
  if (fold.activeEnded || signal.aborted) return;
  onCaughtUp?.();

  const lag = streamLag(store, metrics);
  for await (const page of livePages(store, threadId, lastSeq, signal, metrics)) {
    for (const e of page) {
      const frames = fold.push(e);
      yield* frames;
      // Pull-driven: the caller asked for more, so it wrote this event's frames (stream-lag.ts).
      if (frames.length > 0) lag(e);
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
