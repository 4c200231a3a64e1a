/**
 * One JSON error shape for every 4xx/5xx: `{ error: { code, message, issues? } }`. The message
 * is a sentence for a person, saying what to do next; `issues` lists each reason with its path.
 */
import type { ErrorRequestHandler, Response } from "express";

export interface Issue {
  path: string;
  message: string;
}

export function sendError(res: Response, status: number, code: string, message: string, extra: Record<string, unknown> = {}): void {
  res.status(status).json({ error: { code, message, ...extra } });
}

export function zodIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): Issue[] {
  return issues.map((i) => ({ path: i.path.map(String).join(".") || "(root)", message: i.message }));
}

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  limit?: number;
}

/** Turns body-parser's errors into our shape; anything else is a 500 that hides internals. */
export function errorHandler(log: { error: (obj: object, msg: string) => void }): ErrorRequestHandler {
  return (err: BodyParserError, _req, res, next) => {
    if (res.headersSent) return next(err);
    if (err.type === "entity.too.large") {
      return sendError(res, 413, "PAYLOAD_TOO_LARGE", `The request body is larger than the ${err.limit ?? "allowed"} bytes this server accepts. Send fewer or smaller messages (attachments by URL rather than inline).`);
    }
    if (err.type === "entity.parse.failed") {
      return sendError(res, 400, "INVALID_JSON", `The request body is not valid JSON: ${err.message}. Send one JSON object.`);
    }
    if (err.type === "encoding.unsupported" || err.type === "charset.unsupported") {
      return sendError(res, 415, "UNSUPPORTED_ENCODING", `${err.message}. Send UTF-8 JSON.`);
    }
    log.error({ err }, "unhandled error in a request");
    return sendError(res, 500, "INTERNAL_ERROR", "The server failed on this request. It has been logged; try again, and report it if it persists.");
  };
}
