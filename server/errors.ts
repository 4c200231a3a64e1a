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
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly details: Record<string, unknown> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** One reason a request was refused, with the field it is about. */
export interface Issue {
  path: string;
  message: string;
  [extra: string]: unknown;
}

/** The request is malformed: 400, with each reason in `issues`. */
export class InvalidRequestError extends ThreadlineError {
  override readonly name: string = "InvalidRequestError";
  constructor(code: string, message: string, issues?: Issue[], status = 400) {
    super(code, status, message, issues ? { issues } : {});
  }
}

export class NotFoundError extends ThreadlineError {
  override readonly name: string = "NotFoundError";
  constructor(code: string, message: string, details?: Record<string, unknown>) {
    super(code, 404, message, details);
  }
}

export class ConflictError extends ThreadlineError {
  override readonly name: string = "ConflictError";
  constructor(code: string, message: string, details?: Record<string, unknown>) {
    super(code, 409, message, details);
  }
}

export class ForbiddenError extends ThreadlineError {
  override readonly name: string = "ForbiddenError";
  constructor(code: string, message: string, details?: Record<string, unknown>) {
    super(code, 403, message, details);
  }
}

export class UnsupportedMediaTypeError extends ThreadlineError {
  override readonly name: string = "UnsupportedMediaTypeError";
  constructor(code: string, message: string) {
    super(code, 415, message);
  }
}
