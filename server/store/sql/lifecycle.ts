/**
 * The lifecycle rules of protocol/lifecycle.ts as SQL fragments, rendered from its constants so
 * that the database applies the very lists the planner does. Rejected: literal lists in each
 * statement, which drifted from the protocol's (a status added there would not be here).
 */
import {
  ACTIVE_STATUSES,
  CANCEL_STATUSES,
  cancelAppliesFrom,
  SETTLED_RUN_STATUSES,
  SETTLED_STATUSES,
  type CancelStatus,
} from "../../../protocol/lifecycle.ts";

/**
 * `('A', 'B')`: a list of text literals for `in`. The values are the protocol's own constants;
 * anything but a plain identifier is refused rather than escaped, since none should ever reach it.
 */
export function sqlTextList(values: readonly string[]): string {
  if (values.length === 0) throw new Error("sqlTextList: an empty list has no SQL `in (...)` form; check the constants");
  for (const v of values) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(v)) throw new Error(`sqlTextList: "${v}" is not a plain identifier`);
  }
  return `(${values.map((v) => `'${v}'`).join(", ")})`;
}

/** threads.status of a thread whose run lives (recovery claims these). */
export const ACTIVE_THREAD_STATUSES_SQL = sqlTextList(ACTIVE_STATUSES);

/** runs.status of a run that streams nothing more (retention compacts these). */
export const SETTLED_RUN_STATUSES_SQL = sqlTextList(SETTLED_RUN_STATUSES);

/**
 * Over `c` (the batch's planned row: status, cancel_guard) and `t` (the thread row as locked):
 * true when the batch's status is a guarded cancel that no longer applies (cancelApplies), so
 * the row keeps its status and active run.
 */
export function ignoredCancelSql(c: string, t: string): string {
  const arms = CANCEL_STATUSES.map((k: CancelStatus) => `${c}.status = '${k}' and ${t}.status not in ${sqlTextList(cancelAppliesFrom(k))}`);
  return `(${c}.cancel_guard and (${arms.join("\n  or ")}))`;
}

/** True when the batch leaves the thread settled (and so frees its lease). */
export function settlesSql(c: string, t: string): string {
  return `(${c}.status in ${sqlTextList(SETTLED_STATUSES)} and not ${ignoredCancelSql(c, t)})`;
}
