/**
 * Text the log can store. Postgres `jsonb` (and PGlite's) refuses two things a JavaScript string
 * may hold: NUL (U+0000, "unsupported Unicode escape sequence") and a lone UTF-16 surrogate, half
 * of a pair without the other ("invalid input syntax for type json"). Text the server writes on
 * its own account (what a model streamed, what a tool returned or printed) goes through the one
 * rule here, so that such a character costs one visible sign instead of the run:
 *
 * - a surrogate half without its other half becomes U+FFFD (the replacement character, which is
 *   what a UTF-8 decoder makes of the same broken bytes);
 * - NUL becomes U+2400 (SYMBOL FOR NULL, "␀"), so the reader still sees that a NUL was there and
 *   where. Rejected: U+FFFD for it too (a NUL is a valid character, not a decoding error, and
 *   `find -print0` output should stay readable), dropping it (joins what it separated), and an
 *   escape such as `\0` (indistinguishable from text that spelled it).
 *
 * Streamed text is cut wherever the producer cut it, also between the two halves of a pair:
 * `StorableTextStream` holds a trailing high surrogate back until the next piece, so that a pair
 * split over two deltas is stored whole, and only a half that never completes is replaced.
 *
 * What a client sends is not normalised by this rule but refused (server/http/limits.ts): the
 * server must not store something other than what the client asked it to.
 */

/**
 * Without the `u` flag the regex sees UTF-16 code units: a high surrogate not followed by a low
 * one, or a low one not preceded by a high one, is lone.
 */
export const UNSTORABLE_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE_TEXT.source, "g");

export const REPLACEMENT_CHARACTER = "\uFFFD";
export const NUL_SIGN = "\u2400";

/** `s` with every NUL as U+2400 and every lone surrogate as U+FFFD; `s` itself when it has neither. */
export function toStorableText(s: string): string {
  if (!UNSTORABLE_TEXT.test(s)) return s;
  return s.replace(UNSTORABLE_ALL, (c) => (c === "\u0000" ? NUL_SIGN : REPLACEMENT_CHARACTER));
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * One stream of text deltas made storable piece by piece: the concatenation of what `push` and
 * `end` return equals `toStorableText` of the concatenated input, wherever the input was cut,
 * and every returned piece is storable on its own. At most one code unit is held at a time.
 */
export class StorableTextStream {
  #held = "";

  /** The storable part of `held + delta`; a trailing high surrogate waits for the next delta. */
  push(delta: string): string {
    let text = this.#held + delta;
    this.#held = "";
    if (text !== "" && isHighSurrogate(text.charCodeAt(text.length - 1))) {
      this.#held = text.slice(-1);
      text = text.slice(0, -1);
    }
    return toStorableText(text);
  }

  /** The stream is over: a high surrogate still held never got its other half. */
  end(): string {
    const held = this.#held;
    this.#held = "";
    return held === "" ? "" : REPLACEMENT_CHARACTER;
  }
}

/**
 * For JSON.parse (as reviver) and JSON.stringify (as replacer): every string value and every
 * object key made storable, so a value that came from outside (a model's JSON arguments, whatever
 * a tool returned) can be stored and handed on. Objects are rebuilt only when a key needs it.
 */
export function storableJsonMember(_key: string, value: unknown): unknown {
  if (typeof value === "string") return toStorableText(value);
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (!keys.some((k) => UNSTORABLE_TEXT.test(k))) return value;
  const out: Record<string, unknown> = {};
  for (const k of keys) out[toStorableText(k)] = (value as Record<string, unknown>)[k];
  return out;
}
