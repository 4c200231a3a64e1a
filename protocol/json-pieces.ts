/**
 * JSON.stringify's text of a value, in pieces: a container near the top (the answer's object, its
 * `messages` array, a message list's items) is written a member at a time, and each member deeper
 * down is one JSON.stringify. Joined, the pieces are JSON.stringify(value), character for
 * character (test/protocol/json-pieces.test.ts): the same members skipped (undefined, functions,
 * symbols), the same `null` for them in arrays, toJSON honoured (an object that has one is one
 * piece). What it is for: an answer as large as a thread (a 30 MB conversation) encoded without
 * one 30 MB string built in one block of the event loop; the caller turns the loop between pieces.
 * Rejected: a streaming JSON library, for the three rules above that it would have to match too.
 */

/** How many levels of containers are taken apart: the answer, its lists, their items' members. */
export const JSON_PIECES_DEPTH = 2;

export function* jsonPieces(value: unknown, depth: number = JSON_PIECES_DEPTH): Generator<string, void, undefined> {
  if (depth > 0 && Array.isArray(value)) {
    yield "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ",";
      const item: unknown = value[i];
      if (skipped(item)) yield "null";
      else yield* jsonPieces(item, depth - 1);
    }
    yield "]";
    return;
  }
  if (depth > 0 && isPlainObject(value)) {
    yield "{";
    let first = true;
    for (const key of Object.keys(value)) {
      const member = value[key];
      if (skipped(member)) continue;
      yield `${first ? "" : ","}${JSON.stringify(key)}:`;
      first = false;
      yield* jsonPieces(member, depth - 1);
    }
    yield "}";
    return;
  }
  yield JSON.stringify(value);
}

/** What JSON.stringify leaves out of an object and writes as null in an array. */
function skipped(v: unknown): boolean {
  return v === undefined || typeof v === "function" || typeof v === "symbol";
}

/** A plain object without toJSON: the only kind taken apart (a Date, a boxed string: one piece). */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== "function";
}
