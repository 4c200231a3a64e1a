/**
 * One JSON error shape for every 4xx/5xx: `{ error: { code, message, issues?, ... } }`. The
 * message is a sentence for a person, saying what to do next; `issues` lists each reason with
 * its path. One Express error handler (errorHandler) produces it for every route, the CopilotKit
 * mount included, from the error model of server/errors.ts.
 */
import type { ErrorRequestHandler, Response } from "express";
import type { Logger } from "pino";
import { DEFAULT_API_BASE, ServiceUnavailableError, ThreadlineError, type Issue } from "../errors.ts";
import { StoreError, type StoreErrorCode } from "../store/errors.ts";
import { requestLogger } from "./request-context.ts";

export type { Issue } from "../errors.ts";

export function sendError(res: Response, status: number, code: string, message: string, extra: Record<string, unknown> = {}): void {
  res.status(status).json({ error: { code, message, ...extra } });
}

export function zodIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): Issue[] {
  return issues.map((i) => ({ path: i.path.map(String).join(".") || "(root)", message: i.message }));
}

/**
 * Retry-After of a 503 the database caused: about the pool-acquire bound (DB_CONNECT_TIMEOUT_MS,
 * 5 s by default), the time a request waits for the database before giving up. Rejected: 1 s,
 * which during an outage only multiplies the requests that each wait that bound; and longer, which
 * keeps clients away past a database restart (a few seconds).
 */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * The store knows nothing of HTTP, so its errors are mapped here, by code. Faults of the
 * database (not of the request) are 503: the client may retry; a request never makes them.
 */
const STORE_STATUS: Record<StoreErrorCode, number> = {
  INVALID_CURSOR: 400,
  THREAD_NOT_FOUND: 404,
  // Another tenant's thread answers as a missing one: nobody learns whose it is.
  THREAD_NOT_OWNED: 404,
  // Refused admissions are retried by the engine; one that escapes means the thread is contended.
  ADMISSION_REFUSED: 409,
  LEASE_LOST: 409,
  STORE_NOT_READY: 503,
  SCHEMA_TOO_NEW: 503,
  DATABASE_UNAVAILABLE: 503,
  DATA_DIR_UNUSABLE: 503,
  DATA_DIR_IN_USE: 503,
  STORE_CLOSED: 503,
  APPEND_FAILED: 503,
  COMMIT_OUTCOME_UNKNOWN: 503,
};

function storeMessage(err: StoreError): string {
  if (err.code === "THREAD_NOT_FOUND") return `There is no thread "${(err as StoreError & { threadId: string }).threadId}". A thread is created by its first run.`;
  if (err.code === "THREAD_NOT_OWNED") {
    return `There is no thread "${(err as StoreError & { threadId: string }).threadId}" for this API key, and its id is taken: start the conversation with another threadId.`;
  }
  if (err.code === "DATABASE_UNAVAILABLE") {
    return `${err.message} Try again after the Retry-After delay; GET /readyz says when the database answers again.`;
  }
  // Not ready (its schema missing, not migrated, or another release's): the reason, as /readyz gives it.
  if (err.code === "STORE_NOT_READY" || err.code === "SCHEMA_TOO_NEW") return `${err.message.replace(/\.$/, "")}. GET /readyz says when the server is ready again.`;
  if (STORE_STATUS[err.code] === 503) return "The database could not complete this request. Try again in a few seconds; GET /readyz says when the server is ready.";
  return err.message;
}

/** What body-parser and Express attach to the errors they throw for a bad request. */
interface HttpishError {
  type?: string;
  status?: number;
  statusCode?: number;
  limit?: number;
  message?: string;
}

const BODY_PARSER: Record<string, { status: number; code: string; advice: string }> = {
  "entity.too.large": { status: 413, code: "PAYLOAD_TOO_LARGE", advice: "Send fewer or smaller messages (attachments by URL rather than inline); the limit is MAX_BODY_BYTES." },
  "entity.parse.failed": { status: 400, code: "INVALID_JSON", advice: "Send one JSON object." },
  "encoding.unsupported": { status: 415, code: "UNSUPPORTED_ENCODING", advice: "Send the body uncompressed or with Content-Encoding gzip, deflate or br." },
  "charset.unsupported": { status: 415, code: "UNSUPPORTED_ENCODING", advice: "Send UTF-8 JSON (`Content-Type: application/json; charset=utf-8`)." },
  "request.aborted": { status: 400, code: "REQUEST_ABORTED", advice: "Send the whole body." },
  "request.size.invalid": { status: 400, code: "INVALID_CONTENT_LENGTH", advice: "Send a Content-Length that matches the body, or none." },
};

function statusOf(err: HttpishError): number | undefined {
  const s = err.status ?? err.statusCode;
  return typeof s === "number" && Number.isInteger(s) ? s : undefined;
}

/**
 * Maps every error a route or middleware passes on: the error model's own, the store's by code,
 * body-parser's by type, and any other error carrying a 4xx status (Express's router throws one
 * for a path like `%zz` it cannot decode). Everything else is a 500 that is logged and hides
 * internals. After the first byte of a stream there is no status left to send: the error is
 * logged and the connection closed, so the client sees a broken stream rather than a clean end.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const log = requestLogger(res, logger);
    if (res.headersSent) {
      log.error({ err, method: req.method, path: req.path }, "error after the response started; closing the connection");
      req.socket.destroy();
      return;
    }
    const known = describeError(err, req.baseUrl);
    if (known) {
      if (known.retryAfterSeconds !== undefined) res.setHeader("Retry-After", String(known.retryAfterSeconds));
      if (known.status >= 500) log.error({ err, method: req.method, path: req.path }, "a database fault answered a request");
      return sendError(res, known.status, known.code, known.message, known.details);
    }
    log.error({ err, method: req.method, path: req.path }, "unhandled error in a request");
    return sendError(res, 500, "INTERNAL_ERROR", "The server failed on this request. It has been logged; try again, and report it if it persists.");
  };
}

export interface DescribedError {
  status: number;
  code: string;
  message: string;
  details: Record<string, unknown>;
  /** for a 503: when to try again (the Retry-After header) */
  retryAfterSeconds?: number;
}

/**
 * What a client is told about an error: the error model's own, the store's by code, body-parser's
 * by type, any other error carrying a 4xx status; undefined for an unexpected one (a 500 that
 * hides internals). Shared by the error handler and by streams that refuse inside an event (the
 * CopilotKit runner's RUN_ERROR), so a refusal reads the same whichever door it came through.
 */
export function describeError(err: unknown, apiBase: string = DEFAULT_API_BASE): DescribedError | undefined {
  if (err instanceof ServiceUnavailableError) {
    return { status: err.status, code: err.code, message: err.messageAt(apiBase), details: err.details, retryAfterSeconds: err.retryAfterSeconds };
  }
  if (err instanceof ThreadlineError) return { status: err.status, code: err.code, message: err.messageAt(apiBase), details: err.details };
  if (err instanceof StoreError) {
    // Another tenant's thread answers exactly as a missing one.
    const code = err.code === "THREAD_NOT_OWNED" ? "THREAD_NOT_FOUND" : err.code;
    const status = STORE_STATUS[err.code];
    return { status, code, message: storeMessage(err), details: {}, ...(status === 503 && { retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS }) };
  }
  const e = (typeof err === "object" && err !== null ? err : {}) as HttpishError;
  const known = e.type !== undefined ? BODY_PARSER[e.type] : undefined;
  if (known) {
    const detail = e.type === "entity.too.large" ? `The request body is larger than the ${e.limit ?? "allowed"} bytes this server accepts` : e.message;
    return { status: known.status, code: known.code, message: `${detail}. ${known.advice}`, details: {} };
  }
  const status = statusOf(e);
  if (status !== undefined && status >= 400 && status < 500) {
    return { status, code: status === 400 ? "BAD_REQUEST" : `HTTP_${status}`, message: `${e.message ?? "Bad request"}. Check the URL (percent-encode ids), headers and body.`, details: {} };
  }
  return undefined;
}
