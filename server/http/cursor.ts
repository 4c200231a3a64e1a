/**
 * A log position a client sends back (`Last-Event-ID` of the raw events stream, `?after=`): a
 * non-negative safe integer written in decimal digits. `Number()` alone would take "1e400"
 * (Infinity), "-1" or "0x10", which reach the store as values Postgres refuses or misreads.
 */
import { InvalidRequestError } from "../errors.ts";

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
