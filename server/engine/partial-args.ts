/**
 * A tool call's JSON arguments as far as they have streamed: the top-level members that can be
 * read so far, for predictive state. Parsed with `partial-json` (the parser CopilotKit's runtime
 * uses for the same job), which closes what is open: `{"document": "Dear Al` reads as
 * `{ document: "Dear Al" }`. Rejected: our own reader of one string member, which would have to
 * get every JSON escape right mid-sequence (`\u00`, a `\` at the end of a fragment) again.
 *
 * Numbers are read only once complete (`12` may still become `123`), and NaN/Infinity, which
 * partial-json accepts and JSON does not, are refused.
 */
import { Allow, parse } from "partial-json";
import { UNSTORABLE_TEXT } from "../store/storable-text.ts";

const PARTIAL = Allow.STR | Allow.ARR | Allow.OBJ | Allow.NULL | Allow.BOOL;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The members readable in `text` so far, or undefined when nothing is (not an object yet, malformed). */
export function partialArguments(text: string): Record<string, unknown> | undefined {
  if (text.trim() === "") return undefined;
  try {
    const value: unknown = parse(text, PARTIAL);
    return isPlainObject(value) ? value : undefined;
  } catch {
    // Malformed so far, or nested past the parser's stack: nothing to predict from yet.
    return undefined;
  }
}

/** The complete arguments, or undefined when they are not a JSON object. */
export function completeArguments(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether `value` is JSON that the log can store: finite numbers, text Postgres accepts. A
 * predicted value that is not is skipped (the next one, or the complete arguments, will be):
 * appending it would fail the run for a preview. The walk is iterative: the value may be as deep
 * as the model made it.
 *
 * Text with NUL or a lone UTF-16 surrogate (store/storable-text.ts) is not storable: a string cut
 * between the two halves of a `\uD83D\uDE00` escape ends in a lone one. Skipped rather than
 * replaced: the complete arguments carry the whole pair a moment later.
 */
export function isStorable(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") {
      if (UNSTORABLE_TEXT.test(v)) return false;
    } else if (typeof v === "number") {
      if (!Number.isFinite(v)) return false;
    } else if (Array.isArray(v)) {
      for (const x of v) stack.push(x); // not push(...v): a long array would overflow the arguments
    } else if (isPlainObject(v)) {
      for (const [k, x] of Object.entries(v)) {
        if (UNSTORABLE_TEXT.test(k)) return false;
        stack.push(x);
      }
    } else if (v !== null && typeof v !== "boolean") {
      return false;
    }
  }
  return true;
}
