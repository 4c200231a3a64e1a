/**
 * Dojo feature "agentic generative UI": a long task whose progress is the UI. The tool is the
 * dojo's reference one, `generate_task_steps_generative_ui` with `{steps: [{description,
 * status: "pending"}]}`, and the state is the reference's `{steps: [{description, status}]}`.
 * While the model streams the call, predictState makes state.steps follow its `steps` argument
 * (the plan appears as it is written); then the tool marks each step running and completed,
 * each change a STATE_DELTA, so the page draws the plan from state alone. A cancel marks the steps
 * not completed "cancelled".
 */
import { z } from "zod";
import { abortableWait } from "../abortable-wait.ts";
import { defineAgent, defineTool, type AgentDefinition } from "../define.ts";
import { cancelOpenSteps, type StepStatus } from "../plan-steps.ts";

export const AGENTIC_GENERATIVE_UI_ID = "agentic_generative_ui";

/** The dojo reference agents' name for the tool; their pages and recorded fixtures use it. */
export const GENERATE_TASK_STEPS_TOOL = "generate_task_steps_generative_ui";

/**
 * Bound on a plan's steps: the reference prompt asks the model for 10; 20 leaves room for a model
 * that writes more, while one tool call still cannot keep a run busy for minutes of step delays.
 */
export const MAX_PLAN_STEPS = 20;

export const TaskStepSchema = z.object({
  description: z.string().min(1).describe("The step, a couple of words in gerund form (e.g. Digging hole)"),
  // Optional: the reference schema fixes it to "pending", and a model that omits it means that.
  status: z.enum(["pending"]).optional().describe("Always 'pending'"),
});

export const GenerateTaskStepsArgsSchema = z.object({
  steps: z.array(TaskStepSchema).min(1).max(MAX_PLAN_STEPS).describe("The steps of the task, in order, each with status 'pending'"),
});

export type { StepStatus };

export interface GenerativeUiOptions {
  /** Time spent on each step, so the progress can be watched; small in tests. */
  stepDelayMs?: number;
}

export function agenticGenerativeUiAgent(opts: GenerativeUiOptions = {}): AgentDefinition {
  const stepDelay = opts.stepDelayMs ?? 700;
  const generateTaskSteps = defineTool({
    name: GENERATE_TASK_STEPS_TOOL,
    description:
      "Make up the steps (only a couple of words each, in gerund form) a task needs, and carry them out. " +
      "The steps and their progress are shown to the user live.",
    inputSchema: GenerateTaskStepsArgsSchema,
    onCancelState: cancelOpenSteps("/steps"),
    async execute({ steps }, ctx) {
      // `add` replaces the predicted (or an earlier plan's) steps: every plan starts afresh.
      await ctx.state.patch([
        { op: "add", path: "/steps", value: steps.map(({ description }) => ({ description, status: "pending" satisfies StepStatus })) },
      ]);
      for (const i of steps.keys()) {
        await ctx.state.patch([{ op: "replace", path: `/steps/${i}/status`, value: "running" satisfies StepStatus }]);
        await abortableWait(stepDelay, ctx.signal);
        await ctx.state.patch([{ op: "replace", path: `/steps/${i}/status`, value: "completed" satisfies StepStatus }]);
      }
      return "Steps executed.";
    },
  });
  return defineAgent({
    id: AGENTIC_GENERATIVE_UI_ID,
    description: `Agentic generative UI: ${GENERATE_TASK_STEPS_TOOL} writes a plan into state.steps and completes it live.`,
  greeting: "Give me a goal: I write a plan and work through it, step by step, live.",
  suggestions: ["Make a plan to launch the website", "Help me move house"],
    instructions:
      `You are a helpful assistant assisting with any task. When asked to do something, call ${GENERATE_TASK_STEPS_TOOL} ` +
      "with the steps it takes (3 to 10, a couple of words each, in gerund form, status 'pending'); the user watches " +
      "them progress. Do not repeat the steps afterwards: say in one sentence that you did them. " +
      "Just answer greetings and questions that are not tasks.",
    tools: [generateTaskSteps],
    predictState: [{ tool: GENERATE_TASK_STEPS_TOOL, argument: "steps", stateKey: "steps" }],
    maxTurns: 4,
  });
}
