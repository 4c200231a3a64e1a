/**
 * What a tool card calls a call: a person's word for the tool (a few named here, any other one's
 * name spelt out: "schedule_meeting" → "Schedule meeting") and a one-line summary of its
 * arguments (the text values, and how many of each list), so the raw JSON can wait behind a
 * disclosure. Rejected: a summary per tool, which every new tool would need before its card read
 * well; the one rule gives any tool a line, and the table only renames.
 */

const LABELS: Record<string, string> = {
  run_plan: "Plan",
  update_tasks: "Task list",
  change_background: "Background",
  confirm_action: "Confirmation",
  send_email: "Email",
  updateWorkingMemory: "Recipe",
};

/** The tool's name as words: snake_case and camelCase alike, first letter capital. */
export function toolLabel(name: string): string {
  const known = LABELS[name];
  if (known) return known;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_\-.]+/g, " ")
    .trim()
    .toLowerCase();
  return words ? words[0]!.toUpperCase() + words.slice(1) : name;
}

/** Longest piece of one value in the summary, and of the whole line (characters). */
const PIECE_MAX = 48;
const LINE_MAX = 120;

function cut(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}

function piece(key: string, value: unknown): string | null {
  if (typeof value === "string") return value.trim() ? cut(value, PIECE_MAX) : null;
  if (typeof value === "number" || typeof value === "boolean") return `${key} ${String(value)}`;
  if (Array.isArray(value)) return `${value.length} ${value.length === 1 ? key.replace(/s$/, "") : key}`;
  return null;
}

/** One line from the call's arguments; null when they say nothing in words (none, or only objects). */
export function toolSummary(args: unknown): string | null {
  if (!args || typeof args !== "object" || Array.isArray(args)) return null;
  const pieces = Object.entries(args as Record<string, unknown>)
    .map(([k, v]) => piece(k, v))
    .filter((p): p is string => p !== null);
  return pieces.length ? cut(pieces.join(" · "), LINE_MAX) : null;
}
