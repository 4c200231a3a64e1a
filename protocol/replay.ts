/**
 * A connect's replay as a fold: the log goes in event by event (page by page, as it is read), the
 * frames to send come out, and nothing needs the whole log in memory or in one go.
 *
 * With a cursor: the frames after it, exactly as a client that never left received them (the
 * projection still folds every event from seq 1; only what follows the cursor is sent).
 * Without one (a reload): the conversation before the active run as one snapshot run, then the
 * active run from its start. The cut is where the active run was accepted; with no active run it
 * is the end of the backlog (`endOfBacklog()`). Rejected: finding the cut first (a scan of the
 * whole log, held in memory, before the first frame) and then projecting; one pass over pages
 * gives the same frames with one page in memory.
 */
import type { Message } from "@ag-ui/core";
import type { Checkpoint } from "./checkpoint.ts";
import type { StoredEvent } from "./events.ts";
import { parseFrameId, type Frame, type FrameId } from "./frames.ts";
import { Projector } from "./project.ts";
import { interruptsAt } from "./interrupts.ts";
import { messagesSnapshotFrames, Reconstructor } from "./reconstruct.ts";
import type { ProtocolLevel } from "./versions.ts";

export interface ReplayOptions {
  threadId: string;
  /** The run the thread row says is active, if any: the replay ends with its terminal frame. */
  activeRunId: string | null;
  /** Resume after this frame; undefined for a reload (snapshot first). */
  cursor?: FrameId;
  /**
   * The thread's checkpoint, when the caller read it: the replay starts from it instead of seq 1
   * where that gives the same frames (startsAt says where the log must then be read from).
   */
  checkpoint?: Checkpoint | null;
  /** What the connecting client declared: the forms its frames take (protocol/versions.ts). */
  reader?: ProtocolLevel;
  /** The reader's clock (ms): a reload shows an interrupt past its expiresAt as expired (interruptsAt). Default: no expiry is applied. */
  now?: number;
}

const CONTENT = new Set(["message.appended", "state.set", "state.patched"]);

export class Replay {
  readonly #projector: Projector;
  readonly #activeRunId: string | null;
  readonly #cursor: FrameId | undefined;
  readonly #reader: ProtocolLevel;
  readonly #now: number | undefined;
  /** Folds the events before the cut; dropped once the snapshot is out. */
  #before: Reconstructor | undefined;
  /** Whether anything a snapshot shows (a message, the state) came before the cut. */
  #content = false;
  #activeEnded: boolean;

  /** The log position the replay was seeded at: the caller pushes the events after it. */
  readonly startsAt: number;

  constructor(opts: ReplayOptions) {
    this.#activeRunId = opts.activeRunId;
    this.#cursor = opts.cursor;
    this.#reader = opts.reader ?? "legacy";
    this.#now = opts.now;
    this.#activeEnded = opts.activeRunId === null;
    const cp = opts.checkpoint && usable(opts.checkpoint, opts.cursor) ? opts.checkpoint : undefined;
    if (cp) {
      const { messages, state, interrupts } = cp.fold;
      this.#projector = Projector.at({ threadId: opts.threadId, seq: cp.seq, messages: messages as Message[], state, ...(interrupts && { interrupts }) }, this.#reader);
      this.#before = opts.cursor ? undefined : Reconstructor.from(cp);
      // What the snapshot would show: the events before the checkpoint that set #content left
      // messages or a state in the fold.
      this.#content = messages.length > 0 || state !== undefined;
      this.startsAt = cp.seq;
    } else {
      this.#projector = new Projector(opts.threadId, this.#reader);
      this.#before = opts.cursor ? undefined : new Reconstructor();
      this.startsAt = 0;
    }
  }

  /** True once the active run's terminal frame went out (at once when no run was active). */
  get activeEnded(): boolean {
    return this.#activeEnded;
  }

  /** The frames to send for the next event of the log. */
  push(e: StoredEvent): Frame[] {
    const out: Frame[] = [];
    if (this.#before && e.type === "run.accepted" && e.data.runId === this.#activeRunId) {
      out.push(...this.#snapshot(e.seq - 1));
    }
    if (this.#before) {
      this.#before.push(e);
      if (CONTENT.has(e.type)) this.#content = true;
    }
    const frames = this.#projector.push(e);
    const cursor = this.#cursor;
    if (this.#before || (cursor && e.seq < cursor.seq)) return out;
    for (const frame of frames) {
      if (!cursor || after(frame.id, cursor)) out.push(frame);
      if (isTerminalFrame(frame) && e.runId === this.#activeRunId) this.#activeEnded = true;
    }
    return out;
  }

  /**
   * The backlog read so far is all there is: a reload whose active run was not in it (or that has
   * none) sends its snapshot as of the last event pushed.
   */
  endOfBacklog(): Frame[] {
    return this.#before ? this.#snapshot(this.#before.lastSeq, true) : [];
  }

  /**
   * `atEnd`: the snapshot is the whole thread (no run is active), so the interrupts it waits for
   * go in it; before an active run they are being answered by that run. Answered ones always do.
   */
  #snapshot(horizon: number, atEnd = false): Frame[] {
    const before = this.#before!;
    this.#before = undefined;
    // Nothing to show before the active run (its thread's first): no empty snapshot run.
    if (!this.#content) return [];
    const seen = this.#now === undefined ? [...before.interrupts().values()] : interruptsAt([...before.interrupts().values()], this.#now);
    const interrupts = seen.filter((r) => atEnd || r.resolution);
    return messagesSnapshotFrames(before.snapshot(), { seq: horizon, interrupts, reader: this.#reader });
  }
}

/**
 * A checkpoint stands between runs (none accepted and not ended: the projection carries nothing
 * of a run across it, Projector.at), and a cursor must be at or past it: the frames after the
 * cursor then come only from events after the checkpoint. A cursor inside the checkpoint's own
 * event (`<seq>.<part>`) still needs that event projected.
 */
function usable(cp: Checkpoint, cursor: FrameId | undefined): boolean {
  if (cp.fold.activeRunId !== undefined) return false;
  if (!cursor) return true;
  return cursor.seq > cp.seq || (cursor.seq === cp.seq && cursor.part === null);
}

function after(id: string, cursor: FrameId): boolean {
  const f = parseFrameId(id)!;
  return f.seq > cursor.seq || (cursor.part !== null && f.part !== null && f.part > cursor.part);
}

export function isTerminalFrame(frame: Frame): boolean {
  return frame.event.type === "RUN_FINISHED" || frame.event.type === "RUN_ERROR";
}
