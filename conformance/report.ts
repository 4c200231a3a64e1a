/** The report as a person reads it: one line per rule, the broken frame under a failure. */
import type { ConformanceReport, Rule } from "./types.ts";

const MARK = { passed: "PASS", failed: "FAIL", unsupported: "----" } as const;

function ruleLines(rule: Rule): string[] {
  const lines = [`${MARK[rule.status]}  ${rule.name}: ${rule.detail}`];
  if (rule.status === "failed") {
    lines.push(`      rule: ${rule.title}`);
    if (rule.scenario !== undefined) lines.push(`      in the ${rule.scenario} run`);
    if (rule.frame !== undefined && rule.frame !== "") {
      lines.push("      frame:");
      for (const l of rule.frame.split("\n")) lines.push(`        ${l}`);
    }
  }
  return lines;
}

export function formatReport(report: ConformanceReport, target?: string): string {
  const all = [...report.failed, ...report.passed, ...report.unsupported];
  const head = target === undefined ? [] : [`AG-UI conformance of ${target}`, ""];
  const summary = `${report.passed.length} passed, ${report.failed.length} failed, ${report.unsupported.length} unsupported or inconclusive`;
  const cleanup = report.cleanup
    ? [`threads deleted after the check: ${report.cleanup.deleted.length} of ${report.threads.length}${report.cleanup.failed.map((f) => `; ${f.threadId} not: ${f.error}`).join("")}`]
    : [`threads left on the server: ${report.threads.join(", ") || "none"} (--delete-url, or deleteThread, deletes them)`];
  return [...head, ...all.flatMap(ruleLines), "", summary, ...cleanup, ""].join("\n");
}
