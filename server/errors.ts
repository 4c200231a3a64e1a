/**
 * The error model every request path shares: a typed error with a stable `code` (clients branch
 * on it), the HTTP `status` it answers with, a message for a person that says what to do next,
 * and optional `details` that go into the JSON body next to them. The one Express error handler
 * (http/errors.ts) turns any of these into `{ error: { code, message, ...details } }`.
 *
 * Status lives on the error rather than in a table in the handler so that a new error cannot
 * be added without deciding what a client sees; errors of layers that know nothing of HTTP (the
 * store's) are mapped by code in the handler instead.
 */
export class ThreadlineError extends Error {
  readonly #message: ApiMessage;

  constructor(
    readonly code: string,
    readonly status: number,
    message: ApiMessage,
    readonly details: Record<string, unknown> = {},
    options?: ErrorOptions,
  ) {
    super(typeof message === "function" ? message(DEFAULT_API_BASE) : message, options);
    this.#message = message;
  }

  /** The message for a client of the routes mounted at `apiBase` (the router's req.baseUrl). */
  messageAt(apiBase: string): string {
    return typeof this.#message === "function" ? this.#message(apiBase) : this.#message;
  }
}

/** Where the standalone server mounts the router; the routes a message names are under it. */
export const DEFAULT_API_BASE = "/api";

/**
 * A message that names routes of the API, given where the router is mounted: the layers that
 * throw these errors (the engine) do not know the mount, and a hard-coded "/api" would send the
 * user of a router mounted at "/ai" to a path that does not exist.
 */
export type ApiMessage = string | ((apiBase: string) => string);

/** One reason a request was refused, with the field it is about. */
export interface Issue {
  path: string;
  message: string;
  [extra: string]: unknown;
}

/** The request is malformed: 400, with each reason in `issues` (and what else names the culprit in `details`). */
export class InvalidRequestError extends ThreadlineError {
  override readonly name: string = "InvalidRequestError";
  constructor(code: string, message: ApiMessage, issues?: Issue[], status = 400, details: Record<string, unknown> = {}) {
    super(code, status, message, { ...details, ...(issues && { issues }) });
  }
}

export class NotFoundError extends ThreadlineError {
  override readonly name: string = "NotFoundError";
  constructor(code: string, message: ApiMessage, details?: Record<string, unknown>) {
    super(code, 404, message, details);
  }
}

export class ConflictError extends ThreadlineError {
  override readonly name: string = "ConflictError";
  constructor(code: string, message: ApiMessage, details?: Record<string, unknown>) {
    super(code, 409, message, details);
  }
}

export class ForbiddenError extends ThreadlineError {
  override readonly name: string = "ForbiddenError";
  constructor(code: string, message: ApiMessage, details?: Record<string, unknown>) {
    super(code, 403, message, details);
  }
}

export class UnsupportedMediaTypeError extends ThreadlineError {
  override readonly name: string = "UnsupportedMediaTypeError";
  constructor(code: string, message: ApiMessage) {
    super(code, 415, message);
  }
}

/** 503: the server cannot take this now; `retryAfterSeconds` becomes the Retry-After header. */
export class ServiceUnavailableError extends ThreadlineError {
  override readonly name: string = "ServiceUnavailableError";
  constructor(
    code: string,
    message: ApiMessage,
    readonly retryAfterSeconds: number,
  ) {
    super(code, 503, message);
  }
}
