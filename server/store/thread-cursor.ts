/**
 * The page cursor of listThreads: opaque to clients, base64url of the JSON
 * `["<updated_at in µs since 1970>", "<thread id>"]` of the last thread of a page. This module
 * owns the format both ways: the store writes cursors with encodeThreadCursor, and every cursor
 * that comes back (the HTTP query, an application calling listThreads) is read by
 * ThreadCursorSchema, whose issues say what is wrong.
 *
 * Everything the page query does with a cursor is bounded here, before any statement: the µs go
 * through `$3::bigint * interval '1 microsecond'` (float8 arithmetic) and are added to the epoch,
 * and the thread id is compared as text. A 19-digit number used to overflow bigint, or the
 * interval, or timestamptz, and a NUL in the id is refused by Postgres: each was a 500 carrying
 * the database's error text. Rejected: catching those SQL errors after the fact, which would
 * spend a round trip on input that could never match a row.
 */
import { z } from "zod";
import type { ThreadKey } from "./sql/threads.ts";

/**
 * The largest µs value a cursor may carry: 2^53 - 1 (the year 2255). Up to it the query's float8
 * arithmetic is exact and the sum stays far inside timestamptz's range (up to 294276 AD); every
 * updated_at the server writes (now()) is below it. Below 0 (before 1970) no row is.
 */
export const THREAD_CURSOR_MAX_US = Number.MAX_SAFE_INTEGER;

/**
 * Characters of a cursor. The longest the store writes is 832: 16 digits and a thread id of 200
 * UTF-16 units of 3 UTF-8 bytes each (the id rule's bound), 623 bytes of JSON in base64url. The
 * bound leaves room above that for ids longer than the HTTP id rule (an application's own
 * CopilotRuntime door) and keeps a junk cursor from costing more than a short decode.
 */
export const THREAD_CURSOR_MAX_CHARS = 1024;

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const DIGITS = /^\d{1,16}$/;

const ADVICE = "pass back the `next` value of a previous page unchanged, or none for the first page";

export function encodeThreadCursor(key: ThreadKey): string {
  return Buffer.from(JSON.stringify([key.updatedAtUs, key.threadId])).toString("base64url");
}

/** Text Postgres stores as it is: no NUL, and UTF-8 round-trips it (no lone UTF-16 surrogate). */
function storableText(s: string): boolean {
  return !s.includes("\u0000") && Buffer.from(s, "utf8").toString("utf8") === s;
}

/** A cursor string in, its ThreadKey out; or issues that say what is wrong with it. */
export const ThreadCursorSchema = z
  .string()
  .min(1, `must not be empty: ${ADVICE}`)
  .max(THREAD_CURSOR_MAX_CHARS, `must be at most ${THREAD_CURSOR_MAX_CHARS} characters: ${ADVICE}`)
  .regex(BASE64URL, `must be base64url (A-Z, a-z, 0-9, "-", "_"): ${ADVICE}`)
  .transform((cursor, ctx): ThreadKey => {
    const problem = (message: string) => {
      ctx.addIssue({ code: "custom", message: `${message}: ${ADVICE}` });
      return z.NEVER;
    };
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    } catch {
      return problem("is not a page cursor of this server");
    }
    if (!Array.isArray(value) || value.length !== 2) return problem("is not a page cursor of this server");
    const [us, threadId] = value as unknown[];
    if (typeof us !== "string" || !DIGITS.test(us) || Number(us) > THREAD_CURSOR_MAX_US) {
      return problem(`holds a time outside 0..${THREAD_CURSOR_MAX_US} µs`);
    }
    if (typeof threadId !== "string" || threadId === "" || !storableText(threadId)) {
      return problem("holds a thread id that no thread can have (empty, NUL or a lone UTF-16 surrogate)");
    }
    return { updatedAtUs: us, threadId };
  });
