/**
 * Event shapes. The validator is @ag-ui/core 1.0.0's own zod schema (a dependency of this
 * package), plus the few shapes 1.0.0 accepts and 0.0.59 rejects (RUN_FINISHED outcomes it does
 * not know). The real clients, when installed, are run as well (rules/clients.ts); this rule is
 * what every install can check. Rejected: shipping copies of both clients, which would pin an
 * application to versions it may not use.
 */
import { EventSchemas } from "@ag-ui/core/schemas";
import { fail, pass } from "../types.ts";
import type { AgUiEvent } from "../sse-reader.ts";
import { streamed, type RuleSpec } from "./rule.ts";

/** What 0.0.59 refuses that 1.0.0's schema admits, or undefined. */
function rejectedBy0059(e: AgUiEvent): string | undefined {
  if (e.type !== "RUN_FINISHED" || e.outcome === undefined) return undefined;
  const o = e.outcome as { type?: unknown; [k: string]: unknown };
  if (o.type === "success" && Object.keys(o).some((k) => k !== "type")) {
    return "RUN_FINISHED.outcome {type:\"success\"} with more keys: 0.0.59's outcome is a strict object";
  }
  if (o.type === "cancelled") return "RUN_FINISHED.outcome {type:\"cancelled\"} is 1.0-only: 0.0.59 rejects it (send it only to clients that declare protocolVersion 1.0)";
  return undefined;
}

export const eventSchema: RuleSpec = {
  name: "event-schema",
  title: "Every event is valid for @ag-ui/client 1.0.0 and 0.0.59 (@ag-ui/core's zod schema, and 0.0.59's narrower outcomes).",
  check(ctx) {
    let n = 0;
    for (const run of streamed(ctx)) {
      for (const f of run.exchange.frames) {
        if (!f.event) continue;
        n++;
        const parsed = EventSchemas.safeParse(f.event);
        const at = { scenario: run.scenario, frame: f.block.raw };
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
          return fail(`${f.event.type} is not a valid AG-UI 1.0 event: ${where}${issue?.message ?? parsed.error.message}`, at);
        }
        const old = rejectedBy0059(f.event);
        if (old) return fail(old, at);
      }
    }
    return n === 0 ? fail("no events to check") : pass(`${n} events valid`);
  },
};
