/**
 * Input limits: one check of a parsed request body (and query) against explicit bounds, run
 * before zod and before any store access, on every /api route.
 *
 * The walk is iterative (an explicit stack), never recursive: a body of a few KB nested some
 * thousands deep is legal JSON that JSON.parse accepts, and every recursive consumer after it
 * (zod, JSON.stringify in the writer) would overflow the stack. Checking depth with recursion
 * would only move the crash here.
 *
 * Postgres-unsafe text is rejected, not normalised: NUL (U+0000) and lone UTF-16 surrogates are
 * refused by jsonb and text columns, and silently replacing them would store something other
 * than what the client sent (a message id or a tool argument changed behind its back). Text the
 * server produces itself (a model's output, a tool's) is normalised instead, by the same
 * definition of unstorable (store/storable-text.ts).
 */
import type { RequestHandler } from "express";
import { InvalidRequestError, type Issue } from "../errors.ts";
import { UNSTORABLE_TEXT } from "../store/storable-text.ts";

export interface InputLimits {
  /** Nesting of objects and arrays; the body itself is depth 1. */
  maxDepth: number;
  /** UTF-8 bytes of one string, values and object keys alike. */
  maxStringBytes: number;
  /** Elements of one array. */
  maxArrayLength: number;
  /** Keys of one object. */
  maxObjectKeys: number;
}

export const DEFAULT_INPUT_LIMITS: InputLimits = {
  maxDepth: 64,
  maxStringBytes: 1024 * 1024,
  maxArrayLength: 10_000,
  maxObjectKeys: 1_000,
};

export type LimitName = "MAX_JSON_DEPTH" | "MAX_STRING_BYTES" | "MAX_ARRAY_LENGTH" | "MAX_OBJECT_KEYS" | "UNSAFE_TEXT";

export interface LimitIssue extends Issue {
  /** RFC 6901 JSON pointer of the offending value ("" is the whole body). */
  path: string;
  limit: LimitName;
  /** The bound that was exceeded (absent for UNSAFE_TEXT). */
  max?: number;
}

/** Enough to fix a request; a body with a million bad strings does not get a million lines. */
export const MAX_REPORTED_ISSUES = 20;

/** RFC 6901: "~" becomes "~0" and "/" becomes "~1", in that order. */
export function pointerToken(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** Why Postgres would refuse this text, or null when it would store it. */
export function unsafeTextReason(s: string): string | null {
  const m = UNSTORABLE_TEXT.exec(s);
  if (!m) return null;
  return m[0] === "\u0000"
    ? "contains a NUL character (U+0000), which Postgres cannot store; remove it or escape it in your own encoding"
    : "contains a lone UTF-16 surrogate (an unpaired \\uD800-\\uDFFF escape), which is not valid Unicode; send well-formed text";
}

/** UTF-8 length without encoding when the answer is already certain (1 to 3 bytes per unit). */
function exceedsBytes(s: string, max: number): boolean {
  if (s.length > max) return true;
  if (s.length * 3 <= max) return false;
  return Buffer.byteLength(s, "utf8") > max;
}

interface Node {
  value: unknown;
  parent: Node | null;
  key: string;
  depth: number;
}

function pointerOf(node: Node | null, key?: string): string {
  const parts: string[] = key === undefined ? [] : [pointerToken(key)];
  for (let n = node; n?.parent; n = n.parent) parts.push(pointerToken(n.key));
  return parts.length === 0 ? "" : `/${parts.reverse().join("/")}`;
}

/**
 * Every breach of `limits` in `value`, as JSON pointers, at most MAX_REPORTED_ISSUES. A container
 * that is too deep or too long is reported once and not entered.
 */
export function checkInput(value: unknown, limits: InputLimits): LimitIssue[] {
  const issues: LimitIssue[] = [];
  const stack: Node[] = [{ value, parent: null, key: "", depth: 1 }];
  const full = () => issues.length >= MAX_REPORTED_ISSUES;

  const checkString = (s: string, at: () => string, what: string) => {
    if (exceedsBytes(s, limits.maxStringBytes)) {
      issues.push({ path: at(), limit: "MAX_STRING_BYTES", max: limits.maxStringBytes, message: `${what} is longer than ${limits.maxStringBytes} bytes (UTF-8)` });
    }
    const unsafe = unsafeTextReason(s);
    if (unsafe) issues.push({ path: at(), limit: "UNSAFE_TEXT", message: `${what} ${unsafe}` });
  };

  while (stack.length > 0 && !full()) {
    const node = stack.pop()!;
    const v = node.value;
    if (typeof v === "string") {
      checkString(v, () => pointerOf(node), "the string");
      continue;
    }
    if (typeof v !== "object" || v === null) continue;
    if (node.depth > limits.maxDepth) {
      issues.push({ path: pointerOf(node), limit: "MAX_JSON_DEPTH", max: limits.maxDepth, message: `nested deeper than ${limits.maxDepth} levels of objects and arrays` });
      continue;
    }
    if (Array.isArray(v)) {
      if (v.length > limits.maxArrayLength) {
        issues.push({ path: pointerOf(node), limit: "MAX_ARRAY_LENGTH", max: limits.maxArrayLength, message: `has ${v.length} elements, more than ${limits.maxArrayLength}` });
        continue;
      }
      // Pushed in reverse so that issues come out in document order.
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], parent: node, key: String(i), depth: node.depth + 1 });
      continue;
    }
    const keys = Object.keys(v);
    if (keys.length > limits.maxObjectKeys) {
      issues.push({ path: pointerOf(node), limit: "MAX_OBJECT_KEYS", max: limits.maxObjectKeys, message: `has ${keys.length} keys, more than ${limits.maxObjectKeys}` });
      continue;
    }
    for (const k of keys) checkString(k, () => pointerOf(node, k), "the key");
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!;
      stack.push({ value: (v as Record<string, unknown>)[k], parent: node, key: k, depth: node.depth + 1 });
    }
  }
  return issues.slice(0, MAX_REPORTED_ISSUES);
}

/** 400 INPUT_LIMIT_EXCEEDED naming each breach; the status is 413 when only sizes were broken. */
export class InputLimitError extends InvalidRequestError {
  override readonly name = "InputLimitError";
  constructor(issues: LimitIssue[]) {
    const size = issues.every((i) => i.limit === "MAX_STRING_BYTES" || i.limit === "MAX_ARRAY_LENGTH" || i.limit === "MAX_OBJECT_KEYS");
    const unsafe = issues.some((i) => i.limit === "UNSAFE_TEXT");
    super(
      unsafe && issues.every((i) => i.limit === "UNSAFE_TEXT") ? "UNSAFE_TEXT" : "INPUT_LIMIT_EXCEEDED",
      "The request breaks this server's input limits; fix the fields listed in `issues` (each names a JSON pointer and the limit). Limits are described in the README under \"Input limits\".",
      issues,
      size ? 413 : 400,
    );
  }
}

/**
 * Checks `req.body` (when a JSON body was parsed) and the query string. Query values are named
 * `query <name>`, as header problems are named `header <name>` elsewhere.
 */
export function enforceInputLimits(limits: InputLimits): RequestHandler {
  return (req, _res, next) => {
    const issues: LimitIssue[] = [];
    if (req.body !== undefined) issues.push(...checkInput(req.body, limits));
    const query = req.query as unknown;
    if (query && typeof query === "object" && Object.keys(query).length > 0) {
      for (const i of checkInput(query, limits)) {
        const [, name = "", ...rest] = i.path.split("/");
        issues.push({ ...i, path: `query ${name}${rest.length ? `/${rest.join("/")}` : ""}` });
      }
    }
    if (issues.length > 0) return next(new InputLimitError(issues.slice(0, MAX_REPORTED_ISSUES)));
    next();
  };
}
