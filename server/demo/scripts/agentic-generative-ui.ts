/**
 * The demo model on the agentic generative UI agent: any request becomes a four-step
 * generate_task_steps_generative_ui call in the reference agents' shape.
 */
import type { DemoFixture } from "../fixture.ts";
import type { z } from "zod";
import { GENERATE_TASK_STEPS_TOOL, type GenerateTaskStepsArgsSchema } from "../../agents/demos/agentic-generative-ui.ts";
import { answeredCalls, captured, endsWithUser, lastResultIs, lastUserText, offers, toolCall } from "../request.ts";

const TOOL = GENERATE_TASK_STEPS_TOOL;

type Plan = z.infer<typeof GenerateTaskStepsArgsSchema>;

function goalOf(message: string): string {
  return captured(message, /\b(?:plan (?:to|for)|how (?:to|do I)|help me)\s+(.+?)[.!?]*$/i, "") || message.replace(/[.!?]+$/, "").trim() || "get started";
}

function planFor(goal: string): Plan {
  return {
    steps: [
      "Gathering what is needed",
      "Preparing the groundwork",
      `Carrying out: ${goal.length > 40 ? `${goal.slice(0, 40)}…` : goal}`,
      "Checking the result",
    ].map((description) => ({ description, status: "pending" as const })),
  };
}

export function agenticGenerativeUiFixtures(): DemoFixture[] {
  return [
    {
      match: { predicate: lastResultIs(TOOL) },
      response: (req) => {
        const { steps } = answeredCalls(req).at(-1)!.args as Partial<Plan>;
        return { content: `Done: all ${steps?.length ?? 0} steps to "${goalOf(lastUserText(req))}" are completed.` };
      },
    },
    {
      match: { predicate: (req) => offers(req, TOOL) && endsWithUser(req) },
      response: (req) => ({
        content: "Here is my plan; watch the steps as I work through them.",
        toolCalls: [toolCall(req, 0, TOOL, planFor(goalOf(lastUserText(req))))],
      }),
    },
  ];
}
