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
  return [...head, ...all.flatMap(ruleLines), "", summary, ""].join("\n");
}
