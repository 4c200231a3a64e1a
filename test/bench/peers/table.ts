/**
 * The table printer: rows are metrics, columns the systems, then for each Threadline system its
 * figure divided by the floor's and by the best peer's, then the goal and whether Threadline on
 * Postgres meets it. Markdown, so the output pastes into docs/performance.md as it is.
 */
import type { MetricDef } from "./metrics.ts";
import type { System } from "./systems.ts";

export type Results = Map<string, Map<string, number>>;

const COUNTS = new Set(["runs", "count", "tokens"]);

function fmt(v: number | undefined, unit = ""): string {
  if (v === undefined || Number.isNaN(v)) return "—";
  if (unit === "%") return `${v.toFixed(v === 100 || v === 0 ? 0 : 1)} %`;
  const abs = Math.abs(v);
  if (abs >= 100 || Number.isInteger(v)) return Math.round(v).toLocaleString("en-US");
  return v.toFixed(abs >= 10 ? 1 : 2);
}

function ratio(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined || Number.isNaN(a) || Number.isNaN(b) || b === 0) return "—";
  return `${(a / b).toFixed(2)}x`;
}

function bestPeer(def: MetricDef, values: (number | undefined)[]): number | undefined {
  const known = values.filter((v): v is number => v !== undefined && !Number.isNaN(v));
  if (known.length === 0 || def.better === "none") return known[0];
  return def.better === "lower" ? Math.min(...known) : Math.max(...known);
}

export function renderTable(rows: MetricDef[], systems: System[], results: Results): string {
  const get = (metric: string, sys: string) => results.get(metric)?.get(sys);
  const floor = systems.find((s) => s.role === "floor");
  const peers = systems.filter((s) => s.role === "peer");
  const threadlines = systems.filter((s) => s.role === "threadline");
  const judged = threadlines.find((s) => s.key === "tl-postgres") ?? threadlines[0];
  const header = [
    "metric",
    "unit",
    ...systems.map((s) => s.label),
    ...(floor && peers.length > 0 ? ["best peer ÷ floor"] : []),
    ...threadlines.flatMap((s) => [`${s.label} ÷ floor`, `${s.label} ÷ best peer`]),
    "goal",
    judged ? `${judged.label}: met?` : "met?",
  ];
  const lines = [`| ${header.join(" | ")} |`, `|${header.map((_, i) => (i < 2 ? "---" : "---:")).join("|")}|`];
  for (const def of rows) {
    if (systems.every((s) => get(def.key, s.key) === undefined)) continue;
    const floorValue = floor ? get(def.key, floor.key) : undefined;
    const peerValue = bestPeer(def, peers.map((p) => get(def.key, p.key)));
    const cells = [def.label, def.unit, ...systems.map((s) => fmt(get(def.key, s.key), def.unit))];
    // Counts (errors, stalled tokens, collections) get no ratio: 3 against 1 says little.
    const relative = def.better !== "none" && !COUNTS.has(def.unit);
    if (floor && peers.length > 0) cells.push(relative ? ratio(peerValue, floorValue) : "—");
    for (const t of threadlines) {
      const v = get(def.key, t.key);
      cells.push(relative ? ratio(v, floorValue) : "—", relative ? ratio(v, peerValue) : "—");
    }
    const judgedValue = judged ? get(def.key, judged.key) : undefined;
    cells.push(def.goal?.text ?? "");
    cells.push(
      !def.goal ? "" : judgedValue === undefined || Number.isNaN(judgedValue) ? "no figure" : def.goal.met(judgedValue, { floor: floorValue, peer: peerValue }) ? "met" : "**missed**",
    );
    lines.push(`| ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}
