/**
 * Request ids: the name an operator greps for. Every HTTP request carries one (the client's
 * `X-Request-Id` when it is one of these, else a fresh UUID); the run a request started keeps it
 * in its run.accepted, so the run's log lines and its RUN_ERROR carry it too, on whichever
 * instance the run ends.
 *
 * Bounded, because a client chooses it and it lands in every log line and in the event log:
 * 128 characters of letters, digits and `._:-` (UUIDs, ULIDs, W3C trace ids, `<service>-<n>`).
 * Rejected: accepting any header value, which would let a caller write newlines or a megabyte
 * into every log line of a run.
 */
import { z } from "zod";

export const REQUEST_ID_MAX_CHARS = 128;

export const RequestIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._:-]+$/, "letters, digits and . _ : - only")
  .min(1)
  .max(REQUEST_ID_MAX_CHARS);

/** True when `value` may be used as a request id as it is. */
export function isRequestId(value: unknown): value is string {
  return RequestIdSchema.safeParse(value).success;
}
