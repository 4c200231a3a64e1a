/**
 * Which AG-UI forms a stream speaks. Two levels:
 * - "legacy": only what both @ag-ui/client 1.0.0 and 0.0.59 accept (the form every client got
 *   before protocol versions were read): RUN_ERROR{code:"CANCELLED"} for a cancel, tool results
 *   as text, RUN_FINISHED without a success outcome, RUN_STARTED without protocolVersion.
 * - "1.0": 1.0's own forms: RUN_FINISHED{outcome:{type:"cancelled"}}, tool results as content
 *   parts, `{type:"success", pendingToolCallIds}` where frontend tool calls wait, and
 *   RUN_STARTED{protocolVersion:"1.0"}.
 *
 * A run speaks 1.0 only when the client that posted it declared a 1.x `protocolVersion` (kept in
 * its run.accepted) AND the client reading the stream declares one too: the poster's live stream
 * and any replay of it for a 1.x reader are then the same frames, and a reader that declares
 * nothing (0.0.59 rejects the cancelled outcome, pendingToolCallIds and content-part results)
 * never gets a 1.0 form, whoever posted the run. Rejected: the reader's declaration alone (a
 * replay would then re-speak a legacy run in forms its poster never saw, so the poster's cursor
 * and a 1.0 follower would disagree on what the run said) and the poster's alone (a 0.0.59 tab
 * following a 1.0 client's run would be sent frames it rejects).
 *
 * Every form yields the same number of frames per stored event as its legacy form, so frame ids
 * and cursors mean the same position whatever a stream speaks.
 */
export type ProtocolLevel = "legacy" | "1.0";

/** What RUN_STARTED.protocolVersion says in a 1.0 stream: the highest version this server speaks. */
export const SPOKEN_PROTOCOL_VERSION = "1.0";

/**
 * The longest `protocolVersion` a run may declare. Versions are "major.minor" (the 1.0 client's
 * own check); 32 characters leave room for a patch part and pre-release tags, and bound what
 * every run.accepted keeps.
 */
export const PROTOCOL_VERSION_MAX_CHARS = 32;

/** AG-UI's version syntax (the 1.0 client checks RUN_STARTED.protocolVersion against it). */
const VERSION = /^(\d+)\.(\d+)(?:\.\d+)?$/;

/**
 * The level a client's declared `protocolVersion` asks for: "1.0" for any 1.x ("1.0", "1.3",
 * "1.0.2"); "legacy" for none, 0.x, and a major this server does not know (2.x may not accept
 * 1.0's forms; the forms both 0.0.59 and 1.0 accept are the safe answer).
 */
export function levelOf(declared: string | undefined | null): ProtocolLevel {
  const m = declared ? VERSION.exec(declared.trim()) : null;
  return m && Number(m[1]) === 1 ? "1.0" : "legacy";
}

/** A run's level for one reader: 1.0 only when both the run's poster and the reader speak it. */
export function runLevel(posted: string | undefined, reader: ProtocolLevel): ProtocolLevel {
  return reader === "1.0" && levelOf(posted) === "1.0" ? "1.0" : "legacy";
}
