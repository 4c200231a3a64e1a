/**
 * The compacted form of a finished run's stream: each stretch of consecutive deltas of one message
 * (text.delta, reasoning.delta, toolcall.args), one event per stretch, standing at the position of
 * the stretch's LAST delta, with their texts concatenated. The one owner of that rule: the run's
 * end writes these (server/engine/compacted-run.ts), a catch-up reads them in place of the stretch
 * (server/http/catch-up-pages.ts), and a resume check accepts them (matchesMerged).
 *
 * Why the last delta's position, and only consecutive deltas. A delta projects to exactly one frame
 * (its CONTENT or ARGS) or to none, so a merged stretch projects to one frame whose id is the id of
 * the stretch's last frame, and a client that applied it holds what a client of the exact log held
 * after that same id. Any id of a compacted replay is therefore a cursor into the log: a client cut
 * off there and resuming gets exactly the rest, whichever form the rest comes in. Rejected: one delta
 * per message across whatever lies between its deltas (a STATE_DELTA, another call's ARGS), which
 * retention's whole-message form does; the frames in between would then carry ids at which the
 * compacted client holds less text than the exact one, and a resume from them would lose text.
 */
import type { StoredEvent } from "./events.ts";
import type { Frame } from "./frames.ts";

/** The delta events that merge, with the field naming the message (or tool call) they extend. */
const KEY = { "text.delta": "messageId", "reasoning.delta": "messageId", "toolcall.args": "toolCallId" } as const;
type DeltaType = keyof typeof KEY;
type DeltaEvent = Extract<StoredEvent, { type: DeltaType }>;

/** The frames those events project to, with the field naming their message. */
const FRAME_KEY: Record<string, "messageId" | "toolCallId"> = {
  TEXT_MESSAGE_CONTENT: "messageId",
  REASONING_MESSAGE_CONTENT: "messageId",
  TOOL_CALL_ARGS: "toolCallId",
};

/**
 * The most UTF-16 units one merged delta carries: a longer stretch becomes several. Deltas are
 * merged whole (never split, so no surrogate pair is cut); one delta longer than this stays alone.
 */
export const MERGED_DELTA_MAX_CHARS = 64 * 1024;

/**
 * The fewest deltas a stored stretch stands for. A catch-up reads a stretch with a statement of its
 * own and the log up to it with another, where the log's page would have carried the stretch's
 * deltas along: below this, reading them from the log costs less than the round trips saved
 * (a page is 200 to 500 events).
 */
export const MIN_STRETCH_EVENTS = 32;

/**
 * The most text (UTF-16 units) a run's compacted stretches hold in all: what its executor keeps
 * in memory for them until its end, and what a run's end writes beside its events. A run that
 * streams more is caught up from the log past that point.
 */
export const COMPACTED_MAX_CHARS_PER_RUN = 4 * 1024 * 1024;

/** A merged stretch: `event` stands for the log's events fromSeq..event.seq. */
export interface MergedDelta {
  fromSeq: number;
  event: StoredEvent;
}

function isDelta(e: StoredEvent): e is DeltaEvent {
  return Object.hasOwn(KEY, e.type);
}

function keyOf(e: DeltaEvent): string {
  return (e.data as Record<string, string>)[KEY[e.type]]!;
}

/**
 * Folds a run's committed events, in log order, into its merged stretches. Only stretches of
 * `minEvents` deltas or more are kept (MIN_STRETCH_EVENTS). `maxChars` bounds the text all
 * kept stretches hold together: past it, nothing more is kept and the rest of the run's deltas are
 * read from the log (the compacted form is a shortcut, never the only copy).
 */
export class DeltaMerger {
  readonly #done: MergedDelta[] = [];
  #open: { fromSeq: number; last: DeltaEvent; key: string; parts: string[]; chars: number; count: number } | undefined;
  #held = 0;
  #full = false;

  constructor(
    private readonly maxChars: number,
    private readonly minEvents: number = MIN_STRETCH_EVENTS,
    private readonly maxDeltaChars: number = MERGED_DELTA_MAX_CHARS,
  ) {}

  push(e: StoredEvent): void {
    const open = this.#open;
    if (open && isDelta(e) && e.seq === open.last.seq + 1 && e.type === open.last.type && e.runId === open.last.runId && keyOf(e) === open.key && open.chars + e.data.delta.length <= this.maxDeltaChars) {
      open.parts.push(e.data.delta);
      open.chars += e.data.delta.length;
      open.count++;
      open.last = e;
      return;
    }
    this.#close();
    if (isDelta(e) && !this.#full) this.#open = { fromSeq: e.seq, last: e, key: keyOf(e), parts: [e.data.delta], chars: e.data.delta.length, count: 1 };
  }

  /** The stretches merged so far (the open one closed). */
  take(): MergedDelta[] {
    this.#close();
    return this.#done.splice(0);
  }

  #close(): void {
    const open = this.#open;
    this.#open = undefined;
    if (!open || open.count < Math.max(2, this.minEvents)) return;
    if (this.#held + open.chars > this.maxChars) {
      this.#full = true;
      return;
    }
    this.#held += open.chars;
    const { last } = open;
    const data = { ...last.data, delta: open.parts.join("") };
    this.#done.push({ fromSeq: open.fromSeq, event: { ...last, data } as StoredEvent });
  }
}

/**
 * Whether `resumed` is `live` (the frames a client that never left got) with some stretches of
 * consecutive deltas of one message merged into one frame carrying the stretch's last id: what a
 * resume may send. Rejected: comparing the projected conversation only, which would accept frames
 * in another order or under ids that are no cursor into the log.
 */
export function matchesMerged(live: readonly Frame[], resumed: readonly Frame[]): { ok: true } | { ok: false; at: number; why: string } {
  let j = 0;
  for (const [i, got] of resumed.entries()) {
    const want = live[j];
    if (!want) return { ok: false, at: i, why: `${resumed.length - i} frames more than were sent live` };
    if (got.id === want.id && same(got.event, want.event)) {
      j++;
      continue;
    }
    const key = FRAME_KEY[got.event.type];
    const delta = (got.event as { delta?: unknown }).delta;
    if (!key || typeof delta !== "string") return { ok: false, at: i, why: `frame ${got.id} differs from the one sent live (${want.id})` };
    const id = (got.event as Record<string, unknown>)[key];
    let text = "";
    let k = j;
    while (k < live.length && text.length < delta.length) {
      const ev = live[k]!.event as Record<string, unknown>;
      if (ev.type !== got.event.type || ev[key] !== id || typeof ev.delta !== "string") break;
      text += ev.delta;
      k++;
    }
    if (k - j < 2 || text !== delta || live[k - 1]!.id !== got.id) return { ok: false, at: i, why: `frame ${got.id} is neither a live frame nor the live deltas ${want.id}.. merged` };
    j = k;
  }
  return j === live.length ? { ok: true } : { ok: false, at: resumed.length, why: `${live.length - j} live frames missing from the resume` };
}

/** Deep equality of JSON values, whatever the order of their keys (frames parsed from two streams). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x).filter((k) => x[k] !== undefined);
  if (keys.length !== Object.keys(y).filter((k) => y[k] !== undefined).length) return false;
  return keys.every((k) => Object.hasOwn(y, k) && same(x[k], y[k]));
}
