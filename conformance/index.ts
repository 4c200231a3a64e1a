/**
 * threadline/conformance: check any AG-UI server (a URL, or an Express app or http.Server driven
 * in process) against the protocol as both @ag-ui/client 1.0.0 and 0.0.59 read it.
 */
export { checkAgUiServer, CONFORMANCE_RULES, type CheckOptions } from "./check.ts";
export { formatReport } from "./report.ts";
export { KIT_PROMPTS, KIT_STATE, KIT_TOOL, KIT_TOOL_RESULT } from "./scenarios.ts";
export type { AgUiTarget, RequestListenerLike } from "./target.ts";
export { MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS } from "./http.ts";
export { FRAME_MAX_CHARS, type ConformanceReport, type Rule, type RuleStatus } from "./types.ts";
