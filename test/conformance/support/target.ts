/**
 * Where the kit points: our own server (started per backend, with an aimock upstream) or, when
 * AGUI_URL is set, any AG-UI run endpoint. Against a foreign URL only the checks that need no
 * fixtures, store or server internals of ours run; every other suite is skipped with a notice on
 * stderr that says what was skipped and why.
 *
 *   AGUI_URL=http://host/path          the run endpoint (POST RunAgentInput, SSE out)
 *   AGUI_HEADERS='{"Authorization":"Bearer x"}'   extra request headers (JSON object), optional
 */

export const REMOTE_URL: string | undefined = process.env.AGUI_URL?.trim() || undefined;
export const IS_REMOTE = REMOTE_URL !== undefined;

function parseHeaders(raw: string | undefined): Record<string, string> {
  if (!raw) return {};
  const parsed: unknown = JSON.parse(raw);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new Error("AGUI_HEADERS must be a JSON object of header names to values");
  }
  return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
}

/** Headers every request to the target carries (AGUI_HEADERS; none against our own server). */
export const TARGET_HEADERS: Record<string, string> = parseHeaders(process.env.AGUI_HEADERS);

/** Splits a URL into what supertest wants: the origin and the path (with its query). */
export function splitUrl(url: string): { origin: string; path: string } {
  const u = new URL(url);
  return { origin: u.origin, path: `${u.pathname}${u.search}` };
}

/**
 * Prints (once per suite) that a suite does not run against AGUI_URL. Printed while the file is
 * collected, so it shows up even though the suite's tests only appear as "skipped".
 */
export function noticeSkipped(suite: string, reason: string): void {
  process.stderr.write(`[conformance] AGUI_URL=${REMOTE_URL}: SKIPPED "${suite}" (${reason})\n`);
}
