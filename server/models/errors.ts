/**
 * Every failure of a model request leaves an adapter as a ModelError: a string code the engine
 * records (task.failed), whether trying again could help, and the SDK's own error as `cause`.
 * The engine never needs to know an SDK's error classes.
 */
export type ModelErrorCode =
  | `UPSTREAM_HTTP_${number}`
  | "UPSTREAM_CONNECT_TIMEOUT"
  | "UPSTREAM_TIMEOUT"
  | "UPSTREAM_UNREACHABLE"
  | "UPSTREAM_STREAM_BROKEN"
  | "UPSTREAM_ERROR"
  /** The model cannot be used as configured: a missing provider package or API key. */
  | "MODEL_UNAVAILABLE"
  | "ABORTED";

export class ModelError extends Error {
  override readonly name = "ModelError";
  /** The upstream HTTP status, for UPSTREAM_HTTP_* codes. */
  readonly status: number | undefined;
  /**
   * True when the same request may succeed later (429, 5xx, 408/409, timeouts, unreachable):
   * a caller with its own retry policy can act on it. False for the request's own faults (other
   * 4xx), for an abort, and for a stream broken after deltas went out (a retry would repeat them).
   */
  readonly retryable: boolean;
  /** MODEL_UNAVAILABLE for a missing key: the variable to set (ANTHROPIC_API_KEY...). */
  readonly setting: string | undefined;
  constructor(
    readonly code: ModelErrorCode,
    message: string,
    options: { cause?: unknown; status?: number; retryable?: boolean; setting?: string } = {},
  ) {
    super(message, { cause: options.cause });
    this.status = options.status;
    this.retryable = options.retryable ?? defaultRetryable(code, options.status);
    this.setting = options.setting;
  }
}

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

function defaultRetryable(code: ModelErrorCode, status: number | undefined): boolean {
  if (status !== undefined) return isRetryableStatus(status);
  return code === "UPSTREAM_CONNECT_TIMEOUT" || code === "UPSTREAM_TIMEOUT" || code === "UPSTREAM_UNREACHABLE";
}

/** `cause` message included: "fetch failed (connect ECONNREFUSED …)". */
export function causeText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  return err.cause instanceof Error ? `${err.message} (${err.cause.message})` : err.message;
}

/** An HTTP answer as a ModelError, with a hint saying what to check. */
export function httpError(status: number, detail: string, hints: Record<number, string>, cause: unknown): ModelError {
  const hint = hints[status] ?? (status >= 500 ? "the provider failed; try again" : "");
  return new ModelError(`UPSTREAM_HTTP_${status}`, `The model provider answered HTTP ${status} (${detail})${hint ? `: ${hint}` : ""}.`, {
    cause,
    status,
  });
}
