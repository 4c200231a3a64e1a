/**
 * What checkAgUiServer reports. A rule is one sentence about the server that either held on
 * every run the kit made (passed), was broken by a frame (failed), or could not be decided
 * against this server (unsupported: an optional feature it lacks, or a model that never did
 * what the probe needed, so the check is inconclusive rather than failed).
 */

export type RuleStatus = "passed" | "failed" | "unsupported";

export interface Rule {
  /** Stable id, e.g. `lifecycle`; the command line prints it and tests match on it. */
  name: string;
  /** The rule in one sentence. */
  title: string;
  status: RuleStatus;
  /** Why it passed, what broke it, or why it could not be decided. */
  detail: string;
  /** For a failure: the SSE block (as sent, cut to FRAME_MAX_CHARS) that broke the rule. */
  frame?: string;
  /** For a failure: which of the kit's requests it happened in (chat, multi-turn, …). */
  scenario?: string;
}

export interface ConformanceReport {
  passed: Rule[];
  failed: Rule[];
  unsupported: Rule[];
  /** The threads the kit's runs created on the server (their ids start with `agui-conformance-`). */
  threads: string[];
  /** With CheckOptions.deleteThread: which of them were deleted after the check, and which not. */
  cleanup?: { deleted: string[]; failed: { threadId: string; error: string }[] };
}

/** A frame quoted in a report is cut here: enough to see the event, not a whole snapshot. */
export const FRAME_MAX_CHARS = 400;

export function quoteFrame(raw: string): string {
  return raw.length <= FRAME_MAX_CHARS ? raw : `${raw.slice(0, FRAME_MAX_CHARS)}… (${raw.length} chars)`;
}

/** One rule's outcome before it is sorted into the report. */
export type Verdict = Omit<Rule, "name" | "title">;

export const pass = (detail: string): Verdict => ({ status: "passed", detail });
export const unsupported = (detail: string): Verdict => ({ status: "unsupported", detail });
export function fail(detail: string, at?: { frame?: string; scenario?: string }): Verdict {
  return {
    status: "failed",
    detail,
    ...(at?.frame !== undefined && { frame: quoteFrame(at.frame) }),
    ...(at?.scenario !== undefined && { scenario: at.scenario }),
  };
}
