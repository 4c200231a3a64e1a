/**
 * A log position a client sends back (`Last-Event-ID` of the raw events stream, `?after=`): a
 * non-negative safe integer written in decimal digits. `Number()` alone would take "1e400"
 * (Infinity), "-1" or "0x10", which reach the store as values Postgres refuses or misreads.
 */
import { ConflictError, InvalidRequestError } from "../errors.ts";

const DIGITS = /^\d{1,16}$/;

/** The seq in `raw`, or an InvalidRequestError naming `where` (e.g. "header Last-Event-ID"). */
export function parseSeqCursor(raw: string, where: string): number {
  const s = raw.trim();
  const n = DIGITS.test(s) ? Number(s) : NaN;
  if (Number.isSafeInteger(n)) return n;
  throw new InvalidRequestError(
    "INVALID_CURSOR",
    `${where} must be the id of an event you received (a whole number of at most 16 digits); send none to start at the beginning.`,
    [{ path: where, message: `"${s.slice(0, 40)}" is not an event id` }],
  );
}

/**
 * A cursor past the end of the thread's log: the client holds ids of a log this thread does not
 * have (a thread deleted and begun again, another deployment's database, a restored backup, a
 * hand-made id). Answering the frames after it would be an empty stream, which a client reads as
 * "up to date": 409 CURSOR_AHEAD names the thread's last id instead, so it knows to reload.
 * `seq` is the cursor's log position; `lastSeq` the thread row's, read before the log, so every
 * id any client was sent for this thread is at most it.
 */
export function cursorAhead(threadId: string, seq: number, lastSeq: number, where: string): ConflictError | undefined {
  if (seq <= lastSeq) return undefined;
  return new ConflictError(
    "CURSOR_AHEAD",
    `${where} "${seq}" is past the end of thread ${threadId}, whose last event id is "${lastSeq}": the thread you followed is not this one any more (it may have been deleted and begun again). Reload it: connect without a cursor, or GET the thread.`,
    { threadId, lastEventId: String(lastSeq) },
  );
}
