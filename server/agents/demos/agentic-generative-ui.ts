/**
 * Dojo feature "agentic generative UI": a long task whose progress is the UI. execute_plan writes
 * its steps into the shared state (state.steps) and patches each step's status as it works, so
 * the page draws the plan from state alone and every change reaches it as a STATE_DELTA.
 */
import { z } from "zod";
import { abortableWait } from "../abortable-wait.ts";
import { defineAgent, defineTool, type AgentDefinition } from "../define.ts";

export const AGENTIC_GENERATIVE_UI_ID = "agentic_generative_ui";

export const ExecutePlanArgsSchema = z.object({
  goal: z.string().describe("What the plan achieves, in a few words"),
  steps: z.array(z.string()).min(1).max(12).describe("The steps, each a short imperative sentence"),
});

export type StepStatus = "pending" | "running" | "completed";

export interface GenerativeUiOptions {
  /** Time spent on each step, so the progress can be watched; small in tests. */
  stepDelayMs?: number;
}

export function agenticGenerativeUiAgent(opts: GenerativeUiOptions = {}): AgentDefinition {
  const stepDelay = opts.stepDelayMs ?? 700;
  const executePlan = defineTool({
    name: "execute_plan",
    description: "Carry out a plan step by step. Its steps and their progress are shown to the user live.",
    inputSchema: ExecutePlanArgsSchema,
    async execute({ goal, steps }, ctx) {
      // `add` replaces an existing member, so a second plan in the thread starts afresh.
      await ctx.state.patch([
        { op: "add", path: "/goal", value: goal },
        { op: "add", path: "/steps", value: steps.map((description) => ({ description, status: "pending" satisfies StepStatus })) },
      ]);
      for (const i of steps.keys()) {
        await ctx.state.patch([{ op: "replace", path: `/steps/${i}/status`, value: "running" satisfies StepStatus }]);
        await abortableWait(stepDelay, ctx.signal);
        await ctx.state.patch([{ op: "replace", path: `/steps/${i}/status`, value: "completed" satisfies StepStatus }]);
      }
      return { goal, completed: steps.length };
    },
  });
  return defineAgent({
    id: AGENTIC_GENERATIVE_UI_ID,
    description: "Agentic generative UI: a plan whose steps update live in shared state while the agent works.",
    instructions:
      "You plan and carry out tasks. For any request, make a plan of 3 to 6 short steps and call execute_plan " +
      "with it; the user watches the steps progress. When it returns, say in one sentence that the work is done.",
    tools: [executePlan],
    maxTurns: 4,
  });
}
