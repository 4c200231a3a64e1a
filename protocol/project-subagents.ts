/**
 * Subagent runs as frames (protocol/subagent-events.ts has the log's side).
 *
 * - 1.0 runs: subagent.started -> SUBAGENT_STARTED {subagentRunId, name, description?,
 *   parentSubagentRunId? (a child's child), parentToolCallId, parentMessageId?}; subagent.ended
 *   -> SUBAGENT_FINISHED {outcome success | suspended{interruptIds}} or SUBAGENT_ERROR {message,
 *   code}; every frame of the child's events carries `subagentRunId` (attribute()). A child still
 *   open when its run ends (a crash settled by recovery, a run error) is closed with SUBAGENT_ERROR
 *   before the run's terminal frame: both clients refuse RUN_FINISHED with a subagent open.
 * - legacy runs: the same frame, one for one, as CUSTOM `threadline:subagent` {type, ...fields},
 *   and no `subagentRunId` anywhere (messages neither: frames.ts wireMessage). A client that
 *   speaks no 1.0 (CopilotKit 1.74/1.75 on 0.0.59) shows the child's messages inline, as the 1.0
 *   client's own compatibility middleware does for a peer of 0.0.57 and before. Rejected: dropping
 *   the frames, which would give the two levels different frame counts for one stored event, and
 *   frame ids must mean one position whatever a stream speaks (versions.ts).
 * - a start for a child already open in the run (its task began again after a recovery): the
 *   CUSTOM form in both levels, since 1.0 refuses a second SUBAGENT_STARTED for an active id.
 */
import { EventType, type AGUIEvent } from "@ag-ui/core";
import type { EventOf } from "./events.ts";
import type { RunScope } from "./project-scope.ts";

/** The CUSTOM name of a subagent frame in legacy runs. */
export const SUBAGENT_CUSTOM_EVENT = "threadline:subagent";

/** Frames that never carry `subagentRunId` (AG-UI 1.0: RUN_*, MESSAGES_SNAPSHOT, SUBAGENT_* have their own). */
const UNATTRIBUTED: ReadonlySet<string> = new Set([
  EventType.RUN_STARTED,
  EventType.RUN_FINISHED,
  EventType.RUN_ERROR,
  EventType.MESSAGES_SNAPSHOT,
  EventType.SUBAGENT_STARTED,
  EventType.SUBAGENT_FINISHED,
  EventType.SUBAGENT_ERROR,
]);

/** Marks the frames `out[from..]` as the child's work (1.0 only). */
export function attribute(out: AGUIEvent[], from: number, subagentRunId: string): void {
  for (let i = from; i < out.length; i++) {
    const ev = out[i]!;
    if (!UNATTRIBUTED.has(ev.type)) out[i] = { ...ev, subagentRunId } as AGUIEvent;
  }
}

function inLevel(s: RunScope, ev: AGUIEvent): AGUIEvent {
  if (s.level === "1.0") return ev;
  const { type, ...fields } = ev;
  return { type: EventType.CUSTOM, name: SUBAGENT_CUSTOM_EVENT, value: { type, ...fields } };
}

export function subagentStarted(e: EventOf<"subagent.started">, s: RunScope, out: AGUIEvent[]): void {
  const { childRunId, name, description, parentToolCallId, parentMessageId, subagentRunId: parent } = e.data;
  const ev: AGUIEvent = {
    type: EventType.SUBAGENT_STARTED,
    subagentRunId: childRunId,
    name,
    ...(description !== undefined && { description }),
    ...(parent !== undefined && { parentSubagentRunId: parent }),
    ...(parentToolCallId !== undefined && { parentToolCallId }),
    ...(parentMessageId !== undefined && { parentMessageId }),
  } as AGUIEvent;
  if (!s.openSubagent(childRunId)) {
    const { type, ...fields } = ev;
    out.push({ type: EventType.CUSTOM, name: SUBAGENT_CUSTOM_EVENT, value: { type, ...fields, continued: true } });
    return;
  }
  out.push(inLevel(s, ev));
}

export function subagentEnded(e: EventOf<"subagent.ended">, s: RunScope, out: AGUIEvent[]): void {
  const { childRunId, outcome, interruptIds, error } = e.data;
  if (!s.closeSubagent(childRunId)) return;
  out.push(inLevel(s, endFrame(childRunId, outcome, interruptIds, error)));
}

function endFrame(
  subagentRunId: string,
  outcome: EventOf<"subagent.ended">["data"]["outcome"],
  interruptIds?: string[],
  error?: { code: string; message: string },
): AGUIEvent {
  if (outcome === "success") return { type: EventType.SUBAGENT_FINISHED, subagentRunId, outcome: { type: "success" } } as AGUIEvent;
  if (outcome === "suspended") {
    return { type: EventType.SUBAGENT_FINISHED, subagentRunId, outcome: { type: "suspended", ...(interruptIds?.length && { interruptIds }) } } as AGUIEvent;
  }
  const code = error?.code ?? (outcome === "cancelled" ? "CANCELLED" : "SUBAGENT_FAILED");
  return { type: EventType.SUBAGENT_ERROR, subagentRunId, message: error?.message ?? `The subagent run ${outcome === "cancelled" ? "was cancelled" : "failed"}.`, code } as AGUIEvent;
}

/** Closes the children still open before the run's terminal frame. */
export function closeSubagents(s: RunScope, out: AGUIEvent[]): void {
  for (const id of s.openSubagents()) {
    s.closeSubagent(id);
    out.push(inLevel(s, endFrame(id, "failed", undefined, { code: "RUN_ENDED", message: "The subagent's run ended with its parent's." })));
  }
}
