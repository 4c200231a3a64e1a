/**
 * The demo model with the dojo's human-in-the-loop tool `generate_task_steps` on offer (the
 * frontend tool of the dojo's page, and of any CopilotKit app built like it): any request
 * becomes a plan of steps, each `enabled`, for the user to switch off or keep; the answer
 * `{accepted, steps?}` says which steps to perform. The app's own page offers confirm_action
 * instead, which the default script answers.
 */
import type { DemoFixture } from "../fixture.ts";
import { answeredCalls, endsWithUser, lastResultIs, lastUserText, offers, parseObject, toolCall } from "../request.ts";

export const GENERATE_TASK_STEPS = "generate_task_steps";

function stepsFor(message: string): { description: string; status: "enabled" }[] {
  const task = message.replace(/[.!?]+$/, "").trim() || "the task";
  return [
    "Checking what is needed",
    `Preparing: ${task.length > 40 ? `${task.slice(0, 40)}…` : task}`,
    "Doing the work",
    "Reviewing the result",
  ].map((description) => ({ description, status: "enabled" }));
}

export function humanInTheLoopFixtures(): DemoFixture[] {
  return [
    {
      match: { predicate: lastResultIs(GENERATE_TASK_STEPS) },
      response: (req) => {
        const answer = parseObject(answeredCalls(req).at(-1)!.result);
        if (answer.accepted !== true) return { content: "Cancelled: I did not perform any step." };
        const steps = Array.isArray(answer.steps) ? (answer.steps as { description?: unknown }[]) : [];
        return { content: `Performed ${steps.length} steps: ${steps.map((s) => String(s.description)).join("; ")}.` };
      },
    },
    {
      match: { predicate: (req) => offers(req, GENERATE_TASK_STEPS) && endsWithUser(req) },
      response: (req) => ({ toolCalls: [toolCall(req, 0, GENERATE_TASK_STEPS, { steps: stepsFor(lastUserText(req)) })] }),
    },
  ];
}
