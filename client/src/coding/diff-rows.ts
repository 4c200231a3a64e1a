/**
 * Unified diffs as rows to draw, with jsdiff (`diff`): the artifact event's diff when the server
 * sent one (live, or read from the log after a reload: logged-outputs.ts), else a diff of the edit
 * call's own old_string → new_string (line numbers relative to the fragment).
 */
import { parsePatch, structuredPatch, type StructuredPatchHunk } from "diff";

export interface DiffRow {
  kind: "hunk" | "add" | "del" | "ctx";
  text: string;
  /** Line numbers in the old and new file; null where the row has none. */
  oldNo: number | null;
  newNo: number | null;
}

function rowsOf(hunks: readonly StructuredPatchHunk[]): DiffRow[] {
  const rows: DiffRow[] = [];
  for (const h of hunks) {
    rows.push({ kind: "hunk", text: `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, oldNo: null, newNo: null });
    let oldNo = h.oldStart;
    let newNo = h.newStart;
    for (const line of h.lines) {
      const mark = line[0];
      const text = line.slice(1);
      if (mark === "+") rows.push({ kind: "add", text, oldNo: null, newNo: newNo++ });
      else if (mark === "-") rows.push({ kind: "del", text, oldNo: oldNo++, newNo: null });
      else if (mark === " ") rows.push({ kind: "ctx", text, oldNo: oldNo++, newNo: newNo++ });
      // "\ No newline at end of file": nothing to draw
    }
  }
  return rows;
}

/** The rows of a unified diff text (one file); [] when it has no hunk. */
export function rowsFromUnified(unified: string): DiffRow[] {
  try {
    return parsePatch(unified).flatMap((p) => rowsOf(p.hunks));
  } catch {
    return [];
  }
}

/** The rows of the change from one text to another (line numbers relative to the fragment). */
export function rowsFromEdit(path: string, before: string, after: string): DiffRow[] {
  const patch = structuredPatch(path, path, withNewline(before), withNewline(after), undefined, undefined, { context: 2 });
  return rowsOf(patch.hunks);
}

function withNewline(s: string): string {
  return s === "" || s.endsWith("\n") ? s : `${s}\n`;
}

export function countChanges(rows: readonly DiffRow[]): { added: number; removed: number } {
  return { added: rows.filter((r) => r.kind === "add").length, removed: rows.filter((r) => r.kind === "del").length };
}
