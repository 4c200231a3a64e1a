/**
 * Run ids in the log versus on the wire. A client names its run (RunAgentInput.runId) and that
 * id names one run for good, with one exception that CopilotKit's `useInterrupt` needs: its
 * `resolve()` sends the resume under the runId of the run that ended WAITING for the interrupts
 * (server/engine/admission.ts decides when that is allowed). The log must still tell the two
 * admissions apart (a run's tasks, its runs row, its terminal event, the projection's "ended"
 * set are all keyed by run id), so the resumed admission gets its own id in the log: the
 * client's id, ADMISSION_SEPARATOR, and the admission's number (2, 3, ...). The first admission
 * keeps the client's id as is, so every log written before this rule reads unchanged.
 *
 * The separator is a control character because server/http/ids.ts refuses those in every id a
 * client names: no client run id can ever equal an admission's id, in either direction.
 * Rejected: a visible suffix ("#resume-2"), which a client may legitimately pick for a run of its
 * own; and one id for both admissions in the log, which would make the second admission's
 * terminal event end the first run again for every reader of the log.
 *
 * Every frame a client gets names the wire id (wireRunId), so both admissions of a run open with
 * RUN_STARTED and end with RUN_FINISHED under the id the client sent.
 */

export const ADMISSION_SEPARATOR = "\u001f";

/** The log's id of the `admission`-th admission (1 = the first) of the client's run `runId`. */
export function admissionRunId(runId: string, admission: number): string {
  return admission <= 1 ? runId : `${runId}${ADMISSION_SEPARATOR}${admission}`;
}

/** The id the client named, for a run id as the log has it. */
export function wireRunId(logRunId: string): string {
  const at = logRunId.indexOf(ADMISSION_SEPARATOR);
  return at < 0 ? logRunId : logRunId.slice(0, at);
}

/** Which admission of its client run a log run id is (1 for the client's id as is). */
export function admissionOf(logRunId: string): number {
  const at = logRunId.indexOf(ADMISSION_SEPARATOR);
  if (at < 0) return 1;
  const n = Number(logRunId.slice(at + 1));
  return Number.isInteger(n) && n > 1 ? n : 1;
}
