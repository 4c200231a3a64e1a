/**
 * axe-core in a page of the browser tests: injected from node_modules (never a CDN) and run on
 * the whole document; what comes back is what a person using a screen reader or a keyboard
 * would stumble on, by rule.
 */
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

export interface AxeViolation {
  id: string;
  impact: "minor" | "moderate" | "serious" | "critical" | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** `options`: axe.run's, e.g. `{ runOnly: { type: "rule", values: ["target-size"] } }` for a rule off by default. */
export async function axeViolations(page: Page, options: Record<string, unknown> = {}): Promise<AxeViolation[]> {
  await page.addScriptTag({ path: AXE });
  // A string, not a function: this file is type-checked without the DOM library.
  const result = (await page.evaluate(`axe.run(document, ${JSON.stringify({ resultTypes: ["violations"], ...options })})`)) as { violations: AxeViolation[] };
  return result.violations;
}

/** The critical and serious ones, one line each with the elements they name. */
export function blocking(violations: AxeViolation[]): string[] {
  return violations
    .filter((v) => v.impact === "critical" || v.impact === "serious")
    .map((v) => `${v.impact} ${v.id} (${v.help}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}
