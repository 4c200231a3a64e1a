/**
 * A plan's steps in the shared state, as the plan tools keep them (`{description, status}` under a
 * JSON pointer): what a cancel leaves of them. The steps not completed when the run was cancelled
 * are marked "cancelled", so that the saved state, a reload and every card say the plan stopped
 * there rather than showing a step "running" for good.
 */
import type { Operation } from "fast-json-patch";

export type StepStatus = "pending" | "running" | "completed" | "cancelled";

/** `onCancelState` for a tool whose plan lives at `pointer` (e.g. "/plan/steps"). */
export function cancelOpenSteps(pointer: string): (state: unknown) => Operation[] {
  const path = pointer.split("/").slice(1);
  return (state) => {
    let steps: unknown = state;
    for (const key of path) steps = typeof steps === "object" && steps !== null ? (steps as Record<string, unknown>)[key] : undefined;
    if (!Array.isArray(steps)) return [];
    return steps.flatMap((step, i) => {
      const status = typeof step === "object" && step !== null ? (step as { status?: unknown }).status : undefined;
      return status === "running" || status === "pending" || status === undefined
        ? [{ op: "replace" as const, path: `${pointer}/${i}/status`, value: "cancelled" satisfies StepStatus }]
        : [];
    });
  };
}
