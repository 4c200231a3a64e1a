/** The demo model on the agentic generative UI agent: any request becomes a four-step execute_plan. */
import type { Fixture } from "@copilotkit/aimock";
import type { z } from "zod";
import type { ExecutePlanArgsSchema } from "../../agents/demos/agentic-generative-ui.ts";
import { answeredCalls, captured, endsWithUser, lastResultIs, lastUserText, offers, toolCall } from "../request.ts";

const TOOL = "execute_plan";

type Plan = z.infer<typeof ExecutePlanArgsSchema>;

function planFor(message: string): Plan {
  const goal = captured(message, /\b(?:plan (?:to|for)|how (?:to|do I)|help me)\s+(.+?)[.!?]*$/i, "") || message.replace(/[.!?]+$/, "").trim() || "get started";
  return {
    goal,
    steps: [
      "Gather what is needed",
      "Prepare the groundwork",
      `Carry out: ${goal.length > 40 ? `${goal.slice(0, 40)}…` : goal}`,
      "Check the result and tidy up",
    ],
  };
}

export function agenticGenerativeUiFixtures(): Fixture[] {
  return [
    {
      match: { predicate: lastResultIs(TOOL) },
      response: (req) => {
        const { goal, steps } = answeredCalls(req).at(-1)!.args as Partial<Plan>;
        return { content: `Done: all ${steps?.length ?? 0} steps to "${goal ?? "the goal"}" are completed.` };
      },
    },
    {
      match: { predicate: (req) => offers(req, TOOL) && endsWithUser(req) },
      response: (req) => ({
        content: "Here is my plan; watch the steps as I work through them.",
        toolCalls: [toolCall(req, 0, TOOL, planFor(lastUserText(req)))],
      }),
    },
  ];
}
